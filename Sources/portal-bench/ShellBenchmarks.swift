import CSQLite
import Foundation

// shell.*: the release portal-shell binary against the sqlite3 shell, as child processes on the
// same file in the same run: whole-process wall time (median) and peak memory (wait4's rusage).

/// One child process run: wall time and peak resident memory.
private struct ShellChildRun {
    var milliseconds: Double
    var peakKilobytes: Int
    var status: Int32
}

/// Runs `arguments[0]` with its standard output to /dev/null.
private func runShellChild(_ arguments: [String]) throws -> ShellChildRun {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let start = DispatchTime.now().uptimeNanoseconds
    var pid: pid_t = 0
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
        throw ShellBenchError("cannot run \(arguments[0])")
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    return ShellChildRun(milliseconds: elapsed, peakKilobytes: usage.ru_maxrss, status: status)
}

private struct ShellBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Median wall time and the largest peak memory over `runs` runs (after a warm-up).
private func measureShellChild(_ arguments: [String], runs: Int) throws -> (milliseconds: Double, peakKilobytes: Int) {
    let warmUp = try runShellChild(arguments)
    guard warmUp.status == 0 else { throw ShellBenchError("\(arguments.joined(separator: " ")) exited with \(warmUp.status)") }
    var times: [Double] = []
    var peak = 0
    for _ in 0..<runs {
        let run = try runShellChild(arguments)
        times.append(run.milliseconds)
        peak = max(peak, run.peakKilobytes)
    }
    return (median(times), peak)
}

/// A table T of 1,000,000 rows × 5 columns (integer id, real, two texts, one nullable text),
/// generated once and cached under .build/bench-data.
/// A copy of the million-row table with an index on `city`, for the group by figure.
private func indexedCopy(of path: String) throws -> String {
    let copy = benchDirectory().appendingPathComponent("shell-1m-city.sqlite").path
    if FileManager.default.fileExists(atPath: copy) { return copy }
    let temporary = copy + ".tmp"
    try? FileManager.default.removeItem(atPath: temporary)
    try FileManager.default.copyItem(atPath: path, toPath: temporary)
    var db: OpaquePointer?
    guard sqlite3_open(temporary, &db) == SQLITE_OK, let db else { throw ShellBenchError("cannot open \(temporary)") }
    defer { sqlite3_close(db) }
    guard sqlite3_exec(db, "CREATE INDEX T_city ON T (city)", nil, nil, nil) == SQLITE_OK else {
        throw ShellBenchError("cannot index \(temporary)")
    }
    try FileManager.default.moveItem(atPath: temporary, toPath: copy)
    return copy
}

private func millionRowDatabase() throws -> String {
    let path = benchDirectory().appendingPathComponent("shell-1m.sqlite").path
    if FileManager.default.fileExists(atPath: path) { return path }
    let temporary = path + ".tmp"
    try? FileManager.default.removeItem(atPath: temporary)
    var db: OpaquePointer?
    guard sqlite3_open(temporary, &db) == SQLITE_OK, let db else { throw ShellBenchError("cannot create \(temporary)") }
    defer { sqlite3_close(db) }
    let setup = "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
        + "CREATE TABLE T (id INTEGER PRIMARY KEY, score REAL NOT NULL, name TEXT NOT NULL, city TEXT NOT NULL, note TEXT); BEGIN"
    guard sqlite3_exec(db, setup, nil, nil, nil) == SQLITE_OK else { throw ShellBenchError("setup failed") }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, "INSERT INTO T VALUES (?, ?, ?, ?, ?)", -1, &statement, nil) == SQLITE_OK else {
        throw ShellBenchError("prepare failed")
    }
    defer { sqlite3_finalize(statement) }
    let cities = ["Zürich", "São Paulo", "Kraków", "東京", "Reykjavík", "Oslo", "Lisboa", "Montréal"]
    var state: UInt64 = 0x1234_5678
    for id in 1...1_000_000 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        sqlite3_bind_int64(statement, 1, Int64(id))
        sqlite3_bind_double(statement, 2, Double(state >> 40) / 1000)
        sqlite3_bind_text(statement, 3, "name \(state >> 50) \(id)", -1, portal_sqlite_transient())
        sqlite3_bind_text(statement, 4, cities[Int(state >> 61)], -1, portal_sqlite_transient())
        if id % 3 == 0 {
            sqlite3_bind_null(statement, 5)
        } else {
            sqlite3_bind_text(statement, 5, "note, with \"quotes\" #\(id % 997)", -1, portal_sqlite_transient())
        }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw ShellBenchError("insert failed") }
        sqlite3_reset(statement)
    }
    guard sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK else { throw ShellBenchError("commit failed") }
    try FileManager.default.moveItem(atPath: temporary, toPath: path)
    return path
}

