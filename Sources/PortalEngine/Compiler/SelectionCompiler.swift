import PortalPredicate

// `find E select ITEM [as NAME], … [group by KEY, …] [having P] [sort by …]`: each item an
// expression of the predicate language or an aggregate, compiled into one SELECT's columns,
// GROUP BY and HAVING. Names given by `as` may be used in `having` and `sort by`.

/// One column of a selection: an expression (`Name`, `Album.Title`, `Milliseconds / 1000`,
/// `sum(Total)`, `count(distinct Country)`) and the name of its column.
public struct SelectionItem: Sendable, Hashable {
    /// The expression, as written.
    public var expression: String
    /// The name given by `as`, if any.
    public var name: String?

    /// An item; without `as`, the column is named by the expression's text.
    public init(_ expression: String, as name: String? = nil) {
        self.expression = expression
        self.name = name
    }

    /// The column's name: the `as` name, else the expression's text.
    public var columnName: String { name ?? expression.trimmed }
}

/// What a projection reads: its items, and how rows are grouped and filtered by group.
public struct Selection: Sendable, Hashable {
    /// The columns.
    public var items: [SelectionItem]
    /// Drop duplicate rows.
    public var distinct: Bool
    /// The group keys: expressions (usually attributes or to-one key paths).
    public var groupBy: [String]
    /// A predicate on groups, which may use aggregates and the items' names.
    public var having: String?

    /// A selection of `items`.
    public init(_ items: [SelectionItem], distinct: Bool = false, groupBy: [String] = [], having: String? = nil) {
        self.items = items
        self.distinct = distinct
        self.groupBy = groupBy
        self.having = having
    }
}

/// A selection compiled for one entity: the parts of a `Select`.
public struct CompiledSelection: Sendable, Hashable {
    /// `expression AS "name"`, one per item.
    public var columns: [SQLFragment]
    /// The columns' names, in order.
    public var names: [String]
    /// The GROUP BY terms.
    public var groupBy: [SQLFragment]
    /// The HAVING condition.
    public var having: SQLFragment?
    /// The ORDER BY terms of the sort keys given (which may name items).
    public var order: SQLFragment?
    /// `SELECT DISTINCT`.
    public var distinct: Bool
}

/// The part of a selection a compile error is in (`PortalError.selectionPart`); the error's
/// `predicateError.range` is within that part's text.
public enum SelectionPart: Sendable, Hashable {
    case item(Int), groupKey(Int), having, sortKey(Int)

    /// The part, as a message names it.
    public var name: String {
        switch self {
        case .item(let index): "column \(index + 1)"
        case .groupKey(let index): "group key \(index + 1)"
        case .having: "having"
        case .sortKey(let index): "sort key \(index + 1)"
        }
    }
}

extension PortalError {
    /// A part of a selection over `entity` that did not compile: `.predicate`, with the part and
    /// the predicate error; an interrupted compile is `.interrupted`.
    static func invalidSelection(_ error: PortalPredicateError, part: SelectionPart, entity: String) -> PortalError {
        guard error.kind != .interrupted else { return PortalError(.interrupted, "interrupted") }
        var wrapped = PortalError(.predicate, "invalid selection for \(entity) (\(part.name)): \(error.message)",
                                  entity: entity, suggestion: error.suggestion)
        wrapped.predicateError = error
        wrapped.selectionPart = part
        return wrapped
    }
}

extension PredicateCompiler {
    /// Compiles `selection` against `entity`; `sort` keys may name items (by `as` name or text).
    /// Throws a `.predicate` `PortalError` naming the part at fault (`selectionPart`).
    public static func compile(_ selection: Selection, sortedBy sort: [SortKey] = [], variables: [String: Argument] = [:],
                               entity: EntityDescription, schema: Schema, alias: String,
                               dialect: any SQLDialect) throws(PortalError) -> CompiledSelection {
        let compiler = SQLCompiler(schema: schema, variables: variables, rootAlias: alias, dialect: dialect)
        return try compiler.compile(selection, sort: sort, in: Scope(entity: entity, alias: alias))
    }
}

