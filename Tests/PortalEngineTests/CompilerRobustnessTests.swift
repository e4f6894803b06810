import CSQLite
import Testing
@testable import PortalEngine
import PortalSQLite

/// Arbitrary trees — valid or not — compile to SQL that SQLite accepts, or to a PortalPredicateError;
/// never to a crash or to SQL that fails to prepare.
@Suite struct CompilerRobustnessTests {
    @Test func arbitraryTreesCompileOrFailCleanly() throws {
        let database = try TestDatabase.chinook()
        let schema = try database.schema()
        var random = SeededRandom(seed: 0xC0FFEE)
        var compiled = 0, rejected = 0
        for index in 0..<10_000 {
            let entity = random.pick(["Track", "Album", "Artist", "Customer", "Employee", "PlaylistTrack"])
            guard let description = schema.entity(named: entity) else { throw TestFailure("no \(entity)") }
            var generator = ArbitraryTrees(random: random,
                                           valid: description.attributes.map(\.name) + description.relationships.map(\.name))
            let predicate = generator.predicate(depth: 0)
            random = generator.random
            let filter: CompiledFilter
            do {
                filter = try PredicateCompiler.compile(Query(predicate: predicate), variables: ["v": .value(3), "l": .list([1, "a"])],
                                                       entity: description, schema: schema, alias: "t0", dialect: .sqlite)
            } catch is PortalPredicateError {
                rejected += 1
                continue
            }
            compiled += 1
            var statement: OpaquePointer?
            let sql = "SELECT 1 FROM \(SQLiteDialect().quoted(description.name)) AS t0 WHERE \(filter.condition.sql)"
            let rc = sqlite3_prepare_v2(database.db, sql, -1, &statement, nil)
            sqlite3_finalize(statement)
            #expect(rc == SQLITE_OK, "case \(index): \(predicate)\n\(sql)\n\(String(cString: sqlite3_errmsg(database.db)))")
            #expect(sqlite3_bind_parameter_count_of(sql, database) == filter.condition.bindings.count, "case \(index): \(sql)")
        }
        // Both outcomes must really happen, or the generator tests nothing.
        #expect(compiled > 600 && rejected > 600, "compiled \(compiled), rejected \(rejected)")
    }
}

/// The number of `?` parameters SQLite sees in `sql`.
private func sqlite3_bind_parameter_count_of(_ sql: String, _ database: TestDatabase) -> Int {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(database.db, sql, -1, &statement, nil) == SQLITE_OK else { return -1 }
    defer { sqlite3_finalize(statement) }
    return Int(sqlite3_bind_parameter_count(statement))
}

/// Random trees over Chinook-like names, misspelled names, every operator, option, quantifier
/// and expression form.
struct ArbitraryTrees {
    var random: SeededRandom
    /// The entity's own names, picked most of the time so that many trees compile.
    var valid: [String]

    mutating func name() -> String { random.chance(75) && !valid.isEmpty ? random.pick(valid) : random.pick(Self.names) }

    static let names = ["Name", "name", "Composer", "Milliseconds", "Album", "Artist", "Title", "tracks", "albums",
                        "AlbumId", "Genre", "ReportsTo", "SupportRep", "customers", "invoices", "Total", "Nmae",
                        "employees", "FirstName", "playlistTracks", "Playlist", "Track", "UnitPrice", "@count", "@sum",
                        "@avg", "@min", "@max", "Country", "invoiceLines", "Quantity", "#x"]
    static let functions = ["lowercase", "uppercase", "abs", "sqrt", "floor", "ceiling", "trunc", "ln", "log", "exp",
                            "now", "length", "sum", "count", "min", "max", "average", "lenght", "random"]
    static let values: [Value] = [.null, 1, -2, 2.5, "a", "", "x'y\"z", "2021-01-01", .blob([0, 1])]

    mutating func predicate(depth: Int) -> PredicateTree {
        if depth > 3 || random.chance(45) {
            return random.chance(4) ? .constant(random.chance(50)) : .comparison(comparison(depth: depth))
        }
        switch random.int(0...2) {
        case 0: return .not(predicate(depth: depth + 1))
        case 1: return .and(predicate(depth: depth + 1), predicate(depth: depth + 1))
        default: return .or(predicate(depth: depth + 1), predicate(depth: depth + 1))
        }
    }

    mutating func comparison(depth: Int) -> Comparison {
        let options = ComparisonOptions(rawValue: UInt8(random.int(0...7)))
        return Comparison(quantifier: random.chance(25) ? random.pick(Quantifier.allCases) : nil,
                          expression(depth: depth), random.pick(ComparisonOperator.allCases), options: options,
                          expression(depth: depth))
    }

    mutating func expression(depth: Int) -> ExpressionTree {
        if depth > 4 { return random.chance(50) ? .literal(random.pick(Self.values)) : .key(name()) }
        switch random.int(0...17) {
        case 0, 1, 15: return .literal(random.pick(Self.values))
        case 2, 3, 16, 17: return .key(name())
        case 4, 5: return .member(expression(depth: depth + 2), random.pick(Self.names))
        case 6: return .self
        case 7: return .variable(random.pick(["v", "l", "x", "missing"]))
        case 8: return .aggregate((0..<random.int(0...3)).map { _ in expression(depth: depth + 2) })
        case 9:
            return .function(random.pick(Self.functions), (0..<random.int(0...2)).map { _ in expression(depth: depth + 2) })
        case 10:
            return .member(.subquery(collection: .key(random.pick(Self.names)), variable: "x",
                                     predicate: predicate(depth: depth + 2)), random.pick(["@count", "Name"]))
        case 11: return .cast(expression(depth: depth + 2), random.pick(["NSDate", "NSNumber", "NSString", "Foo"]))
        case 12: return .arithmetic(expression(depth: depth + 2), random.pick(ArithmeticOperator.allCases),
                                    expression(depth: depth + 2))
        case 13: return .negate(expression(depth: depth + 2))
        default:
            let index: SubscriptIndex = random.pick([.first, .last, .size, .expression(.literal(1)),
                                                     .expression(.key("Name"))])
            return .subscript(expression(depth: depth + 2), index)
        }
    }
}