func shellBenchmarks() throws -> [Figure] {
    let root = FileManager.default.currentDirectoryPath
    let ours = root + "/.build/release/portal-shell"
    guard FileManager.default.isExecutableFile(atPath: ours) else {
        throw ShellBenchError("build the release portal-shell first (swift build -c release --product portal-shell)")
    }
    let sqlite3 = "/usr/bin/sqlite3"
    let big = try millionRowDatabase()
    var figures: [Figure] = []

    func figure(_ name: String, _ oursArguments: [String], _ baselineArguments: [String], runs: Int,
                goal: String) throws -> Figure {
        let mine = try measureShellChild([ours] + oursArguments, runs: runs)
        let theirs = try measureShellChild([sqlite3] + baselineArguments, runs: runs)
        return Figure(name: name, oursMilliseconds: mine.milliseconds, baselineMilliseconds: theirs.milliseconds,
                      notes: ["peak_mb": String(format: "%.1f", Double(mine.peakKilobytes) / 1024),
                              "sqlite3_peak_mb": String(format: "%.1f", Double(theirs.peakKilobytes) / 1024),
                              "goal": goal])
    }

    figures.append(try figure("shell.export.csv", [big, "-r", "--exec", "find T", "--format", "csv"],
                              ["-csv", big, "SELECT * FROM T"], runs: 3, goal: "ratio<=1.2"))
    figures.append(try figure("shell.export.json", [big, "-r", "--exec", "find T", "--format", "json"],
                              ["-json", big, "SELECT * FROM T"], runs: 3, goal: "ratio<=1.2"))
    figures.append(try figure("shell.export.table", [big, "-r", "--exec", "find T", "--format", "table"],
                              ["-box", big, "SELECT * FROM T"], runs: 3, goal: "ratio<=1.0,peak<=30MB"))
    // Issue 16's filters: Unicode-aware case/diacritic folding and MATCHES, against sqlite3's
    // nearest ASCII equivalents (LIKE, COLLATE NOCASE, its REGEXP), the same count each way.
    let filters: [(String, String, String)] = [
        ("shell.filter.casefold.beginswith", #"count T where name BEGINSWITH[c] "NAME 12""#,
         "SELECT count(*) FROM T WHERE name LIKE 'name 12%'"),
        ("shell.filter.casefold.equals", #"count T where city ==[c] "zürich""#,
         "SELECT count(*) FROM T WHERE city = 'zürich' COLLATE NOCASE"),
        ("shell.filter.casefold.contains", #"count T where note CONTAINS[cd] "QUOTES""#,
         "SELECT count(*) FROM T WHERE note LIKE '%quotes%'"),
        ("shell.filter.matches", #"count T where name MATCHES "name 1[0-9]* 5.*""#,
         "SELECT count(*) FROM T WHERE name REGEXP '^name 1[0-9]* 5.*$'"),
    ]
    for (name, command, sql) in filters {
        figures.append(try figure(name, [big, "-r", "--exec", command], [big, sql], runs: 3, goal: "ratio<=2 (issue 16)"))
    }
    // Issue 14's group by an indexed column, against the same SQL run by sqlite3 (the C API and
    // its printing of the eight rows).
    let grouped = try indexedCopy(of: big)
    figures.append(try figure("shell.group", [grouped, "-r", "--exec", "count T group by city"],
                              [grouped, "SELECT city, count(*) AS count FROM T GROUP BY city ORDER BY count DESC, city"],
                              runs: 5, goal: "ratio<=1.2 (issue 14)"))
    let chinook = URL(fileURLWithPath: root).appendingPathComponent("Tests/Fixtures/chinook/Chinook_Sqlite.sqlite").path
    var startup = try figure("shell.startup", [chinook, "-r", "--exec", "count Track"],
                             [chinook, "SELECT count(*) FROM Track"], runs: 21, goal: "median<25ms")
    startup.notes["ours_median_ms"] = String(format: "%.1f", startup.oursMilliseconds)
    figures.append(startup)
    return figures
}
