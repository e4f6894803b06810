import Testing
@testable import PortalEngine
import PortalSQLite

/// Every row of docs/predicates.md's table and every example in it, on Chinook: the compiled SQL must
/// select exactly the rows the hand-written SQL selects.
@Suite struct CompilerChinookTests {

    @Test(arguments: ChinookPredicateCases.all)
    func matchesHandWrittenSQL(_ test: ChinookPredicateCases.Case) throws {
        let database = try TestDatabase.chinook()
        let schema = try database.schema()
        let entity = try #require(schema.entity(named: test.entity))
        let key = entity.primaryKey[0]
        let filter = try PredicateCompiler.compile(test.predicate, variables: test.variables, entity: entity,
                                                   schema: schema, alias: "t0", dialect: .sqlite)
        let compiled = try database.column(
            "SELECT t0.\(SQLiteDialect().quoted(key)) FROM \(SQLiteDialect().quoted(entity.name)) AS t0 WHERE \(filter.condition.sql) ORDER BY 1",
            filter.condition.bindings)
        let expected = try database.column(
            "SELECT \(SQLiteDialect().quoted(key)) FROM \(SQLiteDialect().quoted(entity.name)) WHERE \(test.sql) ORDER BY 1")
        #expect(compiled == expected, "SQL: \(filter.condition.sql) \(filter.condition.bindings)")
    }

    /// The hand-written SQL itself must discriminate: most cases select some rows but not all.
    @Test func casesAreNotTrivial() throws {
        let database = try TestDatabase.chinook()
        var trivial = 0
        for test in ChinookPredicateCases.all {
            let count = try database.column("SELECT count(*) FROM \(SQLiteDialect().quoted(test.entity)) WHERE \(test.sql)")
            let total = try database.column("SELECT count(*) FROM \(SQLiteDialect().quoted(test.entity))")
            if count == [.integer(0)] || count == total { trivial += 1 }
        }
        #expect(trivial <= 14)
    }

    @Test func realmSortAndLimit() throws {
        let database = try TestDatabase.chinook()
        let schema = try database.schema()
        let track = try #require(schema.entity(named: "Track"))
        let filter = try PredicateCompiler.compile("Milliseconds > 0 SORT(Album.Title DESC, Name ASC) LIMIT(5)",
                                                   entity: track, schema: schema, alias: "t0", dialect: .sqlite)
        #expect(filter.sort == [SortKey("Album.Title", ascending: false), SortKey("Name")])
        #expect(filter.limit == 5)
        let order = try PredicateCompiler.orderBy(filter.sort, entity: track, schema: schema, alias: "t0", dialect: .sqlite)
        let compiled = try database.column(
            "SELECT t0.TrackId FROM Track AS t0 WHERE \(filter.condition.sql) ORDER BY \(order.sql) LIMIT 5",
            filter.condition.bindings + order.bindings)
        let expected = try database.column(
            "SELECT TrackId FROM Track LEFT JOIN Album USING (AlbumId) ORDER BY Album.Title DESC, Track.Name LIMIT 5")
        #expect(compiled == expected)
        #expect(compiled.count == 5)
    }

    /// The date rule's other half: a DATE/DATETIME/TIMESTAMP column holding numbers compares as
    /// Unix seconds (Chinook's dates are all text).
    @Test func datesAgainstNumericColumns() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE event (id INTEGER PRIMARY KEY, at TIMESTAMP, day DATE);
            INSERT INTO event VALUES (1, 1609459199, '2020-12-31'), (2, 1609459200, '2021-01-01'),
                                     (3, 1609459200.5, '2021-01-01 00:00:01'), (4, NULL, NULL);
            """)
        let schema = try database.schema()
        let event = try #require(schema.entity(named: "event"))
        func ids(_ predicate: String) throws -> [Value] {
            let filter = try PredicateCompiler.compile(predicate, entity: event, schema: schema, alias: "t0", dialect: .sqlite)
            return try database.column("SELECT id FROM event AS t0 WHERE \(filter.condition.sql) ORDER BY id",
                                       filter.condition.bindings)
        }
        #expect(try ids(#"at >= CAST("2021-01-01", "NSDate")"#) == [2, 3])
        #expect(try ids(#"at == CAST("2021-01-01 00:00:00", "NSDate")"#) == [2])
        #expect(try ids(#"at < CAST(631152000, "NSDate")"#) == [1])
        #expect(try ids("at < now()") == [1, 2, 3])
        #expect(try ids(#"day >= CAST("2021-01-01", "NSDate")"#) == [3])
        // Text compares as text: '2020-12-31' sorts before '2020-12-31 00:00:00'.
        #expect(try ids(#"day BETWEEN {CAST("2020-12-31", "NSDate"), CAST("2021-01-01 00:00:00", "NSDate")}"#) == [2])
        #expect(try ids(#"day != CAST("2021-01-01", "NSDate")"#) == [1, 2, 3, 4])
    }
}
