import PortalPredicate
import Synchronization

extension Portal {
    /// A predicate on `Entity` compiled once and run many times with new values for its
    /// `$variables`:
    ///
    ///     let longer = try Portal<Track>.Query(where: "Milliseconds > $ms", in: store)
    ///     let tracks = try store.read { ctx in try ctx.fetch(longer, ["ms": 300_000]) }
    ///
    /// Construction parses the text and checks its names against the schema: a typo fails there,
    /// with the position of the culprit (`PortalError.predicateError`). The SQL of each shape of
    /// values (their kinds, a list's length) is compiled on the first run with that shape and
    /// reused, the values only re-bound; a predicate whose SQL depends on the values themselves
    /// (a `BEGINSWITH` range, a date parsed from text, `now()`) is compiled again for each run.
    public struct Query: Sendable {
        /// The predicate text.
        public let predicate: String
        /// The order of the results (a trailing `SORT(…)` in the text is used when this is empty).
        public let sortedBy: [SortKey]
        /// At most this many results (with the text's `LIMIT(…)`, the smaller).
        public let limit: Int?
        /// The names of the free `$variables`, sorted: each run needs a value for each.
        public let variables: [String]
        let parsed: PortalPredicate.Query
        let store: Store
        let plans = QueryPlans()

        /// Parses `predicate` and checks its names against `Entity`'s table in `store`.
        public init(where predicate: String, sortedBy: [SortKey] = [], limit: Int? = nil, in store: Store) throws {
            do {
                parsed = try PortalPredicate.Query.parse(predicate)
            } catch {
                throw PortalError.invalidPredicate(error, entity: Entity.entityName)
            }
            self.predicate = predicate
            self.sortedBy = sortedBy
            self.limit = limit
            self.store = store
            variables = FreeVariables.of(parsed.predicate).sorted()
            let (variables, parsed) = (variables, parsed)
            try store.read { ctx in try Self.check(predicate, parsed, variables, sortedBy, ctx) }
        }

        /// Compiles the text once with a sample value of each kind for every variable: an unknown
        /// name fails whatever the values. Other failures may come from the sample values alone
        /// (text where a number is needed): they are reported at run time, with the real values,
        /// unless the predicate has no variable.
        private static func check(_ text: String, _ parsed: PortalPredicate.Query, _ variables: [String],
                                  _ sortedBy: [SortKey], _ ctx: ReadContext) throws {
            var firstFailure: (any Error)?
            for sample: Value in [.integer(1), .text("a"), .real(0.5)] {
                let values = Dictionary(uniqueKeysWithValues: variables.map { ($0, Argument.value(sample)) })
                do {
                    _ = try ctx.select(Entity.entityName, .typedRows(includeRowid: false), filter: { entity, schema in
                        try PredicateCompiler.compile(text, variables: values, entity: entity, schema: schema, alias: "t0",
                                                      dialect: ctx.store.dialect)
                    }, sortedBy, nil, nil)
                    return
                } catch let error as PortalError where error.kind == .predicate && error.predicateError?.kind != .unknownName {
                    firstFailure = firstFailure ?? error
                }
            }
            if variables.isEmpty, let firstFailure { throw firstFailure }
        }

        /// The SELECT for one run.
        func fragment(_ values: [String: Argument], in ctx: ReadContext) throws -> SQLFragment {
            guard ctx.store === store, variables.allSatisfy({ values[$0] != nil }) else { return try compiled(values, in: ctx) }
            let shape = QueryShape(variables.map { values[$0] ?? .value(.null) })
            if let plan = plans.plan(for: shape) {
                guard case .template(let template) = plan else { return try compiled(values, in: ctx) }
                return template.filled(with: variables.map { values[$0] ?? .value(.null) })
            }
            // First run of this shape: compile with these values and with stand-ins of the same
            // shape; the bindings that follow the values are the template's slots.
            let fragment = try compiled(values, in: ctx)
            let standIns = shape.standIns(count: variables.count)
            let other = try? compiled(Dictionary(uniqueKeysWithValues: zip(variables, standIns)), in: ctx)
            let given = variables.map { values[$0] ?? .value(.null) }
            let template = other.flatMap { QueryTemplate(fragment, given: given, other: $0, standIns: standIns) }
            plans.store(template.map(QueryPlan.template) ?? .compileEachRun, for: shape)
            return fragment
        }

