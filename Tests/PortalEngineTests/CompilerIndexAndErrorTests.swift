import Testing
@testable import PortalEngine

@Suite struct CompilerIndexTests {
    static let indexed = [
        #"name == "Bob""#, #"name = $who"#, #"name < "M""#, #"name >= "M""#, #"name BETWEEN {"A", "C"}"#,
        #"name IN {"Al", "Bo"}"#, #"name BEGINSWITH "Bo""#, #"name BEGINSWITH "Zü""#, "n == 3", "n > 3",
        "n BETWEEN {1, 5}", "n IN {1, 2, 3}", "n IN $list", "SELF == 4", "SELF IN {1, 2}",
        #"name == "Bob" AND n > 2"#, "ANY items.qty > 3", "items.@count > 2",
        #"name > CAST("2021-01-01", "NSDate")"#, #"name BETWEEN {CAST("2021-01-01", "NSDate"), now()}"#,
    ]

    @Test(arguments: indexed)
    func planSearchesTheIndex(_ predicate: String) throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, note TEXT);
            CREATE INDEX person_name ON person (name);
            CREATE INDEX person_n ON person (n);
            CREATE TABLE item (id INTEGER PRIMARY KEY, personId INTEGER REFERENCES person, qty INTEGER);
            CREATE INDEX item_person ON item (personId);
            """)
        let schema = try database.schema()
        let person = try #require(schema.entity(named: "person"))
        let filter = try PredicateCompiler.compile(predicate, variables: ["who": .value("Bob"), "list": .list([1, 2])],
                                                   entity: person, schema: schema, alias: "t0", dialect: .sqlite)
        let plan = try database.query("EXPLAIN QUERY PLAN SELECT t0.id FROM person AS t0 WHERE \(filter.condition.sql)",
                                      filter.condition.bindings)
            .compactMap { $0.last.flatMap { if case .text(let text) = $0 { text } else { nil } } }
        if predicate.hasPrefix("ANY") || predicate.hasPrefix("items") {
            // The outer rows are scanned; each correlated subquery searches by the foreign key.
            #expect(plan.contains { $0.hasPrefix("SEARCH") && $0.contains("item_person") }, "plan: \(plan)")
        } else {
            let outer = plan.first { $0.contains(" t0") } ?? ""
            #expect(outer.hasPrefix("SEARCH"), "plan: \(plan) for SQL \(filter.condition.sql)")
        }
    }

    /// A comparison through a to-one relationship searches the related table by its index, then
    /// the entity by its foreign key's index.
    @Test(arguments: [#"person.name == "Bob""#, #"person.name BEGINSWITH "Bo""#, "person.n BETWEEN {1, 3}",
                      #"person.name IN {"Al", "Bo"}"#])
    func toOnePathsSearchBothIndexes(_ predicate: String) throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT, n INTEGER);
            CREATE INDEX person_name ON person (name);
            CREATE INDEX person_n ON person (n);
            CREATE TABLE item (id INTEGER PRIMARY KEY, personId INTEGER REFERENCES person, qty INTEGER);
            CREATE INDEX item_person ON item (personId);
            """)
        let schema = try database.schema()
        let item = try #require(schema.entity(named: "item"))
        let filter = try PredicateCompiler.compile(predicate, entity: item, schema: schema, alias: "t0", dialect: .sqlite)
        let plan = try database.query("EXPLAIN QUERY PLAN SELECT t0.id FROM item AS t0 WHERE \(filter.condition.sql)",
                                      filter.condition.bindings)
            .compactMap { $0.last.flatMap { if case .text(let text) = $0 { text } else { nil } } }
        #expect(plan.contains { $0.hasPrefix("SEARCH t0") && $0.contains("item_person") }, "plan: \(plan)")
        #expect(plan.contains { $0.hasPrefix("SEARCH pc1") && $0.contains("person_") }, "plan: \(plan)")
    }

    /// BEGINSWITH stays case-sensitive, and finds every match, on a NOCASE column too (whose
    /// own ordering would put 'Z' after '[').
    @Test(arguments: ["ab", "AZ", "Z", "a_", "["])
    func beginsWithOnANocaseColumn(_ prefix: String) throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT COLLATE NOCASE);
            CREATE INDEX t_s ON t (s);
            INSERT INTO t (s) VALUES ('abc'), ('ABC'), ('aBd'), ('ab'), ('b'), (NULL), ('AB'), ('Zed'), ('zed'),
                                     ('AZx'), ('azx'), ('a_b'), ('A_B'), ('[x'), ('{x');
            """)
        let values = try database.column("SELECT s FROM t ORDER BY id")
        let schema = try database.schema()
        let entity = try #require(schema.entity(named: "t"))
        let filter = try PredicateCompiler.compile("s BEGINSWITH $p", variables: ["p": .value(.text(prefix))],
                                                   entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
        let expected = values.filter { if case .text(let s) = $0 { s.utf8.starts(with: prefix.utf8) } else { false } }
        #expect(try database.column("SELECT t0.s FROM t AS t0 WHERE \(filter.condition.sql) ORDER BY id",
                                    filter.condition.bindings) == expected)
        let negated = try PredicateCompiler.compile("NOT s BEGINSWITH $p", variables: ["p": .value(.text(prefix))],
                                                    entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
        #expect(try database.column("SELECT t0.s FROM t AS t0 WHERE \(negated.condition.sql) ORDER BY id",
                                    negated.condition.bindings) == values.filter { !expected.contains($0) })
    }

    @Test func beginsWithOnUnicodeBoundaries() throws {
        let database = try TestDatabase()
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT); CREATE INDEX t_s ON t (s)")
        let values = ["", "a", "ab", "abc", "abd", "ac", "b", "a\u{7F}", "a\u{80}", "aé", "a\u{FFFF}", "a\u{10FFFF}",
                      "a\u{10FFFF}x", "\u{10FFFF}", "\u{10FFFF}\u{10FFFF}", "zü", "zv", "zü\u{0}x", "Ab"]
        for (index, value) in values.enumerated() {
            _ = try database.query("INSERT INTO t VALUES (?, ?)", [.integer(Int64(index)), .text(value)])
        }
        let schema = try database.schema()
        let entity = try #require(schema.entity(named: "t"))
        for prefix in ["a", "ab", "a\u{10FFFF}", "\u{10FFFF}", "zü", "zü\u{0}", "a\u{7F}", ""] {
            let filter = try PredicateCompiler.compile("s BEGINSWITH $p", variables: ["p": .value(.text(prefix))],
                                                       entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
            let found = try database.column("SELECT t0.s FROM t AS t0 WHERE \(filter.condition.sql) ORDER BY id",
                                            filter.condition.bindings)
            // An empty prefix is found nowhere (NSString's hasPrefix:).
            let expected = prefix.isEmpty ? [] : values.filter { $0.utf8.starts(with: prefix.utf8) }.map { Value.text($0) }
            #expect(found == expected, "prefix \(Array(prefix.unicodeScalars))")
        }
    }
}

@Suite struct CompilerErrorTests {
    func compile(_ predicate: String, on entity: String = "Track") throws -> CompiledFilter {
        let schema = try TestDatabase.chinook().schema()
        let description = try #require(schema.entity(named: entity))
        return try PredicateCompiler.compile(predicate, entity: description, schema: schema, alias: "t0", dialect: .sqlite)
    }

    func error(_ predicate: String, on entity: String = "Track") throws -> PortalPredicateError {
        do {
            _ = try compile(predicate, on: entity)
        } catch let error as PortalPredicateError {
            return error
        }
        throw TestFailure("no error for \(predicate)")
    }

    @Test func unknownNamesSuggestTheClosest() throws {
        let typo = try error(#"Nmae == "x""#)
        #expect(typo.kind == .unknownName)
        #expect(typo.message.contains("Track") && typo.message.contains("Nmae"))
        #expect(typo.suggestion == "Name")
        #expect(try error(#"Album.Titel == "x""#).suggestion == "Title")
        #expect(try error(#"Album.Titel == "x""#).message.contains("Album"))
        #expect(try error("Composr == nil").suggestion == "Composer")
        #expect(try error("ANY trakcs.Milliseconds > 3", on: "Album").suggestion == "tracks")
        #expect(try error("albms.@count > 3", on: "Artist").suggestion == "albums")
        #expect(try error("Zzzzzzzz == 1").suggestion == nil)
        #expect(try error("$nope == 1").kind == .unknownName)
        #expect(try error("lenght(Name) > 3").suggestion == "length")
        #expect(try error("Name.Foo == 1").kind == .invalidOperation)
    }

    @Test func invalidOperationsNameTheOperator() throws {
        let contains = try error(#"Album CONTAINS "x""#)
        #expect(contains.kind == .invalidOperation && contains.message.contains("CONTAINS"))
        let sum = try error("tracks.@sum.Name > 3", on: "Album")
        #expect(sum.kind == .invalidOperation && sum.message.contains("@sum"))
        let between = try error("Milliseconds BETWEEN {1, 2, 3}")
        #expect(between.kind == .invalidOperation && between.message.contains("BETWEEN"))
        #expect(try error("Milliseconds BETWEEN 3").message.contains("BETWEEN"))
        #expect(try error("ANY Milliseconds > 3").message.contains("ANY"))
        #expect(try error("tracks == 3", on: "Album").message.contains("=="))
        #expect(try error(#"Name MATCHES "(""#).kind == .invalidOperation)
        #expect(try error(#"CAST("yesterday", "NSDate") > 3"#).message.contains("NSDate"))
    }

    @Test func errorsPointAtTheText() throws {
        #expect(try error(#"Nmae == "x""#).range == 0..<4)
        #expect(try error(#"Name == "Nmae" AND Nmae == "x""#).range == 19..<23)
        #expect(try error(#"Album.Titel == "Titel""#).range == 6..<11)
        #expect(try error("Milliseconds between {1, 2, 3}").range == 13..<20)
        #expect(try error("tracks.@sum.Name > 3", on: "Album").range == 7..<11)
        #expect(try error("$nope == 1").range == 0..<5)
        #expect(try error("lenght(Name) > 3").range == 0..<6)
        #expect(try error("Milliseconds == 1 AND Name.Foo == 1").range == 22..<26)
    }

    @Test func sortKeys() throws {
        let schema = try TestDatabase.chinook().schema()
        let track = try #require(schema.entity(named: "Track"))
        #expect(throws: PortalPredicateError.self) {
            try PredicateCompiler.orderBy([SortKey("Nmae")], entity: track, schema: schema, alias: "t0", dialect: .sqlite)
        }
        let album = try #require(schema.entity(named: "Album"))
        #expect(throws: PortalPredicateError.self) {
            try PredicateCompiler.orderBy([SortKey("tracks.Name")], entity: album, schema: schema, alias: "t0", dialect: .sqlite)
        }
        let order = try PredicateCompiler.orderBy([SortKey("Album.Artist.Name"), SortKey("name", ascending: false)],
                                                  entity: track, schema: schema, alias: "t0", dialect: .sqlite)
        #expect(order.sql.hasSuffix("t0.\"Name\" DESC"))
    }
}
