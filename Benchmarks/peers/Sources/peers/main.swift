import CBaseline
import Foundation
import GRDB
import PortalSQLite

// PortalEngine and GRDB.swift 7.10.0 against the same work written on the SQLite C API, in one
// process, on one table of 20,000 rows × 10 INTEGER columns. Each figure is the median of
// 7 rounds, the three (or more) ways run one after the other in each round, timed in CPU time of
// the calling thread; × = relative to C in the same rounds. Prints a Markdown table.

let rows = 20_000
let rounds = 7
let columnNames = (0..<10).map { "a\($0)" }
let createTable = "CREATE TABLE IF NOT EXISTS Bench (\(columnNames.map { "\($0) INTEGER" }.joined(separator: ", ")))"
let insertSQL = "INSERT INTO Bench VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
/// 1 % of the rows (a1 = row × 2).
let filterLimit = Int64(rows / 50)

/// PortalEngine's typed entity, decoded and encoded by the conformance `generate swift` writes.
struct PortalRow: PortalEntity, RowDecodable, RowEncodable {
    static let entityName = "Bench"
    static let idAttribute = "a0"
    var a0: Int64, a1: Int64, a2: Int64, a3: Int64, a4: Int64
    var a5: Int64, a6: Int64, a7: Int64, a8: Int64, a9: Int64
    static let decodedColumns = columnNames
    static let encodedColumns = columnNames

    init(row: borrowing RowReader) throws {
        a0 = try row[0]; a1 = try row[1]; a2 = try row[2]; a3 = try row[3]; a4 = try row[4]
        a5 = try row[5]; a6 = try row[6]; a7 = try row[7]; a8 = try row[8]; a9 = try row[9]
    }

    init(_ r: Int64) {
        (a0, a1, a2, a3, a4) = (r, r * 2, r * 3, r * 4, r * 5)
        (a5, a6, a7, a8, a9) = (r * 6, r * 7, r * 8, r * 9, r * 10)
    }

    func encode(into row: inout RowWriter) {
        row.append(a0); row.append(a1); row.append(a2); row.append(a3); row.append(a4)
        row.append(a5); row.append(a6); row.append(a7); row.append(a8); row.append(a9)
    }
}

/// The same through Codable only.
struct PortalCodableRow: PortalEntity {
    static let entityName = "Bench"
    static let idAttribute = "a0"
    var a0: Int64, a1: Int64, a2: Int64, a3: Int64, a4: Int64
    var a5: Int64, a6: Int64, a7: Int64, a8: Int64, a9: Int64
}

/// GRDB's fastest documented typed read: a hand-written `init(row:)` by column index.
struct GRDBRow: FetchableRecord {
    var a0: Int64, a1: Int64, a2: Int64, a3: Int64, a4: Int64
    var a5: Int64, a6: Int64, a7: Int64, a8: Int64, a9: Int64
    init(row: GRDB.Row) {
        a0 = row[0]; a1 = row[1]; a2 = row[2]; a3 = row[3]; a4 = row[4]
        a5 = row[5]; a6 = row[6]; a7 = row[7]; a8 = row[8]; a9 = row[9]
    }
}

/// GRDB's usual way: a Codable record.
struct GRDBCodableRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "Bench"
    var a0: Int64, a1: Int64, a2: Int64, a3: Int64, a4: Int64
    var a5: Int64, a6: Int64, a7: Int64, a8: Int64, a9: Int64
    init(_ r: Int64) {
        (a0, a1, a2, a3, a4) = (r, r * 2, r * 3, r * 4, r * 5)
        (a5, a6, a7, a8, a9) = (r * 6, r * 7, r * 8, r * 9, r * 10)
    }
}

struct Failure: Error, CustomStringConvertible { let description: String }

func check(_ condition: Bool, _ what: String) throws {
    if !condition { throw Failure(description: "wrong result: \(what)") }
}

func cpuNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    return sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2]
        : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// One way of doing a workload: its name and the work (after an untimed `setUp`).
