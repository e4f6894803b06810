import Testing
@testable import PortalEngine
import PortalSQLite

/// Random predicates over random data: the compiled SQL and PortalPredicate's in-memory evaluator
/// must select the same entities. Seeded; a mismatch prints the seed, the predicate and the SQL.
@Suite struct CompilerDifferentialTests {
    static let worlds = 25
    static let casesPerWorld = 420

    /// Each dialect's output runs: SQLite's own, and the standard spellings a server dialect uses.
    static let dialects: [any SQLDialect] = [SQLiteDialect(), StandardSpellingDialect()]

    @Test(arguments: 0..<2) func compiledSQLAgreesWithTheEvaluator(dialectIndex: Int) throws {
        let dialect = Self.dialects[dialectIndex]
        var cases = 0, mismatches = 0, bothRejected = 0
        for world in 0..<Self.worlds {
            let seed = UInt64(0x5EED_0000 + world)
            var random = SeededRandom(seed: seed)
            let data = try DifferentialWorld(random: &random)
            var generator = PredicateGenerator(random: random)
            for index in 0..<Self.casesPerWorld {
                let predicate = generator.predicate(depth: 0)
                cases += 1
                let outcome = try data.compare(predicate, dialect: dialect)
                switch outcome {
                case .agree: break
                case .bothRejected: bothRejected += 1
                case .differ(let message):
                    mismatches += 1
                    if mismatches <= 5 {
                        Issue.record("seed \(seed) case \(index): \(predicate)\n\(message)")
                    }
                }
            }
        }
        #expect(mismatches == 0)
        #expect(cases >= 10_000)
        // Rejections are fine only when rare: the generator should make valid predicates.
        #expect(bothRejected < cases / 20)
    }

