import Foundation
import Testing
import PortalPredicate
@testable import PortalEngine
import PortalSQLite

/// SQLite's dialect with the standard SQL spellings a server dialect (PostgreSQL) uses where
/// SQLite accepts them too: `TRUE`/`FALSE`, `IS [NOT] DISTINCT FROM`, `IS NOT TRUE`, `CASE` for the
/// affinity-free value. The differential tests run the compiler's output in both dialects: a
/// compiler that spelled any of these itself would give the same SQL in both, and one that
/// misused a hook would give wrong rows in one. Its spelling keeps the standard defaults
/// (quoting, upsert, `RETURNING`) and says only what differs.
struct StandardSpellingDialect: SQLDialect {
    private let sqlite = SQLiteDialect()
    var rowidColumn: String? { sqlite.rowidColumn }
    func limit(_ limit: Int?, offset: Int?) -> SQLFragment { sqlite.limit(limit, offset: offset) }
    var queryPlanPrefix: String { sqlite.queryPlanPrefix }
    /// SQLite takes numbered parameters too (`?1`), as a server takes `$1`.
    func parameter(_ number: Int) -> String? { "?\(number)" }
    func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
    func isNotTrue(_ condition: SQLFragment) -> SQLFragment { condition.parenthesized + " IS NOT TRUE" }
    func nullSafeEqual(_ left: SQLFragment, _ right: SQLFragment, negated: Bool) -> SQLFragment {
        left + (negated ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ") + right
    }
    func folded(_ value: SQLFragment, _ flags: Int) -> SQLFragment { sqlite.folded(value, flags) }
    func localeOrdered(_ value: SQLFragment) -> SQLFragment { sqlite.localeOrdered(value) }
    func byteOrdered(_ value: SQLFragment) -> SQLFragment { sqlite.byteOrdered(value) }
    func textTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment, flags: Int) -> SQLFragment {
        sqlite.textTest(test, text, pattern, flags: flags)
    }
    /// No function-free forms: every text test goes through `textTest`.
    func plainTextTest(_ test: ComparisonOperator, _ text: SQLFragment, _ pattern: SQLFragment,
                       byteCount: Int) -> SQLFragment? { nil }
    func isNumber(_ value: SQLFragment) -> SQLFragment { sqlite.isNumber(value) }
    func withoutAffinity(_ value: SQLFragment) -> SQLFragment { "(CASE WHEN 1 THEN " + value + " END)" }
    func realDivision(_ left: SQLFragment, _ right: SQLFragment) -> SQLFragment { sqlite.realDivision(left, right) }
    func numberOrNull(_ value: SQLFragment) -> SQLFragment { sqlite.numberOrNull(value) }
    func comparable(_ column: String, declaredType: String) -> String { sqlite.comparable(column, declaredType: declaredType) }
    func least(_ a: SQLFragment, _ b: SQLFragment) -> SQLFragment { sqlite.least(a, b) }
    func integerPart(_ value: SQLFragment) -> SQLFragment { sqlite.integerPart(value) }
    func textLength(_ value: SQLFragment) -> SQLFragment { sqlite.textLength(value) }
    func direction(ascending: Bool, nullable: Bool) -> String { ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST" }
    func bitwise(_ left: SQLFragment, _ op: ArithmeticOperator, _ right: SQLFragment) -> SQLFragment {
        sqlite.bitwise(left, op, right)
    }
    func cast(_ value: SQLFragment, toText: Bool) -> SQLFragment { sqlite.cast(value, toText: toText) }
    func function(_ name: String) -> String? { sqlite.function(name) }
    func dateText(unixSeconds column: String) -> String { sqlite.dateText(unixSeconds: column) }
    func uuidText(_ column: String) -> String { sqlite.uuidText(column) }
    func dayNumber(_ column: String) -> String { sqlite.dayNumber(column) }
    func collectionElements(_ column: String, declaredType: String) -> (from: String, valueColumn: String?)? {
        sqlite.collectionElements(column, declaredType: declaredType)
    }
    func jsonValue(_ column: String, declaredType: String, keys: [String], comparedWith literal: Value?) -> SQLFragment? {
        sqlite.jsonValue(column, declaredType: declaredType, keys: keys, comparedWith: literal)
    }
}

@Suite struct DialectTests {
    static let compilerFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/PortalEngine/Compiler")