struct Way {
    let name: String
    let run: () throws -> Void
}

/// The medians in milliseconds of each way, the ways run in turn in each round after a warm-up round.
@MainActor
func measure(_ ways: [Way], setUp: () throws -> Void = {}) throws -> [String: Double] {
    var samples: [String: [Double]] = [:]
    for round in 0...rounds {
        for way in ways {
            try setUp()
            let start = cpuNanoseconds()
            try way.run()
            let elapsed = Double(cpuNanoseconds() - start) / 1_000_000
            if round > 0 { samples[way.name, default: []].append(elapsed) }
        }
    }
    return samples.mapValues(median)
}

let folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/peers-data")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let path = folder.appendingPathComponent("peers.sqlite").path
for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }

let store = try Store(path: path)
try store.write { ctx in try ctx.execute(createTable) }
guard let c = baseline_open(path) else { throw Failure(description: "cannot open \(path)") }
defer { baseline_close(c) }
let grdb = try DatabaseQueue(path: path)

@MainActor
func empty() throws { try store.write { ctx in _ = try ctx.execute("DELETE FROM Bench") } }
@MainActor
func fill() throws {
    try empty()
    guard baseline_insert_integers(c, insertSQL, Int32(rows), 10) == 0 else { throw Failure(description: "C insert") }
}
@MainActor
func cFetch(_ sql: String, expecting count: Int) throws {
    var checksum: Int64 = 0
    try check(baseline_fetch_integers(c, sql, 10, &checksum) == count, "C fetch")
}

/// Each workload's C time and, by column of the table, the time of the way shown there.
var results: [(workload: String, c: Double, figures: [String: Double])] = []
/// Records `times` (by way) under the columns named by `columns` (column, way).
@MainActor
func record(_ workload: String, _ times: [String: Double], _ columns: [(String, String)]) {
    var figures: [String: Double] = [:]
    for (column, way) in columns { figures[column] = times[way] }
    results.append((workload, times["C"] ?? 0, figures))
}

let selectAll = "SELECT * FROM Bench"
try fill()

// fetch rows: every row, all its values.
record("fetch rows", try measure([
    Way(name: "C") { try cFetch(selectAll, expecting: rows) },
    Way(name: "PortalEngine find") {
        let found = try store.read { ctx in try ctx.find("Bench") }
        try check(found.count == rows, "find")
    },
    Way(name: "GRDB cursor") {
        var values: [Int64] = []
        values.reserveCapacity(rows * 10)
        try grdb.read { db in
            let cursor = try GRDB.Row.fetchCursor(db, sql: selectAll)
            while let row = try cursor.next() { for i in 0..<10 { values.append(row[i]) } }
        }
        try check(values.count == rows * 10, "GRDB cursor")
    },
    Way(name: "GRDB Row.fetchAll") {
        let found = try grdb.read { db in try GRDB.Row.fetchAll(db, sql: selectAll) }
        try check(found.count == rows, "GRDB fetchAll")
    },
]), [("PortalEngine", "PortalEngine find"), ("GRDB, fastest documented way", "GRDB cursor"),
     ("GRDB, usual way", "GRDB Row.fetchAll")])

// fetch typed: every row as a struct.
record("fetch typed", try measure([
    Way(name: "C") { try cFetch(selectAll, expecting: rows) },
    Way(name: "PortalEngine RowDecodable") { try check(try Portal<PortalRow>(store).findAll().count == rows, "typed") },
    Way(name: "PortalEngine Codable") { try check(try Portal<PortalCodableRow>(store).findAll().count == rows, "codable") },
    Way(name: "GRDB init(row:)") {
        try check(try grdb.read { db in try GRDBRow.fetchAll(db, sql: selectAll) }.count == rows, "GRDB init(row:)")
    },
    Way(name: "GRDB Decodable") {
        try check(try grdb.read { db in try GRDBCodableRow.fetchAll(db) }.count == rows, "GRDB Decodable")
    },
]), [("PortalEngine", "PortalEngine RowDecodable"), ("PortalEngine Codable", "PortalEngine Codable"),
     ("GRDB, fastest documented way", "GRDB init(row:)"), ("GRDB, usual way", "GRDB Decodable")])

