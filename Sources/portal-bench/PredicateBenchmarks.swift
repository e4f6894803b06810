import CSQLite
import Foundation
import PortalEngine
import PortalSQLite

// predicate.compile: parse + compile every example of docs/predicates.md against the Chinook
// schema, against sqlite3_prepare_v2 (+ finalize) of the SQL it produced, in the same run, the
// two alternating, in the thread's CPU time.
// Goal: ratio ≤ 1.0 — our language costs less than SQLite's own preparing of its output.

private let examples: [(entity: String, predicate: String)] = [
    ("Track", #"Composer BEGINSWITH "Antônio" SORT(Name ASC) LIMIT(5)"#),
    ("Track", #"Album.Artist.Name ==[cd] "antonio carlos jobim""#),
    ("Artist", "albums.@count > 10"),
    ("Album", "ANY tracks.Milliseconds > 1000000"),
    ("Album", "ALL tracks.UnitPrice == 0.99"),
    ("Customer", "SUBQUERY(invoices, $i, $i.Total > 20).@count >= 2"),
    ("Employee", #"ReportsTo.FirstName == "Andrew""#),
    ("Invoice", #"InvoiceDate BETWEEN {CAST("2021-01-01", "NSDate"), CAST("2021-12-31", "NSDate")}"#),
    ("Track", #"Name MATCHES "(?i).*love.*" AND NOT (GenreId IN {1, 3})"#),
    ("Customer", #"Country IN {"Brazil", "Portugal"} AND Fax != nil"#),
]

func predicateBenchmarks() throws -> [Figure] {
    try withChinook { db, schema, _ in try compileFigures(db, schema) }
}

private func compileFigures(_ db: OpaquePointer, _ schema: Schema) throws -> [Figure] {
    let entities = try examples.map { example in
        guard let entity = schema.entity(named: example.entity) else { throw PredicateBenchError("no \(example.entity)") }
        return entity
    }

    func compileAll() throws -> [String] {
        try zip(examples, entities).map { example, entity in
            let filter = try PredicateCompiler.compile(example.predicate, entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
            let order = try PredicateCompiler.orderBy(filter.sort, entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
            return "SELECT t0.* FROM \"\(entity.name)\" AS t0 WHERE " + filter.condition.sql
                + (order.sql.isEmpty ? "" : " ORDER BY " + order.sql) + (filter.limit.map { " LIMIT \($0)" } ?? "")
        }
    }
    let statements = try compileAll()
    let rounds = 200
    let (ours, baseline) = try pairedMedians(cpu: true, ours: {
        for _ in 0..<rounds { _ = try compileAll() }
    }, baseline: { try prepareEach(statements, rounds: rounds, on: db) })
    // How much of ours is the parser alone (the rest is name resolution and SQL generation).
    let parsing = try medianMilliseconds(runs: 7) {
        for _ in 0..<rounds {
            for example in examples { _ = try Query.parse(example.predicate) }
        }
    }
    return [Figure(name: "predicate.compile", oursMilliseconds: ours, baselineMilliseconds: baseline,
                   notes: ["examples": "\(examples.count)", "rounds": "\(rounds)", "goal": "<=1.0", "clock": "thread-cpu",
                           "parse_ms": String(format: "%.2f", parsing)])]
}

/// Runs `body` on Chinook opened read-only with the engine's SQL functions, its schema, and its path.
func withChinook<T>(_ body: (OpaquePointer, Schema, String) throws -> T) throws -> T {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/chinook/Chinook_Sqlite.sqlite").path
    var handle: OpaquePointer?
    guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db = handle else {
        throw PredicateBenchError("cannot open \(path)")
    }
    defer { sqlite3_close_v2(db) }
    try SQLFunctions.register(on: db)
    return try body(db, try SchemaReader.read(db), path)
}

/// The baseline of the compile figures: `sqlite3_prepare_v2` of each statement, `rounds` times.
func prepareEach(_ statements: [String], rounds: Int, on db: OpaquePointer) throws {
    for _ in 0..<rounds {
        for sql in statements {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                throw PredicateBenchError("prepare failed: \(String(cString: sqlite3_errmsg(db))) in \(sql)")
            }
            sqlite3_finalize(statement)
        }
    }
}

struct PredicateBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
