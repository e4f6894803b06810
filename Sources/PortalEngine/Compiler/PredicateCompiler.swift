import PortalPredicate

// The engine reaches the SQL compiler only through `PredicateCompiler.compile` and `.orderBy`.

/// A piece of SQL text with the values bound to its parameters, in order. Where each parameter
/// sits is recorded as the fragment is built (`bound`, `+`, `joined`), so that a dialect that
/// numbers its parameters (`$1`) spells each one in place without reading the text again: a `?`
/// inside a name, a string, a comment or an operator of the text is never taken for one.
public struct SQLFragment: Sendable, Hashable {
    /// The SQL text, with `?` where each parameter is.
    public internal(set) var sql: String
    /// The values bound to the parameters, in order (none for a statement whose parameters the
    /// caller binds, such as an `Insert` without values).
    public internal(set) var bindings: [Value]
    /// The UTF-8 offset in `sql` of each parameter's `?`, ascending (none once a dialect has
    /// numbered them: `SQLSpelling.numbered`).
    public internal(set) var parameterOffsets: [Int]

    /// SQL text without parameters.
    public init(_ sql: String) {
        self.sql = sql
        bindings = []
        parameterOffsets = []
    }

    init(sql: String, bindings: [Value], parameterOffsets: [Int]) {
        self.sql = sql
        self.bindings = bindings
        self.parameterOffsets = parameterOffsets
    }
}

/// One key of a sort: an attribute or to-one key path (`"Album.Title"`), ascending or not.
public struct SortKey: Sendable, Hashable {
    /// The attribute, or a dotted to-one key path.
    public var keyPath: String
    /// True for ascending order (SQLite's ordering of values), false for descending.
    public var ascending: Bool
    /// A sort by `keyPath`, ascending unless told otherwise.
    public init(_ keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}

/// A predicate compiled for one entity: the WHERE condition, and the ORDER BY and LIMIT that
/// Realm's trailing `SORT(…)`/`LIMIT(…)` clauses asked for, if any.
public struct CompiledFilter: Sendable, Hashable {
    /// A boolean SQL expression over the entity's table, referenced by the alias given to `compile`.
    public var condition: SQLFragment
    /// The keys of a trailing `SORT(…)` clause; empty when there is none.
    public var sort: [SortKey]
    /// The count of a trailing `LIMIT(…)` clause; nil when there is none.
    public var limit: Int?
    /// What the predicate probably does not mean (`"Milliseconds" > 300000` compares a string),
    /// for the user to read; empty for most.
    public var warnings: [String] = []
    /// For a Swift closure, the NSPredicate text that means the same (`explain` shows it).
    public var equivalent: String?

    /// A filter of `condition`, compiled by the caller (a row's key, a keyset bound).
    public init(condition: SQLFragment, sort: [SortKey] = [], limit: Int? = nil, warnings: [String] = [],
                equivalent: String? = nil) {
        self.condition = condition
        self.sort = sort
        self.limit = limit
        self.warnings = warnings
        self.equivalent = equivalent
    }
}

/// Compiles predicate text and sort keys against the schema. The SQL refers to the entity's
/// table through `alias` (e.g. `SELECT … FROM "Track" AS t0 WHERE <condition>`).
public enum PredicateCompiler {
    /// Parses `predicate` and compiles it against `entity` of `schema`: `%@`-style placeholders take
    /// `arguments` in order, `$name` takes `variables[name]`. Every value becomes a bound parameter.
    /// Throws a `PortalPredicateError` (with the position of the culprit when it is known).
    public static func compile(_ predicate: String, arguments: [Argument] = [], variables: [String: Argument] = [:],
                               entity: EntityDescription, schema: Schema, alias: String,
                               dialect: any SQLDialect) throws -> CompiledFilter {
        // A Swift closure (`{ $0.Milliseconds > 300_000 }`) is accepted wherever predicate text is.
        let closure = SwiftClosurePredicate.isClosure(predicate)
        let query = closure
            ? Query(predicate: try SwiftClosurePredicate.tree(predicate, entity: entity, schema: schema))
            : try Query.parse(predicate, arguments: arguments)
        let compiler = SQLCompiler(schema: schema, variables: variables, rootAlias: alias, dialect: dialect)
        do {
            var filter = try compiler.compile(query, entity: entity)
            if closure { filter.equivalent = query.predicate.description }
            return filter
        } catch var error as PortalPredicateError where error.range == nil {
            // The tree has no positions: point at the first place the text names the culprit,
            // or, for nesting, at the deepest point of the text.
            error.range = error.kind == .tooDeep ? PredicateTree.deepestNesting(in: predicate)
                : compiler.failingToken.flatMap { TokenLocator.range(of: $0, in: predicate) }
            throw error
        }
    }