// insert dynamic: values without a type, in one transaction.
record("insert dynamic", try measure([
    Way(name: "C") { try check(baseline_insert_integers(c, insertSQL, Int32(rows), 10) == 0, "C insert") },
    Way(name: "PortalEngine insert") {
        try store.write { ctx in
            for r in 0..<Int64(rows) {
                try ctx.insert("Bench", columns: columnNames, values: [
                    .integer(r), .integer(r * 2), .integer(r * 3), .integer(r * 4), .integer(r * 5),
                    .integer(r * 6), .integer(r * 7), .integer(r * 8), .integer(r * 9), .integer(r * 10)])
            }
        }
    },
    Way(name: "GRDB prepared statement") {
        try grdb.write { db in
            let statement = try db.makeStatement(sql: insertSQL)
            for r in 0..<Int64(rows) {
                try statement.execute(arguments: [r, r * 2, r * 3, r * 4, r * 5, r * 6, r * 7, r * 8, r * 9, r * 10])
            }
        }
    },
], setUp: empty), [("PortalEngine", "PortalEngine insert"), ("GRDB, fastest documented way", "GRDB prepared statement")])

// insert typed: structs, in one transaction.
let portalRows = (0..<Int64(rows)).map(PortalRow.init)
let grdbRows = (0..<Int64(rows)).map(GRDBCodableRow.init)
record("insert typed", try measure([
    Way(name: "C") { try check(baseline_insert_integers(c, insertSQL, Int32(rows), 10) == 0, "C insert") },
    Way(name: "PortalEngine create") { try Portal<PortalRow>(store).create(portalRows) },
    Way(name: "GRDB insert(db)") { try grdb.write { db in for row in grdbRows { try row.insert(db) } } },
], setUp: empty), [("PortalEngine", "PortalEngine create"), ("GRDB, usual way", "GRDB insert(db)")])

// filtered typed fetch: 1 % of the rows as structs.
try fill()
let filterSQL = "SELECT * FROM Bench WHERE a1 < \(filterLimit)"
let expected = Int(filterLimit / 2)
record("filtered typed fetch (1 %)", try measure([
    Way(name: "C") { try cFetch(filterSQL, expecting: expected) },
    Way(name: "PortalEngine") {
        try check(try Portal<PortalRow>(store).findAll(where: "a1 < %@", [filterLimit]).count == expected, "filtered")
    },
    Way(name: "GRDB init(row:)") {
        let found = try grdb.read { db in
            try GRDBRow.fetchAll(db, sql: "SELECT * FROM Bench WHERE a1 < ?", arguments: [filterLimit])
        }
        try check(found.count == expected, "GRDB filtered")
    },
    Way(name: "GRDB Decodable") {
        let found = try grdb.read { db in try GRDBCodableRow.filter(Column("a1") < filterLimit).fetchAll(db) }
        try check(found.count == expected, "GRDB Decodable filtered")
    },
]), [("PortalEngine", "PortalEngine"), ("GRDB, fastest documented way", "GRDB init(row:)"),
     ("GRDB, usual way", "GRDB Decodable")])

// The table: one row per workload, × relative to C, the C time in ms beside it.
let columns = ["PortalEngine", "PortalEngine Codable", "GRDB, fastest documented way", "GRDB, usual way"]
print("| workload (\(rows) rows × 10 columns) | C | " + columns.joined(separator: " | ") + " |")
print("| --- | --- |" + String(repeating: " --- |", count: columns.count))
for (workload, cTime, figures) in results where cTime > 0 {
    let cells = columns.map { figures[$0].map { String(format: "%.2f×", $0 / cTime) } ?? "" }
    print("| \(workload) | \(String(format: "%.1f ms", cTime)) | " + cells.joined(separator: " | ") + " |")
}
