import CSQLite
import Foundation
import PortalEngine
import PortalSQLite

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
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
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

/// Runs `arguments` under time(1), which forks it from its own small process, and takes the peak
/// memory time reports. wait4 on a child spawned from this process reports this process's peak
/// whenever that is the larger: posix_spawn's child shares this process's memory until it execs.
private func runShellChildMeasuringPeak(_ arguments: [String]) throws -> ShellChildRun {
    let peakFile = benchDirectory().appendingPathComponent("peak.txt").path
    var run = try runShellChild(["/usr/bin/time", "-f", "%M", "-o", peakFile] + arguments)
    guard run.status == 0 else { throw ShellBenchError("\(arguments.joined(separator: " ")) exited with \(run.status)") }
    let report = (try? String(contentsOfFile: peakFile, encoding: .utf8)) ?? ""
    guard let peak = Int(report.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw ShellBenchError("time(1) reported no peak memory: \(report)")
    }
    run.peakKilobytes = peak
    return run
}

/// Median wall times of two commands over `runs` runs each, run alternately (on a shared machine
/// a change of load then falls on both), after a warm-up of both that gives their peak memories
/// (under time(1), which would add its own fork to a timed run).
private func measureShellChildren(_ ours: [String], _ baseline: [String], runs: Int)
    throws -> (ours: (milliseconds: Double, peakKilobytes: Int), baseline: (milliseconds: Double, peakKilobytes: Int)) {
    let peaks = (try runShellChildMeasuringPeak(ours).peakKilobytes, try runShellChildMeasuringPeak(baseline).peakKilobytes)
    var times: ([Double], [Double]) = ([], [])
    for _ in 0..<runs {
        let a = try runShellChild(ours)
        let b = try runShellChild(baseline)
        times.0.append(a.milliseconds)
        times.1.append(b.milliseconds)
    }
    return ((median(times.0), peaks.0), (median(times.1), peaks.1))
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

/// T of the million-row database written as csv (with a header) and as ndjson, for the import
/// figures; cached beside it. NULL notes are empty csv fields (sqlite3 and we both store '' in
/// a TEXT column) and JSON nulls.
private func importFiles(from database: String) throws -> (csv: String, ndjson: String) {
    let csv = benchDirectory().appendingPathComponent("shell-1m.csv").path
    let ndjson = benchDirectory().appendingPathComponent("shell-1m.ndjson").path
    if FileManager.default.fileExists(atPath: csv) && FileManager.default.fileExists(atPath: ndjson) { return (csv, ndjson) }
    var db: OpaquePointer?
    guard sqlite3_open_v2(database, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw ShellBenchError("cannot open \(database)") }
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, "SELECT id, score, name, city, note FROM T ORDER BY id", -1, &statement, nil) == SQLITE_OK else {
        throw ShellBenchError("prepare failed")
    }
    defer { sqlite3_finalize(statement) }
    // Written a piece at a time: a child's peak memory (wait4) counts this process's peak too.
    guard let csvFile = fopen(csv + ".tmp", "w"), let ndjsonFile = fopen(ndjson + ".tmp", "w") else {
        throw ShellBenchError("cannot write \(csv)")
    }
    fputs("id,score,name,city,note\n", csvFile)
    func text(_ column: Int32) -> String? {
        sqlite3_column_text(statement, column).map { String(cString: $0) }
    }
    while sqlite3_step(statement) == SQLITE_ROW {
        let id = sqlite3_column_int64(statement, 0)
        let score = String(sqlite3_column_double(statement, 1))
        let name = text(2) ?? "", city = text(3) ?? "", note = text(4)
        let quotedNote = note.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" } ?? ""
        fputs("\(id),\(score),\(name),\(city),\(quotedNote)\n", csvFile)
        let jsonNote = note.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\\\"") + "\"" } ?? "null"
        fputs("{\"id\": \(id), \"score\": \(score), \"name\": \"\(name)\", \"city\": \"\(city)\", \"note\": \(jsonNote)}\n", ndjsonFile)
    }
    guard fclose(csvFile) == 0, fclose(ndjsonFile) == 0 else { throw ShellBenchError("cannot write \(csv)") }
    // Both anew: one of the pair may be left from a run that stopped between the two moves.
    for file in [csv, ndjson] {
        try? FileManager.default.removeItem(atPath: file)
        try FileManager.default.moveItem(atPath: file + ".tmp", toPath: file)
    }
    return (csv, ndjson)
}

