import Testing
@testable import PortalEngine
import PortalSQLite

/// Values and names full of SQL syntax select exactly what they mean and change nothing.
@Suite struct CompilerInjectionTests {
    static let hostile = [
        "'", "''", "\"", "a'b\"c", "'; DROP TABLE \"we\"\"ird; --\"; --", "x\" OR 1=1 --", "*/ OR 1 /*",
        "-- comment", "; DELETE FROM other;", "nul\u{0}byte", "\u{0}", "\u{0}'; --", "?", "?1", ":name", "@x", "$x",
        "%", "_", "*", "\\", "é\u{301}", "",
    ]

    func database() throws -> TestDatabase {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE "we""ird; --" (id INTEGER PRIMARY KEY, "na""me */" TEXT, "o'k; --" INTEGER);
            CREATE TABLE other (id INTEGER PRIMARY KEY);
            INSERT INTO other VALUES (1), (2);
            """)
        for (index, value) in Self.hostile.enumerated() {
            _ = try database.query("INSERT INTO \"we\"\"ird; --\" VALUES (?, ?, ?)",
                                   [.integer(Int64(index)), .text(value), .integer(Int64(index % 3))])
        }
        return database
    }

    func contents(_ database: TestDatabase) throws -> [[Value]] {
        try database.query("SELECT * FROM \"we\"\"ird; --\" ORDER BY id") + database.query("SELECT * FROM other ORDER BY id")
    }

    func select(_ database: TestDatabase, _ predicate: String, _ arguments: [Argument] = [],
                variables: [String: Argument] = [:]) throws -> [Value] {
        let schema = try database.schema()
        let entity = try #require(schema.entity(named: "we\"ird; --"))
        let filter = try PredicateCompiler.compile(predicate, arguments: arguments, variables: variables,
                                                   entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
        let key = SQLiteDialect().quoted("id")
        return try database.column("SELECT t0.\(key) FROM \(SQLiteDialect().quoted(entity.name)) AS t0 WHERE \(filter.condition.sql) ORDER BY 1",
                                   filter.condition.bindings)
    }

    @Test(arguments: hostile)
    func valuesAreBound(_ value: String) throws {
        let database = try database()
        let before = try contents(database)
        let expected = Self.hostile.enumerated().filter { $0.element.utf8.elementsEqual(value.utf8) }
            .map { Value.integer(Int64($0.offset)) }
        #expect(try select(database, "%K == %@", [.value(.text("na\"me */")), .value(.text(value))]) == expected)
        #expect(try select(database, "%K == $v", [.value(.text("na\"me */"))], variables: ["v": .value(.text(value))])
            == expected)
        let containing = Self.hostile.enumerated().filter { TextMatching.contains($0.element, value) }
            .map { Value.integer(Int64($0.offset)) }
        #expect(try select(database, "%K CONTAINS $v", [.value(.text("na\"me */"))], variables: ["v": .value(.text(value))])
            == containing)
        let prefixed = Self.hostile.enumerated().filter { TextMatching.beginsWith($0.element, value) }
            .map { Value.integer(Int64($0.offset)) }
        #expect(try select(database, "%K BEGINSWITH $v", [.value(.text("na\"me */"))], variables: ["v": .value(.text(value))])
            == prefixed)
        let liked = Self.hostile.enumerated().filter { TextMatching.like($0.element, pattern: value) }
            .map { Value.integer(Int64($0.offset)) }
        #expect(try select(database, "%K LIKE[c] $v", [.value(.text("na\"me */"))], variables: ["v": .value(.text(value))])
            == Self.hostile.enumerated().filter { TextMatching.like($0.element, pattern: value, options: .caseInsensitive) }
            .map { Value.integer(Int64($0.offset)) })
        #expect(try select(database, "%K LIKE $v", [.value(.text("na\"me */"))], variables: ["v": .value(.text(value))])
            == liked)
        #expect(try contents(database) == before)
    }

    @Test func literalsInThePredicateText() throws {
        let database = try database()
        let before = try contents(database)
        #expect(try select(database, #"%K == "'; DROP TABLE \"we\"\"ird; --\"; --""#, [.value(.text("na\"me */"))])
            == [.integer(4)])
        #expect(try select(database, #"%K == "nul\0byte""#, [.value(.text("na\"me */"))]) == [.integer(9)])
        #expect(try select(database, #"%K IN {"*/ OR 1 /*", "-- comment"}"#, [.value(.text("na\"me */"))])
            == [.integer(6), .integer(7)])
        #expect(try select(database, "%K == 2", [.value(.text("o'k; --"))]) == [2, 5, 8, 11, 14, 17, 20].map { Value.integer($0) })
        #expect(try contents(database) == before)
    }

    @Test func unknownHostileNamesAreErrorsNotSQL() throws {
        let database = try database()
        for name in ["id\" OR 1=1 --", "x; DROP TABLE other", "*/", "na\"me"] {
            #expect(throws: PortalPredicateError.self) { try select(database, "%K == 1", [.value(.text(name))]) }
        }
        #expect(try database.column("SELECT count(*) FROM other") == [.integer(2)])
    }

    /// Names with spaces and Unicode (through %K), views, WITHOUT ROWID tables and composite keys.
    @Test func unusualSchemas() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE "Per son" ("Ünïcode Id" INTEGER PRIMARY KEY, "full name" TEXT, âge INT);
            CREATE VIEW "grown ups" AS SELECT * FROM "Per son" WHERE âge >= 18;
            CREATE TABLE pairs (a INTEGER, b TEXT, note TEXT, PRIMARY KEY (b, a)) WITHOUT ROWID;
            CREATE TABLE message (id INTEGER PRIMARY KEY, pa INTEGER, pb TEXT, authorId INTEGER REFERENCES "Per son",
                                  FOREIGN KEY (pa, pb) REFERENCES pairs (a, b));
            INSERT INTO "Per son" VALUES (1, 'Zoë Ångström', 30), (2, 'Al', 12), (3, NULL, 40);
            INSERT INTO pairs VALUES (1, 'x', 'one'), (2, 'y', 'two'), (3, 'z', NULL);
            INSERT INTO message VALUES (10, 1, 'x', 1), (11, 1, 'x', 2), (12, 2, 'y', NULL);
            """)
        let schema = try database.schema()
        func select(_ entity: String, _ predicate: String, _ arguments: [Argument] = [], key: String) throws -> [Value] {
            let description = try #require(schema.entity(named: entity))
            let filter = try PredicateCompiler.compile(predicate, arguments: arguments, entity: description,
                                                       schema: schema, alias: "t0", dialect: .sqlite)
            return try database.column("SELECT t0.\(SQLiteDialect().quoted(key)) FROM \(SQLiteDialect().quoted(description.name)) AS t0 "
                                       + "WHERE \(filter.condition.sql) ORDER BY 1", filter.condition.bindings)
        }
        #expect(try select("Per son", "%K BEGINSWITH[cd] %@", [.value("full name"), .value("zoe a")], key: "Ünïcode Id") == [1])
        #expect(try select("Per son", "âge > 18", key: "Ünïcode Id") == [1, 3])
        #expect(try select("grown ups", "%K == nil", [.value("full name")], key: "Ünïcode Id") == [3])
        #expect(try select("pairs", "messages.@count >= 1", key: "a") == [1, 2])
        #expect(try select("pairs", "NONE messages.id > 11", key: "a") == [1, 3])
        #expect(try select("message", #"pairs.note == "one""#, key: "id") == [10, 11])
        #expect(try select("message", "author.âge < 18", key: "id") == [11])
        #expect(try select("Per son", "messages.@count == 0", key: "Ünïcode Id") == [3])
    }
}
