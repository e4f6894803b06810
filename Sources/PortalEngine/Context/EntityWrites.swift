import PortalPredicate

// The one write path: insert, update and delete of an entity, with assignments whose values are
// plain values or compiled expressions, a filter, and what to return. The shell, the browser,
// the dynamic `create`/`update`/`delete` and `Portal<T>` all write through it; the store's write
// policy (a plain database's, or a Core Data store's bookkeeping) makes the statements.

/// What a write sets on an attribute, or — on a Core Data store — a relationship.
public struct AttributeAssignment: Sendable {
    /// Where the value written comes from.
    public enum Source: Sendable {
        /// A value, converted to the column's stored form (a Core Data date, a UUID blob).
        case value(Value)
        /// An expression compiled for the column (`PredicateCompiler.compileValue`): already in
        /// the column's stored form; it may refer to the row's attributes in an update.
        case expression(SQLFragment)
        /// A relationship of a Core Data store set to the rows with these ids (`Z_PK`), in order
        /// for an ordered relationship; none clears it.
        case rows([Int64])
    }

    /// The attribute's (or relationship's) name.
    public var name: String
    /// What it is set to.
    public var source: Source

    /// Sets `name` from `source`.
    public init(_ name: String, _ source: Source) {
        (self.name, self.source) = (name, source)
    }

    /// True when it sets a relationship by row ids.
    public var setsRelationship: Bool { if case .rows = source { true } else { false } }

    /// Sets the attribute `name` to `value`.
    public static func value(_ name: String, _ value: Value) -> AttributeAssignment { .init(name, .value(value)) }
    /// Sets the attribute `name` to a compiled expression.
    public static func expression(_ name: String, _ expression: SQLFragment) -> AttributeAssignment { .init(name, .expression(expression)) }
    /// Sets the relationship `name` of a Core Data store to the rows with ids `ids`.
    public static func rows(_ name: String, _ ids: [Int64]) -> AttributeAssignment { .init(name, .rows(ids)) }

    /// The row ids a relationship's value names, as a user writes it: `3` (a to-one), `{1, 2}`
    /// (a to-many), `nil` or `{}` (none). Throws for anything else.
    public static func rowIDs(_ text: String) throws -> [Int64] {
        let expression: ExpressionTree
        do { expression = try ExpressionTree.parse(text) } catch {
            throw PortalError(.misuse, "a relationship's value is a row's id, ids in braces ({1, 2}) or nil: \(error)")
        }
        let items: [ExpressionTree] = if case .aggregate(let list) = expression { list } else { [expression] }
        return try items.compactMap { item -> Int64? in
            switch item {
            case .literal(.integer(let key)): return key
            case .literal(.null) where items.count == 1: return nil
            default:
                throw PortalError(.misuse, "a relationship's value is a row's id (its Z_PK), ids in braces ({1, 2}) or nil, "
                                  + "not \(text)")
            }
        }
    }
}

/// Which rows an update or a delete changes.
public enum RowFilter {
    /// Every row of the entity.
    case all
    /// The rows a predicate matches, with its `%@` arguments.
    case predicate(String, [any ArgumentConvertible])
    /// The rows a condition compiled over the alias `t0` matches (nil: every row).
    case condition(SQLFragment?)
    /// The row with this id: every part of the primary key in key order, or the rowid where
    /// the entity declares none.
    case id([Value])
}

/// What a write did.
public struct WriteResult: Sendable {
    /// The rows the command matched: not the rows that triggers, foreign-key actions, delete
    /// rules or a store's bookkeeping changed besides.
    public var matched: Int
    /// The rows inserted, as stored, when the insert asked for them.
    public var rows: [Row]
    /// The rowid (on a Core Data store, the `Z_PK`) of the row an insert made; nil for other writes.
    public var insertedRowid: Int64?

    /// A result of `matched` rows.
    public init(matched: Int, rows: [Row] = [], insertedRowid: Int64? = nil) {
        (self.matched, self.rows, self.insertedRowid) = (matched, rows, insertedRowid)
    }
}

