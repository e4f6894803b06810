import Testing
import DifferentialSupport
@testable import PortalEngine
import PortalSQLite

/// `[c]`, `[d]` and `[cd]` string tests compiled to SQL (the SQL functions, folding byte by byte)
/// select what the in-memory evaluator selects, on names in many languages and scripts.
@Suite struct MultilingualFoldingTests {
    static let operators = ["BEGINSWITH", "CONTAINS", "ENDSWITH", "LIKE", "=="]
    static let options = ["[c]", "[d]", "[cd]", ""]
    /// What the names are searched for: folded and unfolded spellings of parts of them.
    static let needles = ["anna", "ANNA", "ann*", "*a", "a?na", "angstrom", "ÅNGSTRÖM", "strasse", "STRASSE", "straße",
                          "istanbul", "i̇stanbul", "yilmaz", "yılmaz", "YILMAZ", "nguyen", "NGUYỄN", "łukasz", "lukasz",
                          "dvorak", "DVOŘÁK", "οδυσσευσ", "ΟΔΥΣΣΕΥΣ", "σ", "ς", "иошкар", "йошкар", "ЁЛКА", "елка",
                          "fi", "ﬁ", "ss", "ß", "東京", "서울", "e", "é", "e\u{301}", "zurich", "ZÜRICH", "ꭰ", "Ꭰ",
                          "k", "å", "ω", "👍🏽", "*", "?", ""]

    @Test func foldedStringTestsAgreeWithTheEvaluator() throws {
        let database = try TestDatabase()
        try database.execute("CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT)")
        var objects: [MemoryObject] = []
        for (index, name) in MultilingualNames.all.enumerated() {
            let row: [Value] = [.integer(Int64(index + 1)), .text(name)]
            _ = try database.query("INSERT INTO person VALUES (?, ?)", row)
            objects.append(MemoryObject(id: row[0], attributes: ["id": row[0], "name": row[1]],
                                        affinities: ["id": .integer, "name": .text]))
        }
        let schema = try database.schema()
        guard let person = schema.entity(named: "person") else { throw TestFailure("no person entity") }
        var compared = 0, selected = 0
        for op in Self.operators {
            for option in Self.options {
                for needle in Self.needles {
                    let predicate = try PredicateTree.parse("name \(op)\(option) %@", arguments: [.value(.text(needle))])
                    let expected = try objects.filter { try predicate.evaluate(with: $0) }.map(\.id)
                    let filter = try PredicateCompiler.compile(Query(predicate: predicate), entity: person, schema: schema,
                                                               alias: "t0", dialect: SQLiteDialect())
                    let select = Select(person, columns: .expressions([SQLFragment("t0.id")]), condition: filter.condition,
                                        order: SQLFragment("t0.id")).rendered(in: SQLiteDialect())
                    let found = try database.column(select.sql, select.bindings)
                    #expect(found == expected, "name \(op)\(option) \(needle.debugDescription)\nSQL: \(filter.condition.sql)")
                    compared += 1
                    selected += expected.count
                }
            }
        }
        #expect(compared == Self.operators.count * Self.options.count * Self.needles.count)
        #expect(selected > 300)
    }
}
