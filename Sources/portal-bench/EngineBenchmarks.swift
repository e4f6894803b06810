import CBaseline
import Foundation
import Synchronization
import PortalEngine
import PortalSQLite

// The engine's figures against the same work written in C on the SQLite C API (CBaseline, -O2),
// measured in the same run. Each time is the median of several runs (7 for most) after a warm-up.

/// 10 INTEGER columns, as a typed entity read and written by its `RowDecodable`/`RowEncodable`
/// conformance (the one `generate swift` writes).
struct BenchRow: PortalEntity {
    static let entityName = "Bench"
    static let idAttribute = "a0"
    var a0: Int64, a1: Int64, a2: Int64, a3: Int64, a4: Int64
    var a5: Int64, a6: Int64, a7: Int64, a8: Int64, a9: Int64
}

extension BenchRow: RowDecodable, RowEncodable {
    static let decodedColumns = columnNames
    static let encodedColumns = columnNames

    init(row: borrowing RowReader) throws {
        a0 = try row[0]; a1 = try row[1]; a2 = try row[2]; a3 = try row[3]; a4 = try row[4]
        a5 = try row[5]; a6 = try row[6]; a7 = try row[7]; a8 = try row[8]; a9 = try row[9]
    }

    func encode(into row: inout RowWriter) {
        row.append(a0); row.append(a1); row.append(a2); row.append(a3); row.append(a4)
        row.append(a5); row.append(a6); row.append(a7); row.append(a8); row.append(a9)
    }
}

/// The same entity through Codable alone (the synthesized conformances).
struct CodableBenchRow: PortalEntity {
    static let entityName = "Bench"
    static let idAttribute = "a0"
    var a0: Int64, a1: Int64, a2: Int64, a3: Int64, a4: Int64
    var a5: Int64, a6: Int64, a7: Int64, a8: Int64, a9: Int64
}

private let columnNames = (0..<10).map { "a\($0)" }
private let createTable = "CREATE TABLE IF NOT EXISTS Bench (\(columnNames.map { "\($0) INTEGER" }.joined(separator: ", ")))"
private let insertSQL = "INSERT INTO Bench VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

func engineBenchmarks() throws -> [Figure] {
    let folder = benchDirectory()
    // `--only engine.fetch.typed` filters the printed figures; this skips the others' work too.
    let arguments = CommandLine.arguments
    let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? ""
    let figures: [(String, () throws -> Figure)] = [
        ("engine.fetch.dynamic", { try fetchFigure(folder: folder, .dynamic) }),
        ("engine.fetch.typed", { try fetchFigure(folder: folder, .typed) }),
        ("engine.fetch.codable", { try fetchFigure(folder: folder, .codable) }),
        ("engine.fetch.cursor", { try fetchFigure(folder: folder, .cursor) }),
        ("engine.insert.dynamic", { try insertFigure(folder: folder, .dynamic) }),
        ("engine.insert.typed", { try insertFigure(folder: folder, .typed) }),
        ("engine.insert.create", { try insertFigure(folder: folder, .create) }),
        ("engine.insert.prepared", { try insertFigure(folder: folder, .prepared) }),
        ("engine.query.compiled", { try compiledQueryFigure(folder: folder) }),
        ("engine.read.during_write", { try readDuringWriteFigure(folder: folder) }),
    ]
    return try figures.filter { $0.0.hasPrefix(only) || only.hasPrefix("engine") == false }.map { try $0.1() }
}

private struct BenchError: Error, CustomStringConvertible {
    let description: String
}

private func freshFile(_ folder: URL, _ name: String) -> String {
    let path = folder.appendingPathComponent(name).path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    return path
}

/// How a fetch figure reads the rows.
private enum FetchKind: String {
    /// `find`: every row as a `Row`.
    case dynamic
    /// `Portal.findAll` of a `RowDecodable` type (the generated decoder).
    case typed
    /// `Portal.findAll` of a Codable-only type.
    case codable
    /// `ctx.forEach(T.self)`: the typed cursor, one entity at a time, none kept.
    case cursor
}