/// How a store's writes are made: a plain database writes the rows as given; a Core Data store
/// keeps `Z_PK`, `Z_ENT`, `Z_OPT`, `Z_MAX`, both sides of its relationships and its delete rules.
/// Each gets the entity already checked, the attributes' values in their stored form, and the
/// relationships apart. The store takes its policy from its catalog (`WritePolicyCatalog`),
/// once, when it opens.
package protocol WritePolicy: Sendable {
    /// The UPDATE an update runs for the rows it matches (`explain` shows it).
    func updateStatement(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                         where condition: SQLFragment?, dialect: any SQLDialect) -> SQLFragment
    func insert(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                links: [(name: String, ids: [Int64])], returning: Returning, in context: WriteContext) throws -> WriteResult
    func update(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                links: [(name: String, ids: [Int64])], where condition: SQLFragment?, in context: WriteContext) throws -> WriteResult
    func delete(_ entity: EntityDescription, where condition: SQLFragment?, in context: WriteContext) throws -> WriteResult

    /// True when every write carries bookkeeping of the store's own beyond the columns given (a
    /// key the store allocates, a version, the other side of a relationship): the paths that
    /// insert the given columns alone are closed, a to-one relationship is set by a row's id,
    /// and typed entities are identified by that key (`rowKey`).
    var keepsBookkeeping: Bool { get }
    /// Throws when this store cannot make `write` on `entity` faithfully.
    func refuse(_ write: RestrictedWrite, of entity: String) throws
    /// The store's own key of the row a typed entity with these id values stands for, nil when
    /// rows are found by their id attributes.
    func rowKey(of entity: String, idAttributes: [String], id: [Value]) throws -> Int64?
    /// How typed writes store a `Date`, nil for the dialect's way.
    var dateForm: DateForm? { get }
    /// Puts back what a delete removed and changed (`WriteContext.restore(_:)`).
    func restore(_ deleted: DeletedRows, in context: WriteContext) throws
}

/// A kind of write some stores refuse (see `WritePolicy.refuse`).
package enum RestrictedWrite: Sendable {
    /// An insert of the given columns only (a bulk load's).
    case insertByColumns
    /// An insert that updates the row with the same primary key instead.
    case upsert
}

extension WritePolicy {
    package var keepsBookkeeping: Bool { false }
    package func refuse(_ write: RestrictedWrite, of entity: String) throws {}
    package func rowKey(of entity: String, idAttributes: [String], id: [Value]) throws -> Int64? { nil }
    package var dateForm: DateForm? { nil }
}

/// A catalog whose stores write by a policy of their own (a Core Data store's model): the
/// store asks it once, when it opens.
package protocol WritePolicyCatalog: Catalog {
    var writePolicy: any WritePolicy { get }
}

/// A plain database's writes: one statement each.
package struct PlainWritePolicy: WritePolicy {
    package init() {}

    package func insert(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                links: [(name: String, ids: [Int64])], returning: Returning, in context: WriteContext) throws -> WriteResult {
        try refuseLinks(entity, links)
        let insert = Insert(entity, columns: values.map(\.column), values: values.map(\.value), returning: returning)
            .rendered(in: context.store.dialect)
        let row = try context.runWrite(entity.name, insert.sql, insert.bindings, returning: !returning.isNothing)
        let matched = try context.insertedRows(entity.name)
        return WriteResult(matched: matched, rows: context.asStored(row, of: entity),
                           insertedRowid: context.connection.lastInsertRowid)
    }

    package func updateStatement(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                                 where condition: SQLFragment?, dialect: any SQLDialect) -> SQLFragment {
        Update(entity, set: values, where: condition).rendered(in: dialect)
    }

    package func update(_ entity: EntityDescription, _ values: [(column: String, value: SQLFragment)],
                links: [(name: String, ids: [Int64])], where condition: SQLFragment?, in context: WriteContext) throws -> WriteResult {
        try refuseLinks(entity, links)
        let update = updateStatement(entity, values, where: condition, dialect: context.store.dialect)
        try context.runWrite(entity.name, update.sql, update.bindings, returning: false)
        return WriteResult(matched: context.connection.changes)
    }

    package func delete(_ entity: EntityDescription, where condition: SQLFragment?, in context: WriteContext) throws -> WriteResult {
        let statement = Delete(entity, where: condition)
        try context.keepRows(before: statement, of: entity.name, columns: entity.attributes.filter(\.isWritable).map(\.column),
                             rowid: entity.hasRowid)
        let delete = statement.rendered(in: context.store.dialect)
        try context.runWrite(entity.name, delete.sql, delete.bindings, returning: false)
        return WriteResult(matched: context.connection.changes)
    }

    private func refuseLinks(_ entity: EntityDescription, _ links: [(name: String, ids: [Int64])]) throws {
        guard let link = links.first else { return }
        throw PortalError(.misuse, "\(entity.name).\(link.name) is set by its key attributes on this database, not by row ids",
                          entity: entity.name, attribute: link.name)
    }
}

extension Returning {
    package var isNothing: Bool { if case .nothing = self { true } else { false } }
}