    /// SQLite's spellings live in its dialect and its registered functions, never in the compiler.
    @Test func theCompilerSpellsNoSQLiteOfItsOwn() throws {
        let sqliteOnly = try Regex(#""[^"\n]*(portal_|IS NOT 1|typeof|COLLATE|instr\(|\browid\b|\+CAST|\bpow\()[^"\n]*"|" IS (NOT )?""#)
        let files = (FileManager.default.enumerator(atPath: Self.compilerFolder.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5)
        for file in files {
            let text = try String(contentsOf: Self.compilerFolder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(sqliteOnly) {
                Issue.record("Compiler/\(file):\(number + 1) spells SQLite: \(line)")
            }
        }
    }

    /// Parameters are numbered where they were bound: a `?` in a name, a string, a comment or
    /// an operator of the text (jsonb's `?`, `?|`, `?&`) is text.
    @Test func parametersAreNumberedWhereTheyWereBound() {
        let statement = #"SELECT "a?b", 'it''s ?', "# + SQLFragment.bound(1) + #" FROM "T""?" WHERE doc ? 'k' AND doc ?| "#
            + #"array['a'] /* ? */ AND x = "# + .bound(2)
        #expect(statement.numberingParameters { "$\($0)" }.sql
                == #"SELECT "a?b", 'it''s ?', $1 FROM "T""?" WHERE doc ? 'k' AND doc ?| array['a'] /* ? */ AND x = $2"#)
        let select = Select("T", condition: "a = " + .bound(1) + " AND b = " + .bound(2), limit: 3)
        #expect(select.rendered(in: StandardSpellingDialect()).sql == #"SELECT t0.* FROM "T" AS t0 WHERE a = ?1 AND b = ?2 LIMIT ?3"#)
    }

    /// Statements put together from parts that each bind values (an upsert's values and its
    /// conflict clause; a page's keyset bounds, IN list and limit) number them once, in order,
    /// and SQLite runs them with the numbers as given.
    @Test func statementsOfSeveralPartsNumberTheirParametersInOrder() throws {
        let dialect = StandardSpellingDialect()
        func numbers(_ sql: String) -> [Int] {
            sql.matches(of: /\?(\d+)/).compactMap { Int($0.output.1) }
        }
        let db = try Store.inMemory()
        _ = try db.write { ctx in try ctx.execute("CREATE TABLE T (id INTEGER PRIMARY KEY, name TEXT, n INTEGER)") }
        let upsert = Upsert("T", key: ["id"], columns: ["id", "name", "n"], values: [.bound(1), .bound("a"), .bound(7)])
            .rendered(in: dialect)
        #expect(numbers(upsert.sql) == [1, 2, 3] && upsert.bindings == [1, "a", 7])
        try db.write { ctx in
            for id in 1...20 {
                let row = Upsert("T", key: ["id"], columns: ["id", "name", "n"],
                                 values: [.bound(.integer(Int64(id))), .bound(.text("r\(id)")), .bound(.integer(Int64(id % 4)))],
                                 returning: .nothing).rendered(in: dialect)
                _ = try ctx.execute(row.sql, row.bindings)
            }
        }
        let keyset = Keyset.condition([Keyset.Part(expression: "t0.n", ascending: true, nullable: false),
                                       Keyset.Part(expression: "t0.id", ascending: false, nullable: false)],
                                      [.integer(1), .integer(10)], .after)
        let list = "t0.name IN (" + SQLFragment.bound(["r3", "r6", "r7", "r11", "r15"]) + ")"
        let page = Select("T", columns: .expressions([SQLFragment("t0.id")]), condition: keyset.parenthesized + " AND " + list,
                          order: SQLFragment("t0.n, t0.id DESC"), limit: 3, offset: 1).rendered(in: dialect)
        #expect(numbers(page.sql) == Array(1...page.bindings.count) && page.bindings.count == 2 + 1 + 5 + 2)
        let rows = try db.read { ctx in try ctx.query(page.sql, page.bindings).rows.map { $0.values } }
        let plain = Select("T", columns: .expressions([SQLFragment("t0.id")]), condition: keyset.parenthesized + " AND " + list,
                           order: SQLFragment("t0.n, t0.id DESC"), limit: 3, offset: 1).rendered(in: SQLiteDialect())
        #expect(rows == (try db.read { ctx in try ctx.query(plain.sql, plain.bindings).rows.map { $0.values } }))
        #expect(rows == [[.integer(15)], [.integer(11)], [.integer(7)]])
    }

    /// The same predicate in the two dialects: the standard spellings appear only in the second.
    @Test func theDialectSpellsNegationNullSafetyAndBooleans() throws {
        let db = try TestDatabase.chinook()
        let schema = try db.schema()
        let track = try #require(schema.entity(named: "Track"))
        let predicate = "NOT (Composer == Name) AND (TRUEPREDICATE OR Name == nil)"
        let sqlite = try PredicateCompiler.compile(predicate, entity: track, schema: schema, alias: "t0", dialect: .sqlite).condition
        let standard = try PredicateCompiler.compile(predicate, entity: track, schema: schema, alias: "t0",
                                                     dialect: StandardSpellingDialect()).condition
        #expect(sqlite.sql.contains("IS NOT 1") && sqlite.sql.contains(" IS "))
        #expect(standard.sql.contains("IS NOT TRUE") && standard.sql.contains("IS NOT DISTINCT FROM")
                && standard.sql.contains("TRUE"))
        #expect(!standard.sql.contains("IS NOT 1"))
        let count = "SELECT count(*) FROM Track AS t0 WHERE "
        #expect(try db.query(count + sqlite.sql, sqlite.bindings) == db.query(count + standard.sql, standard.bindings))
    }
}