/// engine.fetch.dynamic / .typed / .codable / .cursor: 200,000 rows × 10 INTEGER columns. The C
/// loop keeps every row's integers in an array it grows; for .typed and .codable, whose result
/// is a Swift array of entities, that array is then copied into the same `[T]`.
private func fetchFigure(folder: URL, _ kind: FetchKind) throws -> Figure {
    let rows = 200_000
    let path = freshFile(folder, "engine-fetch.sqlite")
    guard let db = baseline_open(path) else { throw BenchError(description: "cannot open \(path)") }
    defer { baseline_close(db) }
    let store = try Store(path: path)
    try store.write { ctx in try ctx.execute(createTable) }
    guard baseline_insert_integers(db, insertSQL, Int32(rows), 10) == 0 else { throw BenchError(description: "cannot fill the table") }

    var checksum: Int64 = 0
    let cBaseline = {
        guard baseline_fetch_integers(db, "SELECT * FROM Bench", 10, &checksum) == rows else {
            throw BenchError(description: "C fetch failed")
        }
    }
    // `findAll` returns a Swift array of entities, so its baseline ends with the same array: the
    // C loop's rows, then copied once into `[T]` (the least a Swift program reading through the
    // C API pays for it; C's own array grows by `realloc`, which a Swift array cannot). Both
    // sides then read the array alike.
    func cEntities<T>(_ make: (UnsafePointer<Int64>) -> T) throws -> [T] {
        var buffer: UnsafeMutablePointer<Int64>?
        let count = baseline_fetch_integer_rows(db, "SELECT * FROM Bench", 10, &buffer, &checksum)
        defer { baseline_free(buffer) }
        guard count == rows, let buffer else { throw BenchError(description: "C fetch failed") }
        return [T](unsafeUninitializedCapacity: rows) { entities, initialized in
            guard let first = entities.baseAddress else { return }
            for row in 0..<rows { (first + row).initialize(to: make(buffer + row * 10)) }
            initialized = rows
        }
    }
    func check(_ sum: Int64, count: Int) throws {
        guard count == rows, sum != 0 else { throw BenchError(description: "\(kind.rawValue) fetch") }
    }
    let times: (ours: Double, baseline: Double)
    var notes: [String: String] = [:]
    switch kind {
    case .typed:
        let portal = Portal<BenchRow>(store)
        times = try pairedMedians(cpu: true, ours: {
            let fetched = try portal.findAll()
            try check(fetched.reduce(0) { $0 &+ $1.a9 }, count: fetched.count)
        }, baseline: {
            let fetched = try cEntities { BenchRow(a0: $0[0], a1: $0[1], a2: $0[2], a3: $0[3], a4: $0[4],
                                                   a5: $0[5], a6: $0[6], a7: $0[7], a8: $0[8], a9: $0[9]) }
            try check(fetched.reduce(0) { $0 &+ $1.a9 }, count: fetched.count)
        })
    case .codable:
        let portal = Portal<CodableBenchRow>(store)
        times = try pairedMedians(cpu: true, ours: {
            let fetched = try portal.findAll()
            try check(fetched.reduce(0) { $0 &+ $1.a9 }, count: fetched.count)
        }, baseline: {
            let fetched = try cEntities { CodableBenchRow(a0: $0[0], a1: $0[1], a2: $0[2], a3: $0[3], a4: $0[4],
                                                          a5: $0[5], a6: $0[6], a7: $0[7], a8: $0[8], a9: $0[9]) }
            try check(fetched.reduce(0) { $0 &+ $1.a9 }, count: fetched.count)
        })
    case .cursor:
        times = try pairedMedians(cpu: true, ours: {
            var sum: Int64 = 0
            try store.read { ctx in try ctx.forEach(BenchRow.self) { sum &+= $0.a9 } }
            guard sum != 0 else { throw BenchError(description: "cursor") }
        }, baseline: cBaseline)
        // The dynamic cursor: `forEach` over `Row`s.
        let dynamic = try pairedMedians(runs: 5, cpu: true, ours: {
            var count = 0
            try store.read { ctx in try ctx.forEach("Bench") { row in count += row.count } }
            guard count == rows * 10 else { throw BenchError(description: "stream") }
        }, baseline: cBaseline)
        notes = ["dynamic_ms": String(format: "%.1f", dynamic.ours),
                 "dynamic_ratio": String(format: "%.2f", dynamic.ours / dynamic.baseline)]
    case .dynamic:
        times = try pairedMedians(cpu: true, ours: {
            let fetched = try store.read { ctx in try ctx.find("Bench") }
            guard fetched.count == rows, fetched[rows - 1].count == 10 else { throw BenchError(description: "fetch") }
        }, baseline: cBaseline)
    }
    try store.close()
    let goals: [FetchKind: String] = [.dynamic: "1.3", .typed: "1.3", .codable: "2.0", .cursor: "1.2"]
    return Figure(name: "engine.fetch.\(kind.rawValue)", oursMilliseconds: times.ours, baselineMilliseconds: times.baseline,
                  notes: ["goal": "<= \(goals[kind] ?? "?")", "rows": "\(rows)x10", "clock": "thread-cpu"]
                    .merging(notes) { a, _ in a })
}