extension SQLCompiler {
    func compile(_ selection: Selection, sort: [SortKey], in scope: Scope) throws(PortalError) -> CompiledSelection {
        groupAggregates = true
        var values: [SQLFragment] = [], names: [String] = [], aggregated: [Bool] = []
        var storages: [StorageConvention] = []
        for (index, item) in selection.items.enumerated() {
            let (sql, isAggregate) = try part(.item(index), item.expression, of: scope.entity) { try scalarItem($0, in: scope) }
            values.append(sql)
            storages.append(storage(of: item.expression, in: scope))
            names.append(item.columnName)
            aggregated.append(isAggregate)
            selectionNames[item.columnName.lowercased()] = .scalar(sql.parenthesized, .computed)
        }
        var groupBy: [SQLFragment] = []
        for (index, key) in selection.groupBy.enumerated() {
            let (sql, isAggregate) = try part(.groupKey(index), key, of: scope.entity) { try scalarItem($0, in: scope, named: false) }
            if isAggregate {
                throw .invalidSelection(PortalPredicateError(.invalidOperation, "an aggregate cannot be a group key"),
                                        part: .groupKey(index), entity: scope.entity.name)
            }
            groupBy.append(sql)
            // An item that is this key says it in the same words: a server matches the select
            // list to GROUP BY by its text (a to-one path's subquery has fresh aliases each time).
            for (item, written) in selection.items.enumerated() where Self.normalized(written.expression) == Self.normalized(key) {
                values[item] = sql
                selectionNames[written.columnName.lowercased()] = .scalar(sql.parenthesized, .computed)
            }
        }
        if aggregated.contains(true) || !groupBy.isEmpty {
            try checkGrouped(selection, aggregated, scope.entity)
        }
        let columns = values.indices.map { shown(values[$0], storages[$0]) + " AS " + dialect.quoted(names[$0]) }
        let having = try selection.having.map { text throws(PortalError) in
            try part(.having, text, of: scope.entity) { text in (try predicate(PredicateTree.parse(text), in: scope), false) }.0
        }
        var order: [SQLFragment] = []
        for (index, key) in sort.enumerated() {
            let (sql, _) = try part(.sortKey(index), key.keyPath, of: scope.entity) { try scalarItem($0, in: scope, named: true) }
            order.append(sql + dialect.direction(ascending: key.ascending, nullable: true))
        }
        return CompiledSelection(columns: columns, names: names, groupBy: groupBy, having: having,
                                 order: order.isEmpty ? nil : .joined(order, separator: ", "), distinct: selection.distinct)
    }

    /// The storage convention of the attribute an item shows: a Core Data date or UUID attribute
    /// (through to-one key paths too), or the `min`/`max` of one; `.natural` for anything else.
    private func storage(of text: String, in scope: Scope) -> StorageConvention {
        guard let expression = try? ExpressionTree.parse(text) else { return .natural }
        var shown = expression
        switch expression {
        case .function(let name, let arguments) where ["min", "max"].contains(name) && arguments.count == 1: shown = arguments[0]
        case .member(let base, let key) where ["@min", "@max"].contains(key.lowercased()): shown = base
        default: break
        }
        // Compiled again only to learn its attribute; a to-many path here is no scalar.
        guard case .scalar(_, let info)? = try? operand(shown, in: scope) else { return .natural }
        return info.attribute?.storage ?? .natural
    }

    /// A selected value as shown: Core Data's dates as date text, its UUID blobs as UUID text
    /// (as `find` shows whole rows); compared and sorted by the stored value.
    private func shown(_ sql: SQLFragment, _ storage: StorageConvention) -> SQLFragment {
        // The conversions name the value several times: bound values would not repeat with it.
        guard sql.bindings.isEmpty else { return sql }
        return switch storage {
        case .natural: sql
        case .secondsSinceReferenceDate: SQLFragment(dialect.dateText(unixSeconds: sql.sql))
        case .uuidBlob: SQLFragment(dialect.uuidText(sql.sql))
        case .archivedValue: sql   // already decoded: the operand is its language value
        }
    }