extension WriteContext {
    /// A plain database's insert of plain values, whole rows or none returned: the insert by
    /// columns, which keeps its statement from one row to the next (a loop of `create`s renders
    /// and looks up its SQL once). Nil where the general path is needed.
    func insertingValues(_ entity: String, _ assignments: [AttributeAssignment], _ returning: Returning) throws -> WriteResult? {
        guard !store.writePolicy.keepsBookkeeping else { return nil }
        switch returning {
        case .nothing, .all: break
        case .columns, .attributes: return nil
        }
        var columns: [String] = []
        var values: [Value] = []
        columns.reserveCapacity(assignments.count)
        values.reserveCapacity(assignments.count)
        for assignment in assignments {
            guard case .value(let value) = assignment.source else { return nil }
            columns.append(assignment.name)
            values.append(value)
        }
        if !reusesLastInsert(entity, columns: columns, returning: !returning.isNothing),
           Set(columns.map { $0.lowercased() }).count < columns.count {
            let twice = columns.first { name in columns.filter { $0.lowercased() == name.lowercased() }.count > 1 } ?? ""
            throw PortalError(.misuse, "\(entity).\(twice) is set twice", entity: entity, attribute: twice)
        }
        let row = try insert(entity, columns: columns, values: values, returning: !returning.isNothing)
        let matched = try insertedRows(entity)
        guard let row else { return WriteResult(matched: matched, insertedRowid: connection.lastInsertRowid) }
        let positions = try realPositions(of: row, entity: entity)
        return WriteResult(matched: matched, rows: [asStored(row, realPositions: positions)], insertedRowid: connection.lastInsertRowid)
    }

    /// The rows the last insert wrote: SQLite accepts INSERT … RETURNING on a view and silently
    /// does nothing, which is an error here.
    package func insertedRows(_ entity: String) throws -> Int {
        let matched = connection.changes
        guard matched > 0 else {
            throw PortalError(.notWritable, "nothing was inserted into \(entity) (is it a view?)", entity: entity)
        }
        return matched
    }

    /// The row an insert returned, as stored: SQLite's RETURNING gives a whole number written to
    /// a REAL column as the integer given (3 for the 3.0 stored, which every read gives), so such
    /// a value is made the real it is.
    package func asStored(_ returned: Row?, of entity: EntityDescription) -> [Row] {
        guard let returned else { return [] }
        return [asStored(returned, realPositions: Self.realPositions(in: returned.names, of: entity))]
    }

    /// The positions of `names` that name a REAL column of `entity`.
    static func realPositions(in names: [String], of entity: EntityDescription) -> [Int] {
        names.indices.filter { i in
            guard let attribute = entity.attribute(named: names[i]) ?? entity.attribute(column: names[i]) else { return false }
            if case .real = ColumnAffinity(declaredType: attribute.declaredType) { return true }
            return false
        }
    }

    /// `returned` with the integers at `realPositions` made reals.
    func asStored(_ returned: Row, realPositions: [Int]) -> Row {
        guard realPositions.contains(where: { if case .integer = returned.value(at: $0) { true } else { false } }) else { return returned }
        var values = returned.values
        for i in realPositions {
            if case .integer(let n) = values[i] { values[i] = .real(Double(n)) }
        }
        return Row(columns: returned.columns, values: values)
    }
}

extension WriteContext {

    /// Inserts one row of `entity`; with `returning`, the result holds it as stored.
    @discardableResult
    public func insert(_ entity: String, _ assignments: [AttributeAssignment], returning: Returning = .nothing) throws -> WriteResult {
        if let result = try insertingValues(entity, assignments, returning) { return result }
        try checkValid()
        let described = try checkWritable(entity, columns: assignments.filter { !$0.setsRelationship }.map(\.name))
        let (values, links) = try split(assignments, of: described)
        return try writePolicy.insert(described, values, links: links, returning: returning, in: self)
    }

    /// Sets the assignments on the rows `filter` matches; the result counts them.
    @discardableResult
    public func update(_ entity: String, _ assignments: [AttributeAssignment], where filter: RowFilter) throws -> WriteResult {
        try checkValid()
        let described = try checkWritable(entity, columns: assignments.filter { !$0.setsRelationship }.map(\.name))
        let (values, links) = try split(assignments, of: described)
        guard !values.isEmpty || !links.isEmpty else { return WriteResult(matched: 0) }
        return try writePolicy.update(described, values, links: links, where: try condition(filter, described), in: self)
    }

    /// Deletes the rows `filter` matches (on a Core Data store, by the model's delete rules);
    /// the result counts the rows matched, not those the rules or cascades removed besides.
    @discardableResult
    public func delete(_ entity: String, where filter: RowFilter) throws -> WriteResult {
        try checkValid()
        let described = try checkWritable(entity, columns: [])
        return try writePolicy.delete(described, where: try condition(filter, described), in: self)
    }

}