/// How an insert figure writes the rows.
private enum InsertKind: String {
    /// `ctx.insert(_:columns:values:)`: ordered columns and values.
    case dynamic
    /// `Portal.create` of `RowEncodable` entities.
    case typed
    /// `ctx.create(_:_:)` of a `[String: Value]` dictionary, each stored row returned.
    case create
    /// `ctx.prepare(INSERT …).execute([Value])`: the documented prepared statement.
    case prepared
}

/// engine.insert.dynamic / .typed / .create / .prepared: 50,000 rows × 10 columns in one write.
private func insertFigure(folder: URL, _ kind: InsertKind) throws -> Figure {
    let rows = 50_000
    let path = freshFile(folder, "engine-insert.sqlite")
    let store = try Store(path: path)
    try store.write { ctx in try ctx.execute(createTable) }
    guard let db = baseline_open(path) else { throw BenchError(description: "cannot open \(path)") }
    defer { baseline_close(db) }
    let empty: () throws -> Void = { try store.write { ctx in _ = try ctx.execute("DELETE FROM Bench") } }

    let cBaseline = {
        guard baseline_insert_integers(db, insertSQL, Int32(rows), 10) == 0 else { throw BenchError(description: "C insert failed") }
    }
    func row(_ r: Int64) -> [Value] { (1...10).map { .integer(r * Int64($0)) } }
    var dictionaries: [[String: Value]] = []
    let prepare: () -> Void = kind != .create ? {} : {
        dictionaries = (0..<Int64(rows)).map { r in
            ["a0": .integer(r), "a1": .integer(r * 2), "a2": .integer(r * 3), "a3": .integer(r * 4), "a4": .integer(r * 5),
             "a5": .integer(r * 6), "a6": .integer(r * 7), "a7": .integer(r * 8), "a8": .integer(r * 9), "a9": .integer(r * 10)]
        }
    }
    let ours: () throws -> Void
    switch kind {
    case .typed:
        let portal = Portal<BenchRow>(store)
        ours = {
            var entities: [BenchRow] = []
            entities.reserveCapacity(rows)
            for r in 0..<Int64(rows) {
                entities.append(BenchRow(a0: r, a1: r * 2, a2: r * 3, a3: r * 4, a4: r * 5,
                                         a5: r * 6, a6: r * 7, a7: r * 8, a8: r * 9, a9: r * 10))
            }
            try portal.create(entities)
        }
    case .dynamic:
        ours = {
            try store.write { ctx in
                for r in 0..<Int64(rows) {
                    try ctx.insert("Bench", columns: columnNames, values: [
                        .integer(r), .integer(r * 2), .integer(r * 3), .integer(r * 4), .integer(r * 5),
                        .integer(r * 6), .integer(r * 7), .integer(r * 8), .integer(r * 9), .integer(r * 10)])
                }
            }
        }
    case .create:
        // The rows' dictionaries are made before the clock starts (`prepare`): the figure is
        // create's own work against the C loop's, not the making of 50,000 dictionaries.
        ours = {
            try store.write { ctx in
                for values in dictionaries { try ctx.create("Bench", values) }
            }
        }
    case .prepared:
        ours = {
            try store.write { ctx in
                let insert = try ctx.prepare(insertSQL)
                for r in 0..<Int64(rows) {
                    try insert.execute([
                        .integer(r), .integer(r * 2), .integer(r * 3), .integer(r * 4), .integer(r * 5),
                        .integer(r * 6), .integer(r * 7), .integer(r * 8), .integer(r * 9), .integer(r * 10)])
                }
            }
        }
    }
    let times = try pairedMedians(cpu: true, setUp: empty, prepare: prepare, ours: ours, baseline: cBaseline)
    guard try store.read({ ctx in try ctx.count("Bench") }) == rows else { throw BenchError(description: "row count") }
    guard try store.read({ ctx in try ctx.find("Bench", where: "a0 == 7").first?.values }) == row(7) else {
        throw BenchError(description: "\(kind.rawValue) insert stored other values")
    }
    try store.close()
    // A prepared statement does what `insert` does, and is held to the same goal.
    let goals: [InsertKind: String] = [.dynamic: "1.3", .typed: "2.5", .create: "2.0", .prepared: "1.3"]
    return Figure(name: "engine.insert.\(kind.rawValue)", oursMilliseconds: times.ours, baselineMilliseconds: times.baseline,
                  notes: ["goal": "<= \(goals[kind] ?? "?")", "rows": "\(rows)x10", "clock": "thread-cpu"])
}