    /// One expression as one value per row (or per group), and whether it aggregates rows.
    private func scalarItem(_ text: String, in scope: Scope, named: Bool = true) throws -> (SQLFragment, Bool) {
        if named, let operand = selectionNames[text.trimmed.lowercased()],
           case .scalar(let sql, _) = operand {
            return (sql, false)
        }
        sawGroupAggregate = false
        let expression = try ExpressionTree.parse(Self.rewritingCountDistinct(text))
        switch try operand(expression, in: scope) {
        case .scalar(let sql, _): return (sql, sawGroupAggregate)
        case .date(let seconds): return (.bound(.real(seconds)), false)
        case let other:
            throw PortalPredicateError(.invalidOperation, "a column needs one value per row, not \(other.kindDescription)")
        }
    }

    /// Each item that is not an aggregate must be a group key (by its text, or by its name where
    /// no attribute or relationship has that name), or a constant.
    private func checkGrouped(_ selection: Selection, _ aggregated: [Bool], _ entity: EntityDescription) throws(PortalError) {
        let keys = Set(selection.groupBy.map(Self.normalized))
        func groupedByName(_ item: SelectionItem) -> Bool {
            keys.contains(Self.normalized(item.columnName)) && entity.attribute(named: item.columnName) == nil
                && entity.relationship(named: item.columnName) == nil
        }
        for (index, item) in selection.items.enumerated()
        where !aggregated[index] && !keys.contains(Self.normalized(item.expression)) && !groupedByName(item) {
            let parsed = try? ExpressionTree.parse(item.expression)
            if case .literal? = parsed { continue }
            let error = PortalPredicateError(.invalidOperation, Self.notGroupedMessage(item.expression.trimmed, parsed, entity),
                                             range: 0..<item.expression.count)
            throw .invalidSelection(error, part: .item(index), entity: entity.name)
        }
    }

    /// Why an item of a grouped selection is refused. An aggregate over a to-many path
    /// (`avg(tracks.Milliseconds)`) is one value per row of the entity, not per group: the
    /// related entity is the one to group.
    private static func notGroupedMessage(_ text: String, _ parsed: ExpressionTree?, _ entity: EntityDescription) -> String {
        if case .function(let name, let arguments)? = parsed, ["sum", "count", "min", "max", "average", "avg"].contains(name),
           let path = arguments.first.flatMap(Self.firstKey), let relationship = entity.relationship(named: path),
           relationship.kind == .toMany {
            return "'\(text)' aggregates each \(entity.name)'s \(relationship.name), one value per \(entity.name), not per group: "
                + "select from \(relationship.destination) and group there, or add it to 'group by'"
        }
        return "'\(text)' is neither a group key nor an aggregate: add it to 'group by', or aggregate it (min(…), max(…), count(…))"
    }

    /// The first name of a key path (`tracks` of `tracks.Milliseconds`).
    private static func firstKey(_ expression: ExpressionTree) -> String? {
        switch expression {
        case .key(let name): return name
        case .member(let base, _): return firstKey(base)
        default: return nil
        }
    }

    /// Runs `body` on one part's text, naming the part in a failure and locating its culprit.
    private func part<T>(_ part: SelectionPart, _ text: String, of entity: EntityDescription,
                         _ body: (String) throws -> T) throws(PortalError) -> T {
        failingToken = nil
        do {
            return try body(text)
        } catch var error as PortalPredicateError {
            if error.range == nil { error.range = failingToken.flatMap { TokenLocator.range(of: $0, in: text) } }
            throw .invalidSelection(error, part: part, entity: entity.name)
        } catch {
            throw .invalidSelection(PortalPredicateError(.invalidOperation, "\(error)"), part: part, entity: entity.name)
        }
    }

    private static func normalized(_ text: String) -> String {
        String(text.lowercased().filter { !$0.isWhitespace })
    }

    /// `count(distinct X)` → `countdistinct(X)` padded to the same length, so that positions in
    /// errors still point into the text as written.
    static func rewritingCountDistinct(_ text: String) -> String {
        guard let regex = try? Regex(#"(?i)\bcount\s*\(\s*distinct\b"#) else { return text }
        var result = text
        for match in text.matches(of: regex).reversed() {
            let written = text[match.range].count
            let replacement = GroupAggregate.countDistinct + "(" + String(repeating: " ", count: max(0, written - 14))
            result.replaceSubrange(match.range, with: replacement)
        }
        return result
    }
}

extension String {
    /// Without spaces at either end.
    var trimmed: String {
        let characters = drop { $0 == " " || $0 == "\t" }
        return String(characters.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