    /// Compiles an already parsed query (the shell's `explain` and tests start from the tree).
    public static func compile(_ query: Query, variables: [String: Argument] = [:],
                               entity: EntityDescription, schema: Schema, alias: String,
                               dialect: any SQLDialect) throws -> CompiledFilter {
        try SQLCompiler(schema: schema, variables: variables, rootAlias: alias, dialect: dialect).compile(query, entity: entity)
    }

    /// The ORDER BY list (without the keywords) for these keys; to-one paths allowed.
    public static func orderBy(_ keys: [SortKey], entity: EntityDescription, schema: Schema,
                               alias: String, dialect: any SQLDialect) throws -> SQLFragment {
        let compiler = SQLCompiler(schema: schema, variables: [:], rootAlias: alias, dialect: dialect)
        let scope = Scope(entity: entity, alias: alias)
        let terms = try keys.map { key in
            try compiler.sortTerm(key.keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
                                  in: scope) + dialect.direction(ascending: key.ascending, nullable: true)
        }
        return .joined(terms, separator: ", ")
    }
}

/// The state of one compilation: the schema, the `$variables`, the dialect that spells the SQL,
/// and fresh aliases.
final class SQLCompiler {
    let schema: Schema
    let variables: [String: Argument]
    let dialect: any SQLDialect
    private let rootAlias: String
    private var aliasCount = 0
    /// Whether to stop a long compile (`PredicateInterruption`), asked along long chains.
    private let interruption = PredicateInterruption.requested
    /// The to-many key path the comparison being compiled ranges over, if any.
    var collection: Collection?
    /// The name or operator keyword the last error is about, to locate it in the text.
    var failingToken: String?
    /// True while compiling a selection's items, `having` or `sort by`: an aggregate of the
    /// row's values (`sum(Milliseconds)`) is then the SQL aggregate over the group's rows.
    var groupAggregates = false
    /// Set when an item compiled an aggregate over rows.
    var sawGroupAggregate = false
    /// The selection's `as` names (lowercased) and what they stand for, for `having` and `sort by`.
    var selectionNames: [String: Operand] = [:]

    init(schema: Schema, variables: [String: Argument], rootAlias: String, dialect: any SQLDialect) {
        self.schema = schema
        self.variables = variables
        self.dialect = dialect
        self.rootAlias = rootAlias
    }

    /// A new alias, distinct from every other one in this statement (`pc1`, `pc2`, …; the root
    /// alias is skipped should it be one of them).
    func newAlias() -> String {
        while true {
            aliasCount += 1
            let alias = "pc" + String(aliasCount)
            if alias.utf8.count != rootAlias.utf8.count || alias != rootAlias.lowercased() { return alias }
        }
    }

    func compile(_ query: Query, entity: EntityDescription) throws -> CompiledFilter {
        let condition = try predicate(query.predicate, in: Scope(entity: entity, alias: rootAlias))
        try SQLNesting.check(condition, in: dialect)
        // SQLite binds at least 999 values in any build: below that its limit need not be asked.
        if condition.bindings.count > 999, let most = dialect.maximumBindings, condition.bindings.count > most {
            throw PortalPredicateError(.invalidOperation, "the predicate compares with \(condition.bindings.count) values, "
                                     + "more than one statement can bind (\(most)): split it")
        }
        let sort = query.sort.map { SortKey($0.keyPath.joined(separator: "."), ascending: $0.ascending) }
        return CompiledFilter(condition: condition, sort: sort, limit: query.limit,
                              warnings: QuotedNameWarnings.warnings(query.predicate, entity: entity))
    }

    /// A boolean SQL expression, true exactly when NSPredicate's two-valued logic says true.
    /// Comparisons may yield NULL for "false"; AND and OR treat that as false already, and NOT
    /// is the dialect's "is not true", so NULL never turns into true.
    func predicate(_ predicate: PredicateTree, in scope: Scope) throws -> SQLFragment {
        switch predicate {
        case .constant(let value):
            return .raw(dialect.boolean(value))
        case .not:
            // A run of NOTs is one negation or none: SQLite's parser never sees the run.
            var inner = predicate, count = 0
            while case .not(let next) = inner {
                inner = next
                count += 1
            }
            let sql = try self.predicate(inner, in: scope)
            return count % 2 == 0 ? sql : dialect.isNotTrue(sql)
        case .and(let operands):
            return try chain(operands, isAnd: true, in: scope)
        case .or(let operands):
            return try chain(operands, isAnd: false, in: scope)
        case .comparison(let comparison):
            return try self.comparison(comparison, in: scope)
        }
    }