extension WriteContext {
    /// Inserts a row or, when one with the same primary id exists, sets the assigned attributes
    /// on it; without every part of the id among the assignments, a plain insert. With
    /// `returning`, the result holds the row as stored. Refused on a Core Data store.
    @discardableResult
    public func upsert(_ entity: String, _ assignments: [AttributeAssignment], returning: Returning = .nothing) throws -> WriteResult {
        try checkValid()
        try store.writePolicy.refuse(.upsert, of: entity)
        let described = try checkWritable(entity, columns: assignments.map(\.name))
        let (values, _) = try split(assignments, of: described)
        let key = described.identifyingColumns
        let assigned = Set(values.map { described.column(for: $0.column).lowercased() })
        guard !key.isEmpty, key.allSatisfy({ assigned.contains($0.lowercased()) }) else {
            return try PlainWritePolicy().insert(described, values, links: [], returning: returning, in: self)
        }
        let upsert = Upsert(described, key: key, columns: values.map(\.column), values: values.map(\.value), returning: returning)
            .rendered(in: store.dialect)
        let row = try runWrite(described.name, upsert.sql, upsert.bindings, returning: !returning.isNothing)
        return WriteResult(matched: connection.changes, rows: row.map { [$0] } ?? [], insertedRowid: connection.lastInsertRowid)
    }
}

extension ReadContext {
    /// The store's write policy: Core Data's bookkeeping on a store opened by its model.
    var writePolicy: any WritePolicy { store.writePolicy }

    /// The UPDATE an update of `entity` runs on the rows it matches, without running it (the
    /// shell's `explain update`).
    public func updateStatement(_ entity: String, _ assignments: [AttributeAssignment], where filter: RowFilter) throws -> SQLFragment {
        let described = try self.entity(named: entity)
        let (values, _) = try split(assignments, of: described)
        return writePolicy.updateStatement(described, values, where: try condition(filter, described), dialect: store.dialect)
    }

    /// The DELETE of the rows a delete of `entity` matches, without running it (`explain delete`).
    public func deleteStatement(_ entity: String, where filter: RowFilter) throws -> SQLFragment {
        let described = try self.entity(named: entity)
        return Delete(described, where: try condition(filter, described)).rendered(in: store.dialect)
    }

    /// The compiled WHERE condition of a predicate, nil for every row.
    func target(_ described: EntityDescription, _ predicate: String?, _ arguments: [any ArgumentConvertible])
        throws -> SQLFragment? {
        guard let predicate else { return nil }
        let schema = try self.schema
        let filter = try compiling(described.name) {
            try PredicateCompiler.compile(predicate, arguments: arguments.map(\.predicateArgument), entity: described,
                                          schema: schema, alias: "t0", dialect: store.dialect)
        }
        return filter.condition
    }

    /// The attributes' values as SQL in their stored form, and the relationships apart.
    func split(_ assignments: [AttributeAssignment], of entity: EntityDescription) throws
        -> (values: [(column: String, value: SQLFragment)], links: [(name: String, ids: [Int64])]) {
        var values: [(column: String, value: SQLFragment)] = []
        var links: [(name: String, ids: [Int64])] = []
        for assignment in assignments {
            if values.contains(where: { $0.column.lowercased() == assignment.name.lowercased() })
                || links.contains(where: { $0.name.lowercased() == assignment.name.lowercased() }) {
                throw PortalError(.misuse, "\(entity.name).\(assignment.name) is set twice", entity: entity.name,
                                  attribute: assignment.name)
            }
            switch assignment.source {
            case .value(let value):
                values.append((assignment.name, .bound(try entity.storedValue(value, for: assignment.name))))
            case .expression(let expression):
                values.append((assignment.name, expression))
            case .rows(let ids):
                guard let relationship = entity.settableRelationship(named: assignment.name) else {
                    throw PortalError(.unknownAttribute, "\(entity.name) has no relationship named '\(assignment.name)'",
                                      entity: entity.name, attribute: assignment.name,
                                      suggestion: closestName(to: assignment.name, among: entity.relationships.map(\.name)))
                }
                links.append((relationship.name, ids))
            }
        }
        return (values, links)
    }

    /// The WHERE condition over `t0` that `filter` stands for, nil for every row.
    func condition(_ filter: RowFilter, _ entity: EntityDescription) throws -> SQLFragment? {
        switch filter {
        case .all:
            return nil
        case .predicate(let predicate, let arguments):
            return try target(entity, predicate, arguments)
        case .condition(let condition):
            return condition
        case .id(let id):
            let key = entity.identifyingColumns
            guard !key.isEmpty, key.count == id.count else {
                throw PortalError(.misuse, "\(entity.name) is identified by \(key.count) value(s), not \(id.count)",
                                  entity: entity.name)
            }
            return Keyset.equals(key, alias: "t0", id, dialect: store.dialect)
        }
    }
}