    /// OR chains of `==` on one attribute, which the compiler turns into one `IN (…)`: texts,
    /// numbers and NULL against text, integer, real and date columns, mixed with other terms
    /// and negated, select what the evaluator selects on both dialects.
    @Test(arguments: 0..<2) func orChainsOfEqualitiesAgreeWithTheEvaluator(dialectIndex: Int) throws {
        let dialect = Self.dialects[dialectIndex]
        let values = DifferentialWorld.texts + DifferentialWorld.numbers
        var mismatches = 0
        for world in 0..<6 {
            var random = SeededRandom(seed: UInt64(0x0C4A_0000 + world))
            let data = try DifferentialWorld(random: &random)
            for index in 0..<150 {
                let column = random.pick(["name", "note", "score", "ratio", "day"])
                var terms: [PredicateTree] = (0..<random.int(2...9)).map { _ in
                    .comparison(Comparison(.key(random.chance(85) ? column : "score"), .equal, .literal(random.pick(values))))
                }
                if random.chance(30) { terms.insert(.comparison(Comparison(.key("id"), .less, .literal(5))), at: random.int(0...terms.count)) }
                let chain = PredicateTree.or(terms)
                let predicate = random.chance(35) ? .not(chain) : chain
                if case .differ(let message) = try data.compare(predicate, dialect: dialect) {
                    mismatches += 1
                    if mismatches <= 5 { Issue.record("world \(world) case \(index): \(predicate)\n\(message)") }
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// The SQL of such a chain: each column's equalities in one list, in the place of the first,
    /// the bindings in the order of the text; a lone equality and other comparisons left as written.
    @Test func anOrChainOfEqualitiesOnOneColumnIsOneList() throws {
        var random = SeededRandom(seed: 1)
        let data = try DifferentialWorld(random: &random)
        let filter = try PredicateCompiler.compile(#"name == "a" OR score == 1 OR name == "b" OR ratio > 2 OR name == "c" OR note == "d""#,
                                                   entity: data.owner, schema: data.schema, alias: "t0", dialect: .sqlite)
        #expect(filter.condition.sql == #"(t0."name" IN (?, ?, ?) OR t0."score" = ? OR t0."ratio" > ? OR t0."note" = ?)"#)
        #expect(filter.condition.bindings == ["a", "b", "c", 1, 2, "d"])
        // Under NOT, or inside AND, the same: the list is one term of the chain it stood in.
        let negated = try PredicateCompiler.compile(#"NOT (score == 1 OR score == 2) AND name == "a""#,
                                                    entity: data.owner, schema: data.schema, alias: "t0", dialect: .sqlite)
        #expect(negated.condition.sql.contains(#"t0."score" IN (?, ?)"#), "\(negated.condition.sql)")
    }
}

/// A small random database, and the same rows as evaluator objects.
struct DifferentialWorld {
    let database: TestDatabase
    let schema: Schema
    let owner: EntityDescription
    let objects: [MemoryObject]

    static let texts = DifferentialValues.texts
    static let numbers = DifferentialValues.numbers

    init(random: inout SeededRandom) throws {
        database = try TestDatabase()
        try database.execute("""
            CREATE TABLE team (id INTEGER PRIMARY KEY, title TEXT, rank INTEGER);
            CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT, note TEXT, score INTEGER, ratio REAL,
                                day DATETIME, teamId INTEGER REFERENCES team);
            CREATE TABLE item (id INTEGER PRIMARY KEY, ownerId INTEGER REFERENCES owner, label TEXT, qty INTEGER);
            CREATE INDEX owner_name ON owner (name);
            CREATE INDEX item_owner ON item (ownerId);
            """)
        var teams: [Int64: MemoryObject] = [:]
        for id in 1...4 {
            let row: [Value] = [.integer(Int64(id)), random.pick(Self.texts), random.pick(Self.numbers)]
            _ = try database.query("INSERT INTO team VALUES (?, ?, ?)", row)
            teams[Int64(id)] = MemoryObject(id: row[0], attributes: ["id": row[0], "title": row[1], "rank": row[2]],
                                            affinities: ["id": .integer, "title": .text, "rank": .integer])
        }
        let ownerCount = 14
        var items: [Int64: [MemoryObject]] = [:]
        for id in 1...40 {
            let ownerId: Value = random.chance(10) ? .null : .integer(Int64(random.int(1...ownerCount)))
            let qty: Value = random.chance(5) ? "x7" : random.pick(Self.numbers)
            let row: [Value] = [.integer(Int64(id)), ownerId, random.pick(Self.texts), qty]
            _ = try database.query("INSERT INTO item VALUES (?, ?, ?, ?)", row)
            // Read back: the column's affinity may have converted what was inserted.
            let stored = try database.query("SELECT id, ownerId, label, qty FROM item WHERE id = ?", [row[0]])[0]
            let object = MemoryObject(id: stored[0],
                                      attributes: ["id": stored[0], "ownerId": stored[1], "label": stored[2], "qty": stored[3]],
                                      affinities: ["id": .integer, "ownerId": .integer, "label": .text, "qty": .integer])
            if case .integer(let owner) = ownerId { items[owner, default: []].append(object) }
        }
        var rows: [[Value]] = []
        var members: [Int64: [MemoryObject]] = [:]   // team id → its owners (without relationships)
        let names = ["id", "name", "note", "score", "ratio", "day", "teamId"]
        let affinities: [String: Affinity] = ["id": .integer, "name": .text, "note": .text, "score": .integer,
                                              "ratio": .real, "day": .numeric, "teamId": .integer]
        for id in 1...ownerCount {
            let day: Value = random.pick(["2021-01-01 00:00:00", "2020-12-31 23:59:59", "2021-06-15 12:00:00",
                                          .integer(1_609_459_200), .real(1_609_459_199.5), .null])
            let team: Value = random.chance(20) ? .null : .integer(Int64(random.int(1...4)))
            let row: [Value] = [.integer(Int64(id)), random.pick(Self.texts), random.pick(Self.texts),
                                random.chance(10) ? random.pick(Self.texts) : random.pick(Self.numbers),
                                random.pick(Self.numbers), day, team]
            _ = try database.query("INSERT INTO owner VALUES (?, ?, ?, ?, ?, ?, ?)", row)
            let stored = try database.query("SELECT * FROM owner WHERE id = ?", [row[0]])[0]
            rows.append(stored)
            if case .integer(let team) = stored[6] {
                members[team, default: []].append(MemoryObject(id: stored[0], attributes: Self.attributes(names, stored),
                                                               affinities: affinities))
            }
        }
        var objects: [MemoryObject] = []
        for stored in rows {
            var teamObject: MemoryObject?
            if case .integer(let team) = stored[6], var object = teams[team] {
                object.toManyRelationships["owners"] = members[team] ?? []
                teamObject = object
            }
            let id = if case .integer(let id) = stored[0] { id } else { Int64(0) }
            objects.append(MemoryObject(id: stored[0], attributes: Self.attributes(names, stored), affinities: affinities,
                                        toOne: ["team": teamObject], toMany: ["items": items[id] ?? []]))
        }
        self.objects = objects
        schema = try database.schema()
        guard let owner = schema.entity(named: "owner") else { throw TestFailure("no owner entity") }
        self.owner = owner
    }

    static func attributes(_ names: [String], _ values: [Value]) -> [String: Value] {
        var attributes: [String: Value] = [:]
        for (name, value) in zip(names, values) { attributes[name] = value }
        return attributes
    }

    enum Outcome { case agree, bothRejected, differ(String) }

    func compare(_ predicate: PredicateTree, dialect: any SQLDialect = SQLiteDialect()) throws -> Outcome {
        var expected: [Value] = []
        var evaluatorError: PortalPredicateError?
        do {
            for object in objects where try predicate.evaluate(with: object) { expected.append(object.id) }
        } catch {
            evaluatorError = error
        }
        let filter: CompiledFilter
        do {
            filter = try PredicateCompiler.compile(Query(predicate: predicate), entity: owner, schema: schema, alias: "t0",
                                                   dialect: dialect)
        } catch let error as PortalPredicateError {
            return evaluatorError == nil ? .differ("compiler rejected it: \(error)") : .bothRejected
        }
        if let evaluatorError { return .differ("evaluator rejected it: \(evaluatorError)\nSQL: \(filter.condition.sql)") }
        let select = Select(owner, columns: .expressions([SQLFragment("t0.id")]), condition: filter.condition,
                            order: SQLFragment("t0.id")).rendered(in: dialect)
        let found = try database.column(select.sql, select.bindings)
        if found == expected { return .agree }
        return .differ("SQL: \(filter.condition.sql)\nbindings: \(filter.condition.bindings)\n"
            + "SQL selects \(found.map(showValue))\nevaluator selects \(expected.map(showValue))")
    }
}

/// A value as the mismatch report shows it.
func showValue(_ value: Value) -> String {
    switch value {
    case .null: "NULL"
    case .integer(let i): "\(i)"
    case .real(let r): "\(r)"
    case .decimal(let d): d.text
    case .text(let t): "'\(t)'"
    case .blob(let b): "blob(\(b.count))"
    }
}

/// The forms of Apple's language that exist only in the text (Apple's `name:(args)`, `%K` after a dot and in
/// SUBQUERY, printf specifiers) and the ones above written as text: parsed, then the compiled
/// SQL against the evaluator on every world.
@Suite struct TextFormDifferentialTests {
    static let cases: [(String, [Argument])] = [
        ("lowercase:(name) == 'zürich'", []),
        ("uppercase:(note) BEGINSWITH 'A'", []),
        ("sum:(items.qty) > 3 OR count:(items) == 0", []),
        ("abs:(score) >= %lu", [.value(2)]),
        ("ANY items.%K == %@", [.value("label"), .value("a")]),
        ("%K.%K BEGINSWITH[cd] %@", [.value("team"), .value("title"), .value("a")]),
        ("SUBQUERY(%K, $x, $x.%K >= %hd).@count > 0", [.value("items"), .value("qty"), .value(2)]),
        ("ratio > %e AND score < %lf", [.value(.real(0.1)), .value(.real(40))]),
        ("score <= %lld OR ratio == %la", [.value(3), .value(.real(2.5))]),
        ("(score & %d) != 0", [.value(1)]),
        ("1 << 3 == 8 AND score | 1 == 1 AND score ^ 2 > 0 AND score >> 1 <= 5", []),
        ("score & 4 | 1 == 5 OR score << -1 == 0", []),
        ("name IN {nil, 'a'} OR note IN {NULL}", []),
        ("name BEGINSWITH '' OR note ENDSWITH[cd] '' OR name CONTAINS[l] ''", []),
        ("name >[l] 'b' AND note <=[cl] 'Z'", []),
        (#"name ==[l] 'e\u0301' OR name BETWEEN[l] {'a', 'B'}"#, []),
        ("team.title IN[cl] {nil, 'zurich'}", []),
    ]

    @Test(arguments: 0..<2) func textFormsAgreeWithTheEvaluator(dialectIndex: Int) throws {
        let dialect = CompilerDifferentialTests.dialects[dialectIndex]
        for world in 0..<8 {
            var random = SeededRandom(seed: UInt64(0x7E47_0000 + world))
            let data = try DifferentialWorld(random: &random)
            for (text, arguments) in Self.cases {
                let predicate = try PredicateTree.parse(text, arguments: arguments)
                switch try data.compare(predicate, dialect: dialect) {
                case .agree: break
                case .bothRejected: Issue.record("both rejected \(text)")
                case .differ(let message): Issue.record("world \(world): \(text)\n\(message)")
                }
            }
        }
    }
}
