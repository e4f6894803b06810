import CSQLite
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// What the compiler hands SQLite stays within what SQLite's parser takes.
@Suite struct CompilerNestingTests {
    let database: TestDatabase
    let schema: Schema
    let track: EntityDescription

    init() throws {
        database = try TestDatabase.chinook()
        schema = try database.schema()
        guard let track = schema.entity(named: "Track") else { throw TestFailure("no Track") }
        self.track = track
    }

    func compile(_ predicate: String) throws -> SQLFragment {
        try PredicateCompiler.compile(predicate, entity: track, schema: schema, alias: "t0", dialect: SQLiteDialect.library).condition
    }

    func count(_ condition: SQLFragment) throws -> Value? {
        try database.query("SELECT count(*) FROM Track AS t0 WHERE " + condition.sql, condition.bindings).first?.first
    }

    @Test func longChainsCompileShallow() throws {
        for terms in [95, 1_000, 5_000] {
            let or = try compile((1...terms).map { "TrackId == \($0)" }.joined(separator: " OR "))
            #expect(SQLNesting.depth(of: or.sql) <= 3, "\(terms)")
            #expect(try count(or) == .integer(Int64(min(terms, 3503))))
            let and = try compile((1...terms).map { "TrackId != \($0)" }.joined(separator: " AND "))
            #expect(try count(and) == .integer(Int64(max(0, 3503 - terms))))
        }
        // Parenthesised groups of the same operator join the chain in SQL.
        let grouped = try compile("(TrackId <= 1 OR (TrackId BETWEEN {2, 2} OR TrackId >= 3503)) OR TrackId == 3")
        #expect(SQLNesting.depth(of: grouped.sql) == 1)
        #expect(try count(grouped) == 4)
        // Equalities on one column, grouped or not, become one list, in parentheses of its own.
        let listed = try compile("(TrackId == 1 OR (TrackId == 2 OR TrackId == 3)) OR TrackId == 4")
        #expect(SQLNesting.depth(of: listed.sql) == 2)
        #expect(try count(listed) == 4)
    }

    @Test func runsOfNotCollapse() throws {
        let even = try compile(String(repeating: "NOT ", count: 400) + "TrackId == 1")
        #expect(!even.sql.contains("IS NOT 1"))
        #expect(try count(even) == 1)
        let odd = try compile(String(repeating: "!", count: 99) + "TrackId == 1")
        #expect(odd.sql.components(separatedBy: "IS NOT 1").count == 2)
        #expect(try count(odd) == 3502)
    }

    @Test func tooDeepForSQLiteIsOurError() throws {
        var predicate = "TrackId == 0"
        for i in 1...40 { predicate = "TrackId == \(i) OR (Milliseconds > 0 AND (\(predicate)))" }
        do {
            _ = try compile(predicate)
            Issue.record("compiled SQL SQLite cannot parse")
        } catch let error as PortalPredicateError {
            #expect(error.kind == .tooDeep)
            let range = try #require(error.range)
            #expect(String(Array(predicate)[range.lowerBound...]).hasPrefix("TrackId == 0"))
        }
        // Just inside: compiles and runs.
        var shallow = "TrackId == 0"
        for i in 1...10 { shallow = "TrackId == \(i) OR (Milliseconds > 0 AND (\(shallow)))" }
        #expect(try count(try compile(shallow)) == 10)
    }
}