/// An import figure: each run imports into a fresh copy of an empty database (WAL, as the
/// shell opens it) holding T; ours and sqlite3 alternate, the copy made outside the timing.
private func importFigure(_ name: String, ours: String, oursArguments: (String) -> [String],
                          baselineArguments: (String) -> [String], runs: Int, goal: String, baselineNote: String) throws -> Figure? {
    guard wanted(name) else { return nil }
    let template = benchDirectory().appendingPathComponent("import-empty.sqlite").path
    let target = benchDirectory().appendingPathComponent("import-target.sqlite").path
    if !FileManager.default.fileExists(atPath: template) {
        var db: OpaquePointer?
        guard sqlite3_open(template, &db) == SQLITE_OK, let db else { throw ShellBenchError("cannot create \(template)") }
        defer { sqlite3_close(db) }
        let schema = "PRAGMA journal_mode = WAL; "
            + "CREATE TABLE T (id INTEGER PRIMARY KEY, score REAL NOT NULL, name TEXT NOT NULL, city TEXT NOT NULL, note TEXT)"
        guard sqlite3_exec(db, schema, nil, nil, nil) == SQLITE_OK else { throw ShellBenchError("cannot create T") }
    }
    func fresh() throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: target + suffix) }
        try FileManager.default.copyItem(atPath: template, toPath: target)
    }
    // Both sides run under time(1) for their peak memory: a second or more each, where its fork
    // is lost in the noise.
    func run(_ arguments: [String]) throws -> ShellChildRun {
        try fresh()
        return try runShellChildMeasuringPeak(arguments)
    }
    _ = try run([ours] + oursArguments(target))
    var mine: [Double] = [], theirs: [Double] = []
    var minePeak = 0, theirPeak = 0
    for _ in 0..<runs {
        let a = try run([ours] + oursArguments(target))
        let b = try run(["/usr/bin/sqlite3"] + baselineArguments(target))
        mine.append(a.milliseconds)
        theirs.append(b.milliseconds)
        minePeak = max(minePeak, a.peakKilobytes)
        theirPeak = max(theirPeak, b.peakKilobytes)
    }
    return Figure(name: name, oursMilliseconds: median(mine), baselineMilliseconds: median(theirs),
                  notes: ["peak_mb": String(format: "%.1f", Double(minePeak) / 1024),
                          "sqlite3_peak_mb": String(format: "%.1f", Double(theirPeak) / 1024),
                          "goal": goal, "baseline": baselineNote])
}

/// The release binary as `make install` installs it: install(1)'s copy in the bench's folder.
/// The linker writes its output through a mapping of the file, and a start-up from that file
/// costs the kernel more than one from a copy written whole (install(1), a package manager):
/// 0.2–0.3 ms more for a one-line command on this machine. Timing the linker's own file would
/// time how the linker wrote it.
private func installedShell(_ built: String) throws -> String {
    let installed = benchDirectory().appendingPathComponent("portal-shell").path
    try? FileManager.default.removeItem(atPath: installed)
    let run = try runShellChild(["/usr/bin/install", "-m", "755", built, installed])
    guard run.status == 0 else { throw ShellBenchError("install(1) could not copy \(built) to \(installed)") }
    return installed
}