        private func compiled(_ values: [String: Argument], in ctx: ReadContext) throws -> SQLFragment {
            try ctx.select(Entity.entityName, .typed(Entity.self), filter: { entity, schema in
                try PredicateCompiler.compile(parsed, variables: values, entity: entity, schema: schema, alias: "t0",
                                              dialect: ctx.store.dialect)
            }, sortedBy, limit, nil)
        }
    }

    /// `predicate` compiled once for this portal's store (see `Query`).
    public func query(where predicate: String, sortedBy: [SortKey] = [], limit: Int? = nil) throws -> Query {
        try Query(where: predicate, sortedBy: sortedBy, limit: limit, in: store)
    }

    /// The entities matching `query` with these values for its `$variables`.
    public func findAll(_ query: Query, _ variables: [String: any ArgumentConvertible] = [:]) throws -> [Entity] {
        try store.read { ctx in try ctx.fetch(query, variables) }
    }
}

extension ReadContext {
    /// The entities matching a compiled query with these values for its `$variables`.
    public func fetch<T: PortalEntity>(_ query: Portal<T>.Query,
                                       _ variables: [String: any ArgumentConvertible] = [:]) throws -> [T] {
        let fragment = try query.fragment(variables.mapValues(\.predicateArgument), in: self)
        return try fetch(T.self, fragment)
    }

    /// Streams the entities matching a compiled query to `body`, one at a time.
    public func forEach<T: PortalEntity>(_ query: Portal<T>.Query, _ variables: [String: any ArgumentConvertible] = [:],
                                         _ body: (T) throws -> Void) throws {
        let fragment = try query.fragment(variables.mapValues(\.predicateArgument), in: self)
        try forEach(T.self, fragment, body)
    }
}

/// The kinds of a run's values: runs of one shape share their SQL.
struct QueryShape: Hashable {
    let kinds: [Int]

    init(_ arguments: [Argument]) {
        var kinds: [Int] = []
        for argument in arguments {
            switch argument {
            case .value(let value): kinds.append(Self.kind(value))
            case .list(let values):
                kinds.append(-1 - values.count)
                kinds.append(contentsOf: values.map(Self.kind))
            case .date: kinds.append(Self.dateKind)
            }
        }
        self.kinds = kinds
    }

    /// A date argument: compiled to values of its own (date text, seconds), so a run with one
    /// finds no template and is compiled anew (`QueryTemplate` matches no binding to it).
    private static let dateKind = 8

    /// Empty, ASCII and other text apart: the compiler treats them differently.
    private static func kind(_ value: Value) -> Int {
        switch value {
        case .null: return 0
        case .integer: return 1
        case .real, .decimal: return 2
        case .text(let text): return text.isEmpty ? 3 : text.utf8.allSatisfy { $0 < 128 } ? 4 : 5
        case .blob(let bytes): return bytes.isEmpty ? 6 : 7
        }
    }

    /// Values of this shape, each unlike any value a caller is likely to give (mixed case,
    /// LIKE's wildcards: a compiler that rewrites a value shows it by not binding it as given).
    func standIns(count: Int) -> [Argument] {
        var arguments: [Argument] = []
        var slot = 0
        func standIn(_ kind: Int) -> Value {
            slot += 1
            switch kind {
            case 1: return .integer(0x5EED_0000_0000 + Int64(slot))
            case 2: return .real(0x5EED_0000_0000 + Double(slot) + 0.5)
            case 3: return .text("")
            case 4: return .text("\u{1}Portal%_Slot\(slot)")
            case 5: return .text("\u{1}Pörtal%_Slot\(slot)")
            case 6: return .blob([])
            case 7: return .blob([0x5E, 0xED, UInt8(truncatingIfNeeded: slot), UInt8(truncatingIfNeeded: slot >> 8)])
            default: return .null
            }
        }
        var i = 0
        while i < kinds.count {
            if kinds[i] < 0 {
                let count = -1 - kinds[i]
                arguments.append(.list(kinds[(i + 1)..<(i + 1 + count)].map(standIn)))
                i += 1 + count
            } else if kinds[i] == Self.dateKind {
                slot += 1
                arguments.append(.date(0x5EED_0000 + Double(slot) + 0.25))
                i += 1
            } else {
                arguments.append(.value(standIn(kinds[i])))
                i += 1
            }
        }
        return arguments
    }
}

