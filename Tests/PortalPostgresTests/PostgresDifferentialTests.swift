import Foundation
import Testing
import PortalPredicate
import PortalEngine
import PortalSQLite
@testable import PortalPostgres

/// Chinook copied into PostgreSQL (`PostgresCopy`, as `--copy-to` does); PostgreSQL's catalog must
/// describe it as SQLite's does, and each predicate compiled by the engine in SQLite's dialect
/// against SQLite's schema and in PostgreSQL's against PostgreSQL's must select the same tracks,
/// and a grouped selection the same groups.
@Suite struct PostgresDifferentialTests {
    static let chinook = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/chinook/Chinook_Sqlite.sqlite").path
    static let predicates = [
        "Milliseconds > 300000", #"Name BEGINSWITH "A""#, #"Name CONTAINS[c] "love""#, #"Name ENDSWITH "s""#,
        #"Name LIKE "*Love*""#, #"Name LIKE[c] "?he*""#, "Composer == nil", "Composer != nil AND GenreId IN {1, 3}",
        #"Album.Artist.Name == "AC/DC""#, #"Album.Title CONTAINS[cd] "rock""#, "NOT (GenreId == 1)",
        #"Name MATCHES "[A-C].*""#, "UnitPrice > 0.99", "Bytes / 1000 > 10000", "Album.tracks.@count > 20",
        "ANY Album.tracks.Milliseconds > 1000000", #"SUBQUERY(Album.tracks, $t, $t.Composer BEGINSWITH "Jimmy").@count > 3"#,
        #"Composer BEGINSWITH[c] "a" OR Name ==[c] "dazed and confused""#, "TrackId BETWEEN {10, 20}",
        #"Name IN {"Balls to the Wall", "Fast As a Shark"}"#, "Genre.Name == MediaType.Name", "Milliseconds * 2 < Bytes / 100",
        "abs(Milliseconds - 200000) < 1000", #"uppercase(Name) BEGINSWITH "THE""#, "length(Name) > 40",
        "Album.Artist.Name == nil OR Album.Artist.albums.@count >= 10", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    @Test func predicatesSelectTheSameTracksOnBothDatabases() throws {
        let db = try ScratchDatabase()
        var options = StoreOptions(readOnly: true)
        options.switchesToWAL = false
        let sqlite = try Store(path: Self.chinook, options: options)
        _ = try PostgresCopy(to: "dbname=\(db.name)").copy(from: sqlite, progress: { _, _, _ in }, interrupted: { false })
        let sqliteSchema = try sqlite.read { ctx in try ctx.schema }
        let postgresSchema = try PostgresCatalog().schema(of: db.connection)
        try expectSameShape(sqliteSchema, postgresSchema)
        var agreed = 0
        for predicate in Self.predicates {
            var results: [[[Value]]] = []
            for dialect in [SQLiteDialect() as any SQLDialect, PostgresDialect()] {
                let schema = dialect is PostgresDialect ? postgresSchema : sqliteSchema
                let track = try #require(schema.entity(named: "Track"))
                let filter = try PredicateCompiler.compile(predicate, entity: track, schema: schema, alias: "t0", dialect: dialect)
                let select = Select(track, columns: .expressions([SQLFragment("t0.\"TrackId\"")]), condition: filter.condition,
                                    order: SQLFragment("1"))
                let sql = select.rendered(in: dialect)
                results.append(dialect is PostgresDialect ? try db.rows(sql)
                               : try sqlite.read { ctx in try ctx.query(sql.sql, sql.bindings).rows.map(\.values) })
            }
            #expect(results[0] == results[1], "\(predicate): SQLite \(results[0].count) rows, PostgreSQL \(results[1].count)")
            if results[0] == results[1] { agreed += 1 }
        }
        #expect(agreed == Self.predicates.count)
        let grouped = Selection([SelectionItem("Genre.Name", as: "genre"), SelectionItem("count()", as: "n"),
                                 SelectionItem("max(Milliseconds)", as: "longest")], groupBy: ["Genre.Name"], having: "n > 10")
        var groups: [[[Value]]] = []
        for dialect in [SQLiteDialect() as any SQLDialect, PostgresDialect()] {
            let schema = dialect is PostgresDialect ? postgresSchema : sqliteSchema
            let track = try #require(schema.entity(named: "Track"))
            let compiled = try PredicateCompiler.compile(grouped, sortedBy: [SortKey("genre")], entity: track, schema: schema,
                                                         alias: "t0", dialect: dialect)
            var select = Select(track, columns: .expressions(compiled.columns), order: compiled.order)
            select.groupBy = compiled.groupBy
            select.having = compiled.having
            let sql = select.rendered(in: dialect)
            groups.append(dialect is PostgresDialect ? try db.rows(sql)
                          : try sqlite.read { ctx in try ctx.query(sql.sql, sql.bindings).rows.map(\.values) })
        }
        #expect(groups[0] == groups[1])
        #expect(groups[0].count > 5)
    }

    /// The predicates on `entity` whose rows (ids in order) differ between the two databases,
    /// and how many select some rows on SQLite (predicates that select nothing would agree
    /// without telling anything).
    private func comparing(_ predicates: [String], entity name: String, key: String, sqlite: Store,
                           postgres db: ScratchDatabase) throws -> (differing: [String], selecting: Int) {
        let sqliteSchema = try sqlite.read { ctx in try ctx.schema }
        let postgresSchema = try PostgresCatalog().schema(of: db.connection)
        var differing: [String] = []
        var selecting = 0
        for predicate in predicates {
            var results: [[[Value]]] = []
            for dialect in [SQLiteDialect() as any SQLDialect, PostgresDialect()] {
                let schema = dialect is PostgresDialect ? postgresSchema : sqliteSchema
                let entity = try #require(schema.entity(named: name))
                let filter = try PredicateCompiler.compile(predicate, entity: entity, schema: schema, alias: "t0", dialect: dialect)
                let select = Select(entity, columns: .expressions([SQLFragment("t0.\"\(key)\"")]), condition: filter.condition,
                                    order: SQLFragment("1"))
                let sql = select.rendered(in: dialect)
                results.append(dialect is PostgresDialect ? try db.rows(sql)
                               : try sqlite.read { ctx in try ctx.query(sql.sql, sql.bindings).rows.map(\.values) })
            }
            if !results[0].isEmpty { selecting += 1 }
            if results[0] != results[1] {
                differing.append("\(predicate): SQLite \(results[0].count) rows, PostgreSQL \(results[1].count)")
            }
        }
        return (differing, selecting)
    }

    /// The predicates on `entity` whose rows differ between the two databases (`comparing`).
    private func disagreements(_ predicates: [String], entity name: String, key: String, sqlite: Store,
                               postgres db: ScratchDatabase) throws -> [String] {
        try comparing(predicates, entity: name, key: key, sqlite: sqlite, postgres: db).differing
    }

    /// Dates against `now()` and `CAST(…, "NSDate")`, arithmetic with typed literals, lists of
    /// thousands of values and long OR chains select the same rows on both.
    @Test func datesArithmeticAndLongListsSelectTheSameRows() throws {
        let db = try ScratchDatabase()
        var options = StoreOptions(readOnly: true)
        options.switchesToWAL = false
        let sqlite = try Store(path: Self.chinook, options: options)
        _ = try PostgresCopy(to: "dbname=\(db.name)").copy(from: sqlite, progress: { _, _, _ in }, interrupted: { false })
        let longList = "TrackId IN {" + (1...7500).map(String.init).joined(separator: ", ") + "}"
        let longOr = (1...3000).map { "TrackId == \($0 * 3)" }.joined(separator: " OR ")
        let names = "Name IN {" + (1...2000).map { "\"Song \($0)\"" }.joined(separator: ", ") + ", \"Dazed and Confused\"}"
        #expect(try disagreements([
            longList, longOr, names, "Milliseconds + 1000 * 60 > 600000", "Milliseconds / 1000 / 60 >= 5",
            "UnitPrice * 100 == 99", "(Bytes - Milliseconds) / 7 > 100000", "-Milliseconds < -500000",
        ], entity: "Track", key: "TrackId", sqlite: sqlite, postgres: db) == [])
        #expect(try disagreements([
            #"InvoiceDate > CAST("2012-06-01", "NSDate")"#, "InvoiceDate < now()",
            #"InvoiceDate BETWEEN {CAST("2010-01-01", "NSDate"), CAST("2010-12-31", "NSDate")}"#,
            #"InvoiceDate >= CAST("2011-01-01", "NSDate") AND Total * 2 > 20"#, "InvoiceDate > now()",
            #"Customer.invoices.@count > 6 AND InvoiceDate < CAST("2010-01-01", "NSDate")"#,
        ], entity: "Invoice", key: "InvoiceId", sqlite: sqlite, postgres: db) == [])
    }

    /// A table `item` (id, tags, body) of the same rows in both: tags a JSON array on SQLite and a
    /// `text[]` on PostgreSQL, body a JSON document (`jsonb` there). The file goes when `cleanup`
    /// is called.
    private func items(_ rows: [(tags: [String]?, body: String?)]) throws
        -> (sqlite: Store, postgres: ScratchDatabase, cleanup: () -> Void) {
        let db = try ScratchDatabase()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("json-\(UUID().uuidString).sqlite").path
        var create = StoreOptions()
        create.create = true
        let sqlite = try Store(path: path, options: create)
        func literal(_ text: String?) -> String { text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL" }
        var sqliteRows: [String] = [], postgresRows: [String] = []
        for (id, row) in rows.enumerated() {
            let json = row.tags.map { "[" + $0.map { "\"\($0)\"" }.joined(separator: ",") + "]" }
            sqliteRows.append("(\(id), \(literal(json)), \(literal(row.body)))")
            let array = row.tags.map { "ARRAY[" + $0.map(literal).joined(separator: ",") + "]::text[]" } ?? "NULL"
            postgresRows.append("(\(id), \(array), \(literal(row.body))::jsonb)")
        }
        try sqlite.write { ctx in
            try ctx.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, tags JSON, body JSON)")
            try ctx.execute("INSERT INTO item VALUES " + sqliteRows.joined(separator: ", "))
        }
        try db.connection.execute("CREATE TABLE item (id int PRIMARY KEY, tags text[], body jsonb);"
                                  + "INSERT INTO item VALUES " + postgresRows.joined(separator: ", "))
        return (sqlite, db, { try? sqlite.close(); try? FileManager.default.removeItem(atPath: path) })
    }

    /// An array column (a JSON array on SQLite) ranges as a to-many key path does, and a JSON
    /// column's keys are key paths: the same rows on both, from the same documents.
    @Test func arraysAndJSONKeyPathsSelectTheSameRows() throws {
        let tagSets: [[String]?] = [[], ["red"], ["red", "blue"], ["green", "gold"], nil, ["blue", "green", "red"], ["Red"]]
        let documents = [#"{"qty": 3, "name": "alpha", "a": {"b": 1}}"#, #"{"qty": 1, "name": "beta"}"#,
                         #"{"qty": "3", "a": {"b": 2}}"#, #"{"qty": null, "name": "gamma", "a": {"b": 1, "c": [1]}}"#,
                         #"{"name": "al'pha", "a": 5}"#, "[1, 2]", #"{"qty": 2.5}"#]
        let rows = (0..<49).map { id in (tagSets[id % tagSets.count], id % 5 == 4 ? nil : documents[(id / 2) % documents.count]) }
        let (sqlite, db, cleanup) = try items(rows)
        defer { cleanup() }
        #expect(try disagreements([
            #"ANY tags == "red""#, #""blue" IN tags"#, "tags.@count == 2", "tags.@count == 0", #"NONE tags BEGINSWITH "g""#,
            #"ALL tags != "red""#, #"tags CONTAINS "green""#, #"ANY tags ==[c] "RED""#, #"ANY tags IN {"gold", "blue"}"#,
            "tags == nil", #"tags.@count > 1 AND ANY tags ENDSWITH "d""#,
            "body.qty == 3", "body.qty > 2", "body.qty IN {1, 3}", #"body.qty == "3""#, #"body.name == "alpha""#,
            #"body.name BEGINSWITH[c] "AL""#, "body.a.b == 1", "body.a.b != 1", "body.missing == nil", "body.name == nil",
            "body.a == 5", "body.qty * 2 > 5",
        ], entity: "item", key: "id", sqlite: sqlite, postgres: db) == [])
    }

    /// Random predicates over random arrays and JSON documents: quantifiers, membership, counts,
    /// key paths compared with numbers, texts and nil, arithmetic, and their combinations.
    @Test func randomArrayAndJSONPredicatesSelectTheSameRows() throws {
        var random = SplitMix64(seed: 0x5EED_0029)
        let words = ["red", "blue", "green", "gold", "Red", "", "al'pha", "b"]
        func document(_ random: inout SplitMix64) -> String? {
            guard !random.chance(10) else { return nil }
            var fields: [String] = []
            switch random.int(0...4) {
            case 0: break
            case 1: fields.append(#""qty": null"#)
            case 2: fields.append(#""qty": "\#(random.int(0...3))""#)
            case 3: fields.append(#""qty": 2.5"#)
            default: fields.append(#""qty": \#(random.int(-1...4))"#)
            }
            if random.chance(70) { fields.append(#""name": "\#(random.pick(words).replacingOccurrences(of: "'", with: "'"))""#) }
            switch random.int(0...3) {
            case 0: fields.append(#""a": {"b": \#(random.int(0...2))}"#)
            case 1: fields.append(#""a": \#(random.int(0...5))"#)
            case 2: fields.append(#""a": {"b": "x"}"#)
            default: break
            }
            return random.chance(5) ? "[1, 2]" : "{" + fields.joined(separator: ", ") + "}"
        }
        let rows = (0..<300).map { _ -> (tags: [String]?, body: String?) in
            (random.chance(10) ? nil : (0..<random.int(0...3)).map { _ in random.pick(words) }, document(&random))
        }
        let (sqlite, db, cleanup) = try items(rows)
        defer { cleanup() }
        func text(_ random: inout SplitMix64) -> String { "\"" + random.pick(words) + "\"" }
        func predicate(_ random: inout SplitMix64, depth: Int) -> String {
            if depth < 2 && random.chance(30) {
                let parts = (0..<random.int(2...3)).map { _ in predicate(&random, depth: depth + 1) }
                return "(" + parts.joined(separator: random.chance(50) ? " AND " : " OR ") + ")"
            }
            if depth < 3 && random.chance(10) { return "NOT " + predicate(&random, depth: depth + 1) }
            let comparison = random.pick(["==", "!=", "<", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS[c]", "==[c]"])
            let order = random.pick(["==", "!=", "<", "<=", ">", ">="])
            switch random.int(0...7) {
            case 0: return random.pick(["ANY ", "ALL ", "NONE ", ""]) + "tags \(comparison) " + text(&random)
            case 1: return text(&random) + " IN tags"
            case 2: return "tags.@count \(order) \(random.int(0...3))"
            case 3: return "body.\(random.pick(["qty", "a.b", "a", "missing"])) \(order) \(random.pick(["0", "1", "2", "2.5", "3", "-1"]))"
            case 4: return "body.\(random.pick(["name", "qty", "a.b"])) \(comparison) " + text(&random)
            case 5: return "body.\(random.pick(["name", "qty", "a", "a.b"])) \(random.pick(["==", "!="])) nil"
            case 6: return "body.qty IN {\(random.pick(["1, 3", "2.5, 0", "-1"]))}"
            default: return "body.\(random.pick(["qty", "a.b"])) \(random.pick(["*", "+", "-"])) 2 \(order) \(random.int(0...6))"
            }
        }
        let predicates = (0..<300).map { _ in predicate(&random, depth: 0) }
        let (differing, selecting) = try comparing(predicates, entity: "item", key: "id", sqlite: sqlite, postgres: db)
        #expect(differing.isEmpty, "\(differing.joined(separator: "\n"))")
        #expect(selecting > 150, "\(selecting) of 300 predicates select rows")
    }

    /// The same entities, attribute names, keys, relationships and index names.
    private func expectSameShape(_ sqlite: Schema, _ postgres: Schema) throws {
        #expect(Set(sqlite.entities.map(\.name)) == Set(postgres.entities.map(\.name)))
        for entity in sqlite.entities {
            let other = try #require(postgres.entity(named: entity.name))
            #expect(entity.attributes.map(\.name) == other.attributes.map(\.name), "\(entity.name)")
            #expect(entity.attributes.map(\.isNullable) == other.attributes.map(\.isNullable), "\(entity.name)")
            #expect(entity.primaryKey == other.primaryKey, "\(entity.name)")
            let relationships = { (e: EntityDescription) in
                Set(e.relationships.map { "\($0.name) \($0.kind) \($0.destination) \($0.sourceColumns) \($0.destinationColumns)" })
            }
            #expect(relationships(entity) == relationships(other), "\(entity.name)")
            let indexes = { (e: EntityDescription) in Set(e.indexes.map(\.name).filter { $0.hasPrefix("IFK_") }) }
            #expect(indexes(entity) == indexes(other), "\(entity.name)")
        }
    }
}
