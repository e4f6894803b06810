import Testing
@testable import PortalPredicate
@testable import PortalEngine
import PortalSQLite

/// Random `select … group by … having …` queries on the differential worlds: the compiled SQL
/// against the same grouping and aggregation computed in Swift from the evaluator's values.
@Suite struct SelectionDifferentialTests {
    static let keys = ["name", "score", "teamId", "team.title", "ratio", "day"]
    static let arguments = ["name", "score", "ratio", "team.title", "day", "note"]

    @Test func groupedQueriesAgreeWithSwift() throws {
        var queries = 0, groupsSeen = 0
        for world in 0..<10 {
            var random = SeededRandom(seed: UInt64(0x6A0B_0000 + world))
            let data = try DifferentialWorld(random: &random)
            var generator = PredicateGenerator(random: random)
            for index in 0..<25 {
                var keys: [String] = [random.pick(Self.keys)]
                if random.chance(30) { keys.append(random.pick(Self.keys.filter { $0 != keys[0] })) }
                var items = keys.map { SelectionItem($0) }
                for n in 0..<random.int(1...3) { items.append(SelectionItem(aggregate(&random), as: "a\(n)")) }
                let having: String? = random.chance(40) ? "count() > \(random.int(0...2))" : nil
                var filter: PredicateTree? = random.chance(50) ? generator.predicate(depth: 1) : nil
                if let candidate = filter, (try? data.compare(candidate)).map({ if case .agree = $0 { true } else { false } }) != true {
                    filter = nil   // only filters both sides accept and agree on
                }
                let selection = Selection(items, groupBy: keys, having: having)
                let found = try sqlRows(data, selection, filter)
                let expected = try swiftRows(data, selection, filter)
                queries += 1
                groupsSeen += expected.count
                #expect(same(found, expected), "world \(world) query \(index): \(items.map(\.expression)) group by \(keys) having \(having ?? "-") where \(filter.map { "\($0)" } ?? "-")\nSQL \(found)\nSwift \(expected)")
            }
        }
        #expect(queries >= 200)
        #expect(groupsSeen > queries)
    }

    private func aggregate(_ random: inout SeededRandom) -> String {
        let x = random.pick(Self.arguments)
        return random.pick(["count()", "count(\(x))", "count(distinct \(x))", "min(\(x))", "max(\(x))", "sum(ratio)", "avg(ratio)"])
    }

    private func sqlRows(_ data: DifferentialWorld, _ selection: Selection, _ filter: PredicateTree?) throws -> [[Value]] {
        let compiled = try PredicateCompiler.compile(selection, entity: data.owner, schema: data.schema, alias: "t0", dialect: .sqlite)
        let condition = try filter.map { try PredicateCompiler.compile(Query(predicate: $0), entity: data.owner, schema: data.schema, alias: "t0", dialect: .sqlite).condition }
        var select = Select(data.owner, columns: .expressions(compiled.columns), condition: condition)
        select.groupBy = compiled.groupBy
        select.having = compiled.having
        let sql = select.rendered(in: SQLiteDialect())
        return try data.database.query(sql.sql, sql.bindings)
    }

    /// Groups by the keys' values (equal as SQLite compares them), then each item per group.
    private func swiftRows(_ data: DifferentialWorld, _ selection: Selection, _ filter: PredicateTree?) throws -> [[Value]] {
        let rows = try data.objects.filter { try filter?.evaluate(with: $0) ?? true }
        var groups: [(keys: [Value], members: [MemoryObject])] = []
        for object in rows {
            let keys = try selection.groupBy.map { try ExpressionTree.parse($0).evaluate(with: object) }
            if let i = groups.firstIndex(where: { zip($0.keys, keys).allSatisfy { ValueSemantics.compare($0, $1) == 0 } }) {
                groups[i].members.append(object)
            } else {
                groups.append((keys, [object]))
            }
        }
        var result: [[Value]] = []
        for group in groups {
            if let having = selection.having, let bound = Int(having.split(separator: " ").last ?? ""),
               group.members.count <= bound { continue }
            result.append(try selection.items.map { item in
                if let key = selection.groupBy.firstIndex(of: item.expression) { return group.keys[key] }
                return try aggregate(item.expression, over: group.members)
            })
        }
        return result
    }

    private func aggregate(_ text: String, over members: [MemoryObject]) throws -> Value {
        if text == "count()" { return .integer(Int64(members.count)) }
        let open = text.firstIndex(of: "(") ?? text.startIndex
        let function = String(text[..<open])
        var argument = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        let distinct = argument.hasPrefix("distinct ")
        if distinct { argument.removeFirst("distinct ".count) }
        let expression = try ExpressionTree.parse(argument)
        var values = try members.map { try expression.evaluate(with: $0) }.filter { !$0.isNull }
        if distinct {
            var unique: [Value] = []
            for v in values where !unique.contains(where: { ValueSemantics.compare($0, v) == 0 }) { unique.append(v) }
            values = unique
        }
        switch function {
        case "count": return .integer(Int64(values.count))
        case "min": return values.min { ValueSemantics.compare($0, $1) < 0 } ?? .null
        case "max": return values.max { ValueSemantics.compare($0, $1) < 0 } ?? .null
        default:
            guard !values.isEmpty else { return .null }
            let sum = values.reduce(0.0) { $0 + ValueSemantics.real($1) }
            return .real(function == "sum" ? sum : sum / Double(values.count))
        }
    }

    /// The same rows in any order; reals within a relative 1e-9.
    private func same(_ a: [[Value]], _ b: [[Value]]) -> Bool {
        guard a.count == b.count else { return false }
        var remaining = b
        for row in a {
            guard let i = remaining.firstIndex(where: { other in
                other.count == row.count && zip(other, row).allSatisfy(close)
            }) else { return false }
            remaining.remove(at: i)
        }
        return true
    }

    private func close(_ x: Value, _ y: Value) -> Bool {
        switch (x, y) {
        case let (.real(p), .real(q)): return abs(p - q) <= 1e-9 * max(1, abs(p), abs(q))
        case let (.integer(p), .real(q)), let (.real(q), .integer(p)): return abs(Double(p) - q) <= 1e-9 * max(1, abs(q))
        default: return x == y
        }
    }
}