/// engine.query.compiled: a compiled predicate (`a1 == $x`, 10 of 100,000 rows match each value,
/// through an index) run 10,000 times with new values inside one read, against the C loop with
/// one prepared statement re-bound each time.
private func compiledQueryFigure(folder: URL) throws -> Figure {
    let rows: Int64 = 100_000, runs = 10_000, groups = rows / 10
    let path = freshFile(folder, "engine-query.sqlite")
    let store = try Store(path: path)
    try store.write { ctx in
        try ctx.execute(createTable)
        try ctx.execute("CREATE INDEX BenchA1 ON Bench (a1)")
        for r in 0..<rows {
            try ctx.insert("Bench", columns: columnNames, values: [.integer(r), .integer(r / 10)]
                           + (2..<10).map { .integer(r * Int64($0)) })
        }
    }
    guard let db = baseline_open(path) else { throw BenchError(description: "cannot open \(path)") }
    defer { baseline_close(db) }
    let query = try Portal<BenchRow>.Query(where: "a1 == $x", in: store)
    var cSum: Int64 = 0, oursSum: Int64 = 0
    let times = try pairedMedians(cpu: true, ours: {
        var read = 0
        oursSum = 0
        try store.read { ctx in
            for i in 0..<runs {
                let found = try ctx.fetch(query, ["x": Int64(i) * 7919 % groups])
                read += found.count
                for row in found {
                    oursSum &+= row.a0 &+ row.a1 &+ row.a2 &+ row.a3 &+ row.a4 &+ row.a5 &+ row.a6 &+ row.a7 &+ row.a8 &+ row.a9
                }
            }
        }
        guard read == runs * 10 else { throw BenchError(description: "compiled query read \(read) rows") }
    }, baseline: {
        guard baseline_query_repeated(db, "SELECT * FROM Bench WHERE a1 = ?", Int32(runs), groups, 10, &cSum) == runs * 10 else {
            throw BenchError(description: "C query failed")
        }
    })
    guard cSum == oursSum else { throw BenchError(description: "checksums differ: C \(cSum), ours \(oursSum)") }
    try store.close()
    return Figure(name: "engine.query.compiled", oursMilliseconds: times.ours, baselineMilliseconds: times.baseline,
                  notes: ["goal": "<= 1.5", "runs": "\(runs)x10 rows", "clock": "thread-cpu"])
}

/// engine.read.during_write: 2 threads each making 2,000 reads (a 100-row page of a 10,000-row
/// table); ours = with a writer committing one-row transactions in a loop (pausing 1 ms between
/// commits), baseline = the same reads with no writer. Ratio = reads/s without ÷ reads/s with.
private func readDuringWriteFigure(folder: URL) throws -> Figure {
    let path = freshFile(folder, "engine-read-write.sqlite")
    let store = try Store(path: path)
    try store.write { ctx in
        try ctx.execute(createTable)
        for r in 0..<Int64(10_000) {
            try ctx.insert("Bench", columns: columnNames, values: Array(repeating: .integer(r), count: 10))
        }
    }
    let readsPerThread = 2000
    func readers() throws {
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            do {
                for i in 0..<readsPerThread {
                    let start = Int64((i * 97 + thread * 13) % 9_900)
                    let page = try store.read { ctx in
                        try ctx.query("SELECT * FROM Bench WHERE rowid > ? LIMIT 100", [.integer(start)])
                    }
                    if page.rows.count != 100 { failures.withLock { $0.append("short page") } }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw BenchError(description: failure) }
    }
    // Rounds alternate: the reads alone, then the same reads while the writer runs.
    let commits = Mutex(0)
    let times = try pairedMedians(runs: 5, cpu: false, ours: {
        let stop = Mutex(false)
        let finished = DispatchSemaphore(value: 0)
        let writer = Thread {
            var r: Int64 = 0
            while !stop.withLock({ $0 }) {
                r += 1
                let value = r
                _ = try? store.write { ctx in
                    try ctx.execute("UPDATE Bench SET a1 = ? WHERE rowid = ?", [.integer(value), .integer(value % 10_000 + 1)])
                }
                commits.withLock { $0 += 1 }
                usleep(1000)
            }
            finished.signal()
        }
        writer.start()
        defer {
            stop.withLock { $0 = true }
            finished.wait()
        }
        try readers()
    }, baseline: readers)
    try store.close()
    return Figure(name: "engine.read.during_write", oursMilliseconds: times.ours, baselineMilliseconds: times.baseline,
                  notes: ["goal": "<= 1.25", "reads": "2x\(readsPerThread)", "commits": "\(commits.withLock { $0 })", "clock": "wall"])
}