func shellBenchmarks() throws -> [Figure] {
    let root = FileManager.default.currentDirectoryPath
    let built = root + "/.build/release/portal-shell"
    guard FileManager.default.isExecutableFile(atPath: built) else {
        throw ShellBenchError("build the release portal-shell first (swift build -c release --product portal-shell)")
    }
    let ours = try installedShell(built)
    let sqlite3 = "/usr/bin/sqlite3"
    let big = try millionRowDatabase()
    // nil for a figure `--only` leaves out: the others take minutes.
    var figures: [Figure?] = []

    func figure(_ name: String, _ oursArguments: [String], _ baselineArguments: [String], runs: Int,
                goal: String) throws -> Figure? {
        guard wanted(name) else { return nil }
        let (mine, theirs) = try measureShellChildren([ours] + oursArguments, [sqlite3] + baselineArguments, runs: runs)
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
    // Filters on mostly ASCII text (the ASCII variant): Unicode-aware case/diacritic folding and
    // MATCHES, against sqlite3's nearest ASCII equivalents (LIKE, COLLATE NOCASE, its REGEXP),
    // the same count each way.
    let filters: [(String, String, String)] = [
        ("shell.filter.casefold.ascii.beginswith", #"count T where name BEGINSWITH[c] "NAME 12""#,
         "SELECT count(*) FROM T WHERE name LIKE 'name 12%'"),
        ("shell.filter.casefold.ascii.equals", #"count T where city ==[c] "zürich""#,
         "SELECT count(*) FROM T WHERE city = 'zürich' COLLATE NOCASE"),
        ("shell.filter.casefold.ascii.contains", #"count T where note CONTAINS[cd] "QUOTES""#,
         "SELECT count(*) FROM T WHERE note LIKE '%quotes%'"),
        ("shell.filter.matches", #"count T where name MATCHES "name 1[0-9]* 5.*""#,
         "SELECT count(*) FROM T WHERE name REGEXP '^name 1[0-9]* 5.*$'"),
    ]
    for (name, command, sql) in filters {
        figures.append(try figure(name, [big, "-r", "--exec", command], [big, sql], runs: 3, goal: "ratio<=2"))
    }
    // The same on names in many languages (see MultilingualNames.swift).
    if multilingualFilters.contains(where: { wanted($0.0) }) {
        let names = try multilingualNamesDatabase()
        for (name, command, sql, goal) in multilingualFilters {
            figures.append(try figure(name, [names, "-r", "--exec", command], [names, sql], runs: 3, goal: goal))
        }
    }
    // Imports: 1,000,000 rows × 5 columns into an empty T, in one transaction.
    let files = wanted("shell.import.csv") || wanted("shell.import.ndjson") ? try importFiles(from: big) : (csv: "", ndjson: "")
    figures.append(try importFigure("shell.import.csv", ours: ours, oursArguments: { [$0, "-e", "import T from \(files.csv)"] },
                                    baselineArguments: { [$0, ".import --csv --skip 1 \(files.csv) T"] }, runs: 3,
                                    goal: "ratio<=1.0,peak<=50MB", baselineNote: "sqlite3 .import --csv"))
    // sqlite3 has no ndjson import: the same file read whole (readfile), made one JSON array and
    // taken apart by json_each, in one INSERT.
    let jsonInsert = "INSERT INTO T SELECT value ->> 'id', value ->> 'score', value ->> 'name', value ->> 'city', value ->> 'note' "
        + "FROM json_each('[' || replace(rtrim(readfile('\(files.ndjson)'), char(10)), char(10), ',') || ']')"
    figures.append(try importFigure("shell.import.ndjson", ours: ours, oursArguments: { [$0, "-e", "import T from \(files.ndjson)"] },
                                    baselineArguments: { [$0, jsonInsert] }, runs: 3,
                                    goal: "ratio<=1.5,peak<=50MB", baselineNote: "sqlite3 json_each(readfile)"))
    // A group by an indexed column: `count T group by city`'s selection compiled and run
    // by the engine, against the same SQL stepped through the C API, in this process (a child
    // process would time start-up, which shell.startup measures).
    if wanted("shell.group") { figures.append(try groupFigure(try indexedCopy(of: big))) }
    figures.append(try copyToPostgresFigure(big, ours: ours))
    figures.append(try copyFromPostgresFigure(big, ours: ours))
    let chinook = URL(fileURLWithPath: root).appendingPathComponent("Tests/Fixtures/chinook/Chinook_Sqlite.sqlite").path
    var startup = try figure("shell.startup", [chinook, "-r", "--exec", "count Track"],
                             [chinook, "SELECT count(*) FROM Track"], runs: 21, goal: "median<25ms")
    if let milliseconds = startup?.oursMilliseconds { startup?.notes["ours_median_ms"] = String(format: "%.1f", milliseconds) }
    figures.append(startup)
    // A small query through an index from the command line: start-up, schema read, predicate
    // parse and compile, and one row's lookup, against sqlite3 doing its share of the same.
    figures.append(try figure("shell.count.indexed", [big, "-r", "--exec", "count T where id == 500000"],
                              [big, "SELECT count(*) FROM T WHERE id = 500000"], runs: 21, goal: "ratio<=1.3"))
    return figures.compactMap { $0 }
}

/// The test server's PGHOST, or nil (said on standard error) when there is none.
func postgresHost(for figure: String) -> String? {
    if let host = ProcessInfo.processInfo.environment["PGHOST"] { return host }
    FileHandle.standardError.write(Data("portal-bench: \(figure) left out: no PostgreSQL server (PGHOST is not set)\n".utf8))
    return nil
}

/// `command` run by psql in `database`; a failure throws.
@discardableResult
private func psql(_ command: String, in database: String = "postgres") throws -> ShellChildRun {
    let run = try runShellChild(["/usr/bin/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database, "-c", command])
    guard run.status == 0 else { throw ShellBenchError("psql failed: \(command)") }
    return run
}

/// `shell.copy_to.postgres`: `--copy-to` of the million-row table into a new
/// PostgreSQL database (types, key, rows by COPY, statistics), against psql's `\copy` of the same
/// rows (a CSV sqlite3 wrote) into the same table made beforehand: ours must keep at least half
/// its speed. Each run gets a fresh database. Only with a server (`make bench` starts one).
private func copyToPostgresFigure(_ big: String, ours: String) throws -> Figure? {
    let name = "shell.copy_to.postgres"
    guard wanted(name) else { return nil }
    guard let host = postgresHost(for: name) else { return nil }
    let csv = benchDirectory().appendingPathComponent("shell-1m-for-psql.csv").path
    if !FileManager.default.fileExists(atPath: csv) {
        guard try runShellChild(["/usr/bin/sqlite3", "-csv", "-noheader", big, ".output \(csv)", "SELECT * FROM T"]).status == 0 else {
            throw ShellBenchError("sqlite3 could not write \(csv)")
        }
    }
    let database = "portal_bench_copy"
    func fresh() throws {
        _ = try psql("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        _ = try psql("CREATE DATABASE \(database)")
    }
    var mine: [Double] = [], theirs: [Double] = []
    for run in 0..<4 {
        try fresh()
        let a = try runShellChild([ours, big, "--copy-to", "postgresql:///\(database)?host=\(host)"])
        guard a.status == 0 else { throw ShellBenchError("--copy-to exited with \(a.status)") }
        try fresh()
        _ = try psql("CREATE TABLE \"T\" (id bigint PRIMARY KEY, score double precision NOT NULL, name text NOT NULL, "
                     + "city text NOT NULL, note text)", in: database)
        let b = try psql("\\copy \"T\" FROM '\(csv)' WITH (FORMAT csv)", in: database)
        if run > 0 { mine.append(a.milliseconds); theirs.append(b.milliseconds) }   // the first warms up
    }
    _ = try psql("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
    return Figure(name: name, oursMilliseconds: median(mine), baselineMilliseconds: median(theirs),
                  notes: ["goal": "ratio<=2 (at least half of psql \\copy's speed)", "baseline": "psql \\copy (csv)"])
}

/// `shell.copy_to.sqlite_from_postgres`: `postgresql://… --copy-to new.sqlite` of the
/// million-row table (one snapshot, a cursor, the rows into SQLite), against psql's `\copy … TO`
/// a CSV file and sqlite3's `.import` of it into the same table made beforehand: ours must keep
/// at least half their speed. Only with a server (`make bench` starts one).
private func copyFromPostgresFigure(_ big: String, ours: String) throws -> Figure? {
    let name = "shell.copy_to.sqlite_from_postgres"
    guard wanted(name) else { return nil }
    guard let host = postgresHost(for: name) else { return nil }
    let database = "portal_bench_copy_from"
    let url = "postgresql:///\(database)?host=\(host)"
    _ = try psql("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
    _ = try psql("CREATE DATABASE \(database)")
    guard try runShellChild([ours, big, "--copy-to", url]).status == 0 else { throw ShellBenchError("--copy-to into \(database) failed") }
    let directory = benchDirectory()
    let copy = directory.appendingPathComponent("shell-1m-from-postgres.sqlite").path
    let csv = directory.appendingPathComponent("shell-1m-from-postgres.csv").path
    func remove() { for path in [copy, copy + "-wal", copy + "-shm", copy + "-journal", csv] { unlink(path) } }
    var mine: [Double] = [], theirs: [Double] = []
    var peak = 0
    for run in 0..<4 {
        remove()
        // The first run warms up, and gives the peak memory.
        let arguments = [ours, url, "--copy-to", copy]
        let a = try run == 0 ? runShellChildMeasuringPeak(arguments) : runShellChild(arguments)
        guard a.status == 0 else { throw ShellBenchError("--copy-to from PostgreSQL exited with \(a.status)") }
        if run == 0 { peak = a.peakKilobytes }
        remove()
        let exported = try psql("\\copy \"T\" TO '\(csv)' WITH (FORMAT csv)", in: database)
        let imported = try runShellChild(["/usr/bin/sqlite3", copy, "CREATE TABLE T (id INTEGER PRIMARY KEY, score REAL NOT NULL, "
                                          + "name TEXT NOT NULL, city TEXT NOT NULL, note TEXT)", ".import --csv \(csv) T"])
        guard imported.status == 0 else { throw ShellBenchError("sqlite3 .import failed") }
        if run > 0 {
            mine.append(a.milliseconds)
            theirs.append(exported.milliseconds + imported.milliseconds)
        }
    }
    remove()
    _ = try psql("DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
    return Figure(name: name, oursMilliseconds: median(mine), baselineMilliseconds: median(theirs),
                  notes: ["goal": "ratio<=2 (at least half the speed of psql \\copy TO csv + sqlite3 .import)",
                          "baseline": "psql \\copy TO csv, sqlite3 .import", "peak_mb": String(format: "%.1f", Double(peak) / 1024)])
}

/// `shell.group`: the engine's `count … group by` against the C API running its SQL.
private func groupFigure(_ path: String) throws -> Figure {
    var options = StoreOptions(readOnly: true)
    options.switchesToWAL = false
    let store = try Store(path: path, options: options)
    defer { try? store.close() }
    let selection = Selection([SelectionItem("city"), SelectionItem("count()", as: "count")], groupBy: ["city"])
    let sort = [SortKey("count", ascending: false), SortKey("city")]
    let sql = "SELECT city, count(*) AS count FROM T GROUP BY city ORDER BY count DESC, city"
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw ShellBenchError("cannot open \(path)") }
    defer { sqlite3_close(db) }
    var oursRows = 0, baselineRows = 0
    let (ours, baseline) = try pairedMedians(runs: 9, ours: {
        oursRows = 0
        try store.read { ctx in try ctx.forEach("T", select: selection, sortedBy: sort) { _ in oursRows += 1 } }
    }, baseline: {
        baselineRows = 0
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw ShellBenchError("prepare failed") }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW {
            _ = sqlite3_column_text(statement, 0)
            _ = sqlite3_column_int64(statement, 1)
            baselineRows += 1
        }
    })
    guard oursRows == baselineRows, oursRows > 0 else { throw ShellBenchError("shell.group: \(oursRows) rows against \(baselineRows)") }
    return Figure(name: "shell.group", oursMilliseconds: ours, baselineMilliseconds: baseline,
                  notes: ["goal": "ratio<=1.2", "rows": "1000000", "groups": String(oursRows)])
}