/// The SQL of one shape, and where each value goes among its bindings.
struct QueryTemplate: Sendable {
    let fragment: SQLFragment
    /// (binding, value): binding number `binding` takes the run's flattened value number `value`.
    let slots: [(binding: Int, value: Int)]

    /// Compares the compilations of two sets of values of one shape: same SQL, and each binding
    /// either the same constant in both or the very value given in each. Nil otherwise.
    init?(_ fragment: SQLFragment, given: [Argument], other: SQLFragment, standIns: [Argument]) {
        guard fragment.sql == other.sql, fragment.bindings.count == other.bindings.count else { return nil }
        let givenValues = given.flatMap(Self.flattened)
        let standInValues = standIns.flatMap(Self.flattened)
        var slots: [(binding: Int, value: Int)] = []
        for (i, (mine, theirs)) in zip(fragment.bindings, other.bindings).enumerated() where mine != theirs {
            guard let value = standInValues.firstIndex(of: theirs), givenValues[value] == mine else { return nil }
            slots.append((i, value))
        }
        // A stand-in bound nowhere (a value the compiler folded into the SQL) cannot be re-bound.
        let bound = Set(slots.map(\.value))
        guard standInValues.indices.allSatisfy({ bound.contains($0) || standInValues[$0] == givenValues[$0] }) else { return nil }
        self.fragment = fragment
        self.slots = slots
    }

    static func flattened(_ argument: Argument) -> [Value] {
        switch argument {
        case .value(let value): return [value]
        case .list(let values): return values
        case .date(let seconds): return [.real(seconds)]
        }
    }

    func filled(with arguments: [Argument]) -> SQLFragment {
        var values: [Value] = []
        for argument in arguments {
            switch argument {
            case .value(let value): values.append(value)
            case .list(let list): values.append(contentsOf: list)
            case .date(let seconds): values.append(.real(seconds))
            }
        }
        var bindings = fragment.bindings
        for slot in slots { bindings[slot.binding] = values[slot.value] }
        return fragment.rebound(bindings)
    }
}

enum QueryPlan: Sendable {
    case template(QueryTemplate)
    /// The SQL depends on the values themselves: compiled for each run.
    case compileEachRun
}

/// The plans of a query's shapes, shared by its copies and the threads that run them.
final class QueryPlans: Sendable {
    private let plans = Mutex<[QueryShape: QueryPlan]>([:])

    func plan(for shape: QueryShape) -> QueryPlan? { plans.withLock { $0[shape] } }
    func store(_ plan: QueryPlan, for shape: QueryShape) { plans.withLock { $0[shape] = plan } }
}

/// The `$variables` of a predicate not bound by a `SUBQUERY`.
enum FreeVariables {
    static func of(_ predicate: PredicateTree) -> Set<String> {
        var names = Set<String>()
        collect(predicate, bound: [], into: &names)
        return names
    }

    private static func collect(_ predicate: PredicateTree, bound: [String], into names: inout Set<String>) {
        switch predicate {
        case .constant: break
        case .not(let inner): collect(inner, bound: bound, into: &names)
        case .and(let operands), .or(let operands):
            for operand in operands { collect(operand, bound: bound, into: &names) }
        case .comparison(let comparison):
            collect(comparison.left, bound: bound, into: &names)
            collect(comparison.right, bound: bound, into: &names)
        }
    }

    private static func collect(_ expression: ExpressionTree, bound: [String], into names: inout Set<String>) {
        switch expression {
        case .literal, .self, .key: break
        case .variable(let name): if !bound.contains(name) { names.insert(name) }
        case .member(let base, _), .cast(let base, _), .negate(let base): collect(base, bound: bound, into: &names)
        case .subscript(let base, let index):
            collect(base, bound: bound, into: &names)
            if case .expression(let inner) = index { collect(inner, bound: bound, into: &names) }
        case .aggregate(let elements), .function(_, let elements):
            for element in elements { collect(element, bound: bound, into: &names) }
        case .arithmetic(let left, _, let right):
            collect(left, bound: bound, into: &names)
            collect(right, bound: bound, into: &names)
        case .subquery(let collection, let variable, let inner):
            collect(collection, bound: bound, into: &names)
            collect(inner, bound: bound + [variable], into: &names)
        }
    }
}