    /// Operands of one `AND` or `OR` chain; an operand that is the same kind of chain (written in
    /// parentheses) joins it, as the operators are associative.
    private func chain(_ operands: [PredicateTree], isAnd: Bool, in scope: Scope) throws -> SQLFragment {
        var parts: [SQLFragment] = []
        var pending = Array(operands.reversed())
        while let next = pending.popLast() {
            try PredicateInterruption.poll(parts.count &+ 1, interruption)
            switch next {
            case .and(let inner) where isAnd: pending.append(contentsOf: inner.reversed())
            case .or(let inner) where !isAnd: pending.append(contentsOf: inner.reversed())
            default: parts.append(try predicate(next, in: scope))
            }
        }
        guard !parts.isEmpty else { return .raw(dialect.boolean(isAnd)) }
        return SQLCompiler.grouped(isAnd ? parts : try equalitiesAsLists(parts), separator: isAnd ? " AND " : " OR ")
    }

    /// An OR chain's `column = ?` terms on one column become one `column IN (…)`, in the place of
    /// the first: SQLite analyses an OR chain in time that grows with the square of its length
    /// (minutes for 100,000 terms on a column without an index) and a list in linear time. The
    /// two mean the same on both databases: `a IN (x, y)` is `a = +x OR a = +y`, and a bound
    /// value has no affinity of its own. Only a bare column on the left qualifies, so that no
    /// operator of the term can bind tighter or looser than the `=`.
    private func equalitiesAsLists(_ parts: [SQLFragment]) throws(PortalPredicateError) -> [SQLFragment] {
        var values: [String: [Value]] = [:]
        var columns: [String?] = []
        columns.reserveCapacity(parts.count)
        for part in parts {
            try PredicateInterruption.poll(columns.count &+ 1, interruption)
            let column = Self.comparedColumn(part)
            columns.append(column)
            if let column { values[column, default: []].append(part.bindings[0]) }
        }
        guard values.values.contains(where: { $0.count > 1 }) else { return parts }
        var folded: [SQLFragment] = []
        for (part, column) in zip(parts, columns) {
            guard let column, let list = values[column], list.count != 1 else {
                folded.append(part)
                continue
            }
            guard !list.isEmpty else { continue }   // in the list already emitted
            values[column] = []
            folded.append(dialect.membership(.raw(column), inLiterals: list)
                          ?? .raw(column) + " IN (" + .joined(list.map(SQLFragment.bound), separator: ", ") + ")")
        }
        return folded
    }

    /// The column of a term `alias."column" = ?` (one bound value), or nil for any other term.
    static func comparedColumn(_ part: SQLFragment) -> String? {
        guard part.bindings.count == 1, part.parameterOffsets == [part.sql.utf8.count - 1], part.sql.hasSuffix(" = ?") else {
            return nil
        }
        let column = part.sql.utf8.dropLast(4)
        guard let dot = column.firstIndex(of: UInt8(ascii: ".")),
              column[..<dot].allSatisfy({ $0 == UInt8(ascii: "_") || (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) }),
              isQuotedName(column[column.index(after: dot)...]) else { return nil }
        return String(column)
    }

    /// True for `"name"` with inner quotes doubled.
    private static func isQuotedName(_ text: Substring.UTF8View) -> Bool {
        let quote = UInt8(ascii: "\"")
        guard text.count >= 2, text.first == quote, text.last == quote else { return false }
        var inner = text.dropFirst().dropLast().makeIterator()
        while let byte = inner.next() {
            if byte == quote, inner.next() != quote { return false }
        }
        return true
    }

    /// The most operands one parenthesised group of a chain holds.
    static let chainGroup = 64

    /// `(a OR b OR …)` in groups of at most `chainGroup`, groups of groups above that: SQLite
    /// builds a chain as a left-deep tree, whose depth (limit 1,000) this keeps to about
    /// `chainGroup` times the logarithm of the length.
    static func grouped(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var level = parts
        repeat {
            level = stride(from: 0, to: level.count, by: chainGroup).map { start in
                SQLFragment.joined(Array(level[start..<min(start + chainGroup, level.count)]), separator: separator)
                    .parenthesized
            }
        } while level.count > 1
        return level.first ?? .raw("1")
    }

    /// One ORDER BY term: an attribute or a to-one key path.
    func sortTerm(_ names: [String], in scope: Scope) throws -> SQLFragment {
        let operand = try keyPath(root: scope, names[...])
        guard collection == nil, case .scalar(let sql, _) = operand else {
            throw PortalPredicateError(.invalidOperation,
                                 "cannot sort \(scope.entity.name) by '\(names.joined(separator: "."))': "
                                     + "only attributes and to-one key paths sort")
        }
        return sql
    }
}
