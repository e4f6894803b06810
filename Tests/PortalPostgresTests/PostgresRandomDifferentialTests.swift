import Foundation
import Testing
import DifferentialSupport
import PortalPredicate
import PortalEngine
import PortalSQLite
@testable import PortalPostgres

/// The whole predicate suite on Chinook, and 500 random predicates and 100 random grouped
/// selections on a generated database of 100,000 rows, each compiled in SQLite's dialect against
/// SQLite's schema and in PostgreSQL's against PostgreSQL's (the database copied up as `--copy-to`
/// does): both databases must give the same rows.
@Suite(.serialized) struct PostgresRandomDifferentialTests {
    @Test func everyChinookCaseSelectsTheSameRowsOnBothDatabases() throws {
        let pair = try DatabasePair(sqlitePath: PostgresDifferentialTests.chinook)
        var disagreements: [String] = []
        for test in ChinookPredicateCases.all {
            let results = try pair.bothDialects { dialect, schema in
                let entity = try #require(schema.entity(named: test.entity))
                let filter = try PredicateCompiler.compile(test.predicate, variables: test.variables, entity: entity,
                                                           schema: schema, alias: "t0", dialect: dialect)
                return Select(entity, columns: .expressions([SQLFragment("t0." + dialect.quoted(entity.primaryKey[0]))]),
                              condition: filter.condition, order: SQLFragment("1"))
            }
            if results.sqlite != results.postgres {
                disagreements.append("\(test.description): SQLite \(results.sqlite.count) rows, PostgreSQL \(results.postgres.count)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        #expect(ChinookPredicateCases.all.count > 100)
    }

    /// Dates against `timestamp`, `timestamptz` and `date` columns (the file holds ISO text),
    /// arithmetic on literals alone, and lists of values long enough to go as one array.
    @Test func datesArithmeticAndLongListsAgreeOnTypedColumns() throws {
        let pair = try DatabasePair(sqlitePath: PostgresDifferentialTests.chinook, then: """
            ALTER TABLE "Invoice" ALTER COLUMN "InvoiceDate" TYPE timestamp USING "InvoiceDate"::timestamp;
            ALTER TABLE "Employee" ALTER COLUMN "BirthDate" TYPE date USING "BirthDate"::date,
                                  ALTER COLUMN "HireDate" TYPE timestamptz USING ("HireDate" || '+00')::timestamptz;
            """)
        let trackIds = stride(from: 1, through: 3503, by: 3).map(String.init).joined(separator: ", ")
        let names = try pair.sqlite.read { ctx in try ctx.query(#"SELECT "Name" FROM "Track" WHERE "TrackId" % 7 = 0"#).rows }
            .compactMap { row -> String? in if case .text(let name) = row.values[0] { name } else { nil } }
        let quotedNames = (names.map { ExpressionTree.literal(.text($0)).description } + [#""a \\ \" b""#]).joined(separator: ", ")
        let prices = (0..<150).map { "\(Double($0) + 0.99)" }.joined(separator: ", ")
        let orChain = stride(from: 2, through: 3000, by: 5).map { "TrackId == \($0)" }.joined(separator: " OR ")
        let cases: [(String, String)] = [
            ("Invoice", #"InvoiceDate < CAST("2021-02-01", "NSDate")"#),
            ("Invoice", #"InvoiceDate == CAST("2021-01-11T00:00:00Z", "NSDate")"#),
            ("Invoice", #"InvoiceDate > CAST(662688000, "NSDate")"#),
            ("Invoice", "InvoiceDate < now()"),
            ("Invoice", "now() > InvoiceDate"),
            ("Invoice", #"InvoiceDate BETWEEN {CAST("2021-01-01", "NSDate"), CAST("2021-12-31", "NSDate")}"#),
            ("Invoice", #"InvoiceDate IN {CAST("2021-01-11", "NSDate"), CAST("2022-02-10", "NSDate"), nil}"#),
            ("Invoice", #"Customer.SupportRep.HireDate >= CAST("2002-08-14", "NSDate")"#),
            ("Employee", #"BirthDate < CAST("1960-01-01", "NSDate")"#),
            ("Employee", #"BirthDate == CAST("1962-02-18", "NSDate")"#),
            ("Employee", #"HireDate > CAST("2002-08-14 00:00:00", "NSDate") AND HireDate < now()"#),
            ("Track", "Milliseconds + 1000 * 60 > 600000"),
            ("Track", "Milliseconds / 1000 > 300"),
            ("Track", "2 * 3 + TrackId > 3400"),
            ("Track", "UnitPrice * 2 > 1.5 AND Bytes - Milliseconds * 30 < 0"),
            ("Track", "TrackId IN {\(trackIds)}"),
            ("Track", "NOT TrackId IN {\(trackIds), nil}"),
            ("Track", "Name IN {\(quotedNames)}"),
            ("Track", "UnitPrice IN {\(prices)}"),
            ("Track", "AlbumId IN {\(trackIds), 2.5}"),
            ("Track", orChain),
        ]
        var disagreements: [String] = []
        for (entityName, predicate) in cases {
            let outcome = try pair.compare(String(predicate.prefix(120))) { dialect, schema in
                let entity = try #require(schema.entity(named: entityName))
                let filter = try PredicateCompiler.compile(predicate, entity: entity, schema: schema, alias: "t0", dialect: dialect)
                return Select(entity, columns: .expressions([SQLFragment("t0." + dialect.quoted(entity.primaryKey[0]))]),
                              condition: filter.condition, order: SQLFragment("1"))
            }
            switch outcome {
            case .agree(let count): if count == 0 { disagreements.append("\(predicate.prefix(120)): no rows on either") }
            case .bothRejected: disagreements.append("\(predicate.prefix(120)): refused by both")
            case .differ(let message): disagreements.append(String(message.prefix(2000)))
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n\n"))")
    }

    @Test func randomPredicatesAndGroupsAgreeOnAGeneratedDatabase() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgdiff-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("generated.sqlite").path
        var random = SeededRandom(seed: 0x9E5_D1FF)
        let rows = try GeneratedDatabase.create(at: path, random: &random)
        #expect(rows >= 100_000)
        let pair = try DatabasePair(sqlitePath: path)

        var generator = PredicateGenerator(random: random, wellTyped: true)
        var agreed = 0, bothRejected = 0, nonTrivial = 0, disagreements: [String] = []
        for index in 0..<500 {
            let predicate = generator.predicate(depth: 0)
            let outcome = try pair.compare(String(describing: predicate)) { dialect, schema in
                let owner = try #require(schema.entity(named: "owner"))
                let filter = try PredicateCompiler.compile(Query(predicate: predicate), entity: owner, schema: schema,
                                                           alias: "t0", dialect: dialect)
                return Select(owner, columns: .expressions([SQLFragment("t0.id")]), condition: filter.condition,
                              order: SQLFragment("1"))
            }
            switch outcome {
            case .agree(let count):
                agreed += 1
                if count > 0 && count < GeneratedDatabase.owners { nonTrivial += 1 }
            case .bothRejected: bothRejected += 1
            case .differ(let message): disagreements.append("predicate \(index): \(message)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(8).joined(separator: "\n\n"))")
        #expect(bothRejected < 25)
        #expect(nonTrivial > 250, "most predicates select some owners but not all")

        var groupsAgreed = 0
        var selections = random
        for index in 0..<100 {
            let (selection, filter) = GeneratedDatabase.randomSelection(&selections, predicates: &generator)
            let outcome = try pair.compare("select \(selection.items.map { $0.expression }) group by \(selection.groupBy) having \(selection.having ?? "-") where \(filter.map { "\($0)" } ?? "-")") { dialect, schema in
                let owner = try #require(schema.entity(named: "owner"))
                let compiled = try PredicateCompiler.compile(selection, sortedBy: selection.groupBy.map { SortKey($0) },
                                                             entity: owner, schema: schema,
                                                             alias: "t0", dialect: dialect)
                let condition = try filter.map {
                    try PredicateCompiler.compile(Query(predicate: $0), entity: owner, schema: schema, alias: "t0",
                                                  dialect: dialect).condition
                }
                var select = Select(owner, columns: .expressions(compiled.columns), condition: condition, order: compiled.order)
                select.groupBy = compiled.groupBy
                select.having = compiled.having
                return select
            }
            switch outcome {
            case .agree: groupsAgreed += 1
            case .bothRejected: break
            case .differ(let message): disagreements.append("selection \(index): \(message)")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(8).joined(separator: "\n\n"))")
        #expect(groupsAgreed > 90)
    }
}

/// The browser's column questions (`F` and `I`: a frequency page and the page after it, the
/// distinct count, the summary, the histogram of numbers and of dates, the shortest and longest
/// value) asked of Chinook on both databases, each built for its dialect: the same answers.
@Suite struct PostgresColumnQueriesTests {
    @Test func frequencySummaryHistogramAndShortestAgree() throws {
        let pair = try DatabasePair(sqlitePath: PostgresDifferentialTests.chinook)
        let columns = [("Track", "Composer"), ("Track", "Milliseconds"), ("Track", "UnitPrice"), ("Track", "GenreId"),
                       ("Invoice", "InvoiceDate"), ("Invoice", "BillingCountry"), ("Customer", "Company"), ("Track", "TrackId")]
        for (entityName, attributeName) in columns {
            func both(_ what: String, _ build: (EntityDescription, AttributeDescription, any SQLDialect) -> Select) throws {
                let outcome = try pair.compare("\(entityName).\(attributeName): \(what)") { dialect, schema in
                    let entity = try #require(schema.entity(named: entityName))
                    return build(entity, try #require(entity.attribute(named: attributeName)), dialect)
                }
                if case .differ(let message) = outcome { Issue.record("\(message)") }
                if case .bothRejected = outcome { Issue.record("\(entityName).\(attributeName): \(what) refused by both") }
            }
            try both("frequencies") { e, a, d in ColumnQueries.frequencies(e, a, condition: nil, anchor: .first, limit: 15, dialect: d) }
            // The next page starts after the first page's fifth value.
            let first = try pair.bothDialects { dialect, schema in
                let entity = try #require(schema.entity(named: entityName))
                return ColumnQueries.frequencies(entity, try #require(entity.attribute(named: attributeName)), condition: nil,
                                                 anchor: .first, limit: 5, dialect: dialect)
            }.sqlite
            guard let fifth = first.last, case .integer(let n) = fifth[1] else { throw PortalError(.misuse, "no fifth value") }
            try both("frequencies after") { e, a, d in
                ColumnQueries.frequencies(e, a, condition: nil, anchor: .after(fifth[0], count: Int(n)), limit: 15, dialect: d)
            }
            try both("distinct count") { e, a, _ in ColumnQueries.distinctCount(e, a, condition: nil, limit: nil, dialect: .sqlite) }
            let dates = attributeName.hasSuffix("Date")
            try both("summary") { e, a, d in ColumnQueries.summary(e, a, condition: nil, dates: dates, dialect: d) }
            try both("histogram") { e, a, d in
                ColumnQueries.histogram(e, a, condition: nil, dates: dates, lower: dates ? 2_459_215.5 : 0,
                                        width: dates ? 90 : 50_000, bins: 20, dialect: d)
            }
            try both("shortest") { e, a, d in ColumnQueries.shortest(e, a, condition: nil, longest: false, dialect: d) }
            try both("longest") { e, a, d in ColumnQueries.shortest(e, a, condition: nil, longest: true, dialect: d) }
        }
    }

    /// PostgreSQL's own types, which a copy from SQLite never makes: the same questions run, and
    /// dates and timestamps count as the days they are.
    @Test func nativeTypesGetAnswersToo() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("""
            CREATE TABLE t (id bigint PRIMARY KEY, ok boolean, at timestamp, atz timestamptz, day date, u uuid, n numeric);
            INSERT INTO t VALUES (1, true, '2021-01-01 12:00', '2021-01-01 12:00+00', '2021-01-01',
                                  'e621e1f8-c36c-495a-93fc-0c247a3e6e5f', 2.5),
                                 (2, false, '2021-01-03 00:00', '2021-01-03 00:00+00', '2021-01-03', NULL, 7)
            """)
        let schema = try PostgresCatalog().schema(of: db.connection)
        let entity = try #require(schema.entity(named: "t"))
        let dialect = PostgresDialect()
        for name in ["ok", "at", "atz", "day", "u", "n"] {
            let attribute = try #require(entity.attribute(named: name))
            let dates = ["at", "atz", "day"].contains(name)
            let summary = try db.rows(ColumnQueries.summary(entity, attribute, condition: nil, dates: dates, dialect: dialect)
                .rendered(in: dialect))
            #expect(summary.first?[0] == .integer(2), "\(name)")
            if dates {
                // 2021-01-01 is Julian day 2459215.5 at midnight.
                let first = name == "day" ? 2_459_215.5 : 2_459_216.0
                #expect(summary.first?[6] == .real(first), "\(name): \(summary)")
                let bins = try db.rows(ColumnQueries.histogram(entity, attribute, condition: nil, dates: true, lower: 2_459_215.5,
                                                               width: 1, bins: 3, dialect: dialect).rendered(in: dialect))
                #expect(bins.map { $0[1] } == [.integer(1), .integer(1)], "\(name): \(bins)")
            }
            let frequencies = try db.rows(ColumnQueries.frequencies(entity, attribute, condition: nil, anchor: .first, limit: 5,
                                                                    dialect: dialect).rendered(in: dialect))
            #expect(frequencies.count == 2, "\(name)")
        }
    }
}

/// An SQLite database and its copy in a scratch PostgreSQL database.
struct DatabasePair {
    let sqlite: Store
    let postgres: ScratchDatabase
    let sqliteSchema: Schema
    let postgresSchema: Schema

    /// The SQLite file and its copy on the server, where `then` runs after the copy (to give
    /// columns the types a PostgreSQL schema would have).
    init(sqlitePath: String, then adjustment: String? = nil) throws {
        var options = StoreOptions(readOnly: true)
        options.switchesToWAL = false
        sqlite = try Store(path: sqlitePath, options: options)
        postgres = try ScratchDatabase()
        _ = try PostgresCopy(to: "dbname=\(postgres.name)").copy(from: sqlite, progress: { _, _, _ in }, interrupted: { false })
        if let adjustment { try postgres.connection.execute(adjustment) }
        sqliteSchema = try sqlite.read { ctx in try ctx.schema }
        postgresSchema = try PostgresCatalog().schema(of: postgres.connection)
    }

    /// The rows of the statement `build` makes for each dialect, run on its database.
    func bothDialects(_ build: (any SQLDialect, Schema) throws -> Select) throws -> (sqlite: [[Value]], postgres: [[Value]]) {
        let mine = try build(SQLiteDialect(), sqliteSchema).rendered(in: SQLiteDialect())
        let theirs = try build(PostgresDialect(), postgresSchema).rendered(in: PostgresDialect())
        return (try sqlite.read { ctx in try ctx.query(mine.sql, mine.bindings).rows.map(\.values) },
                try postgres.rows(theirs))
    }

    enum Outcome { case agree(Int), bothRejected, differ(String) }

    /// Both results, equal up to the last bits of a real (sums and averages add in another order);
    /// a predicate one compiler refuses and the other takes is a difference.
    func compare(_ what: String, _ build: (any SQLDialect, Schema) throws -> Select) throws -> Outcome {
        var rejections: [String] = []
        var statements: [SQLFragment] = []
        for (dialect, schema) in [(SQLiteDialect() as any SQLDialect, sqliteSchema), (PostgresDialect(), postgresSchema)] {
            do { statements.append(try build(dialect, schema).rendered(in: dialect)) } catch {
                rejections.append("\(dialect is PostgresDialect ? "PostgreSQL" : "SQLite") refused it: \(error)")
            }
        }
        if rejections.count == 2 { return .bothRejected }
        if !rejections.isEmpty { return .differ("\(what)\n\(rejections[0])") }
        let mine = try sqlite.read { ctx in try ctx.query(statements[0].sql, statements[0].bindings).rows.map(\.values) }
        let theirs: [[Value]]
        do { theirs = try postgres.rows(statements[1]) } catch {
            return .differ("\(what)\nPostgreSQL failed: \(error)\nSQL: \(statements[1].sql)")
        }
        if mine.count == theirs.count && zip(mine, theirs).allSatisfy({ zip($0, $1).allSatisfy(Self.same) }) {
            return .agree(mine.count)
        }
        return .differ("\(what)\nSQLite \(mine.count) rows \(mine.prefix(6))\nPostgreSQL \(theirs.count) rows \(theirs.prefix(6))\n"
            + "SQL: \(statements[1].sql)\nbindings: \(statements[1].bindings)")
    }

    /// Equal, numbers within rounding: PostgreSQL's `numeric` (an exact decimal) against the
    /// double SQLite keeps of it.
    static func same(_ a: Value, _ b: Value) -> Bool {
        switch (a.approximated, b.approximated) {
        case (.real(let x), .real(let y)): return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
        case (.integer(let x), .real(let y)), (.real(let y), .integer(let x)): return Double(x) == y
        default: return a == b
        }
    }
}

/// A database of the differential world's shape (teams, owners, items), typed as PostgreSQL needs:
/// texts in text columns, integers in integer columns, dates as text: 100,000 rows, most of them
/// in the tables a predicate on owners reaches through relationships.
enum GeneratedDatabase {
    static let teams = 30_000, owners = 10_000, items = 60_000

    /// Creates it; returns the number of rows written.
    static func create(at path: String, random: inout SeededRandom) throws -> Int {
        let store = try Store(path: path)
        let texts = DifferentialValues.texts.filter { if case .text(let t) = $0 { !t.contains("\u{0}") } else { true } }
        let integers = DifferentialValues.numbers.filter { if case .real = $0 { false } else { true } }
        let days: [Value] = ["2021-01-01 00:00:00", "2020-12-31 23:59:59", "2021-06-15 12:00:00", "2021-01-01", .null]
        return try store.write { ctx in
            _ = try ctx.query("""
                CREATE TABLE team (id INTEGER PRIMARY KEY, title TEXT, rank INTEGER);
                CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT, note TEXT, score INTEGER, ratio REAL,
                                    day DATETIME, teamId INTEGER REFERENCES team);
                CREATE TABLE item (id INTEGER PRIMARY KEY, ownerId INTEGER REFERENCES owner, label TEXT, qty INTEGER);
                CREATE INDEX owner_name ON owner (name);
                CREATE INDEX owner_team ON owner (teamId);
                CREATE INDEX item_owner ON item (ownerId);
                """)
            let team = try ctx.prepare("INSERT INTO team VALUES (?, ?, ?)")
            for id in 1...teams { _ = try team.execute([.integer(Int64(id)), random.pick(texts), random.pick(integers)]) }
            let owner = try ctx.prepare("INSERT INTO owner VALUES (?, ?, ?, ?, ?, ?, ?)")
            for id in 1...owners {
                let teamId: Value = random.chance(10) ? .null : .integer(Int64(random.int(1...teams)))
                _ = try owner.execute([.integer(Int64(id)), random.pick(texts), random.pick(texts), random.pick(integers),
                                       random.pick(DifferentialValues.numbers), random.pick(days), teamId])
            }
            let item = try ctx.prepare("INSERT INTO item VALUES (?, ?, ?, ?)")
            for id in 1...items {
                let ownerId: Value = random.chance(5) ? .null : .integer(Int64(random.int(1...owners)))
                _ = try item.execute([.integer(Int64(id)), ownerId, random.pick(texts), random.pick(integers)])
            }
            return teams + owners + items
        }
    }

    static let keys = ["name", "score", "teamId", "team.title", "ratio", "day"]
    static let arguments = ["name", "score", "ratio", "team.title", "day", "note"]

    /// A grouped selection over owners, with a random filter half the time.
    static func randomSelection(_ random: inout SeededRandom, predicates: inout PredicateGenerator) -> (Selection, PortalPredicate.PredicateTree?) {
        var keys = [random.pick(Self.keys)]
        if random.chance(30) { keys.append(random.pick(Self.keys.filter { $0 != keys[0] })) }
        var items = keys.map { SelectionItem($0) }
        for n in 0..<random.int(1...3) {
            let x = random.pick(arguments)
            let aggregate = random.pick(["count()", "count(\(x))", "count(distinct \(x))", "min(\(x))", "max(\(x))",
                                         "sum(ratio)", "avg(ratio)", "sum(score)", "avg(score)"])
            items.append(SelectionItem(aggregate, as: "a\(n)"))
        }
        let having: String? = random.chance(40) ? "count() > \(random.int(0...3))" : nil
        let filter = random.chance(50) ? predicates.predicate(depth: 1) : nil
        return (Selection(items, groupBy: keys, having: having), filter)
    }
}
