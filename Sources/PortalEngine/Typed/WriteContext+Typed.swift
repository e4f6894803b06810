import PortalPredicate

/// Typed writes inside any write: one entity at a time, mixed with other statements of the same
/// transaction. `Portal`'s one-call forms are built on these.
extension WriteContext {
    /// Inserts `entity` and returns it as stored: defaults filled, and a new id when its id is
    /// nil (an optional id left empty lets the database choose one).
    @discardableResult
    public func insert<T: PortalEntity>(_ entity: T) throws -> T {
        let (columns, values) = try encodedForInsert(entity)
        if store.writePolicy.keepsBookkeeping {
            // Read back by the key the store gave it (a Core Data store's Z_PK): the row a create
            // returns has no rowid to decode.
            try insertEncoded(T.entityName, columns: columns, values: values, returning: false)
            let key = connection.lastInsertRowid
            guard let stored = try fetch(T.self, where: "SELF == \(key)", arguments: [], sortedBy: [], limit: 1).first else {
                throw PortalError(.rowNotFound, "the new \(T.entityName) \(key) was not found", entity: T.entityName)
            }
            return stored
        }
        guard let row = try insertEncoded(T.entityName, columns: columns, values: values, returning: true) else {
            throw PortalError(.notWritable, "nothing was inserted into \(T.entityName) (is it a view?)", entity: T.entityName)
        }
        return try decoded(row, as: T.self)
    }

    /// Saves `entity` over the stored one with the same id (every part of a composite one).
    /// Throws `.rowNotFound` when there is none.
    public func update<T: PortalEntity>(_ entity: T) throws {
        let (columns, values) = try encoded(entity)
        let id = try idValues(of: T.self, columns: columns, values: values)
        if let key = try rowKey(T.self, id) { return try updateChanged(T.self, key: key, columns: columns, values: values) }
        let key = Set(T.idAttributes)
        let set = zip(columns, values).filter { !key.contains($0.0) }.map { AttributeAssignment.value($0.0, $0.1) }
        guard !set.isEmpty else { return }
        guard try update(T.entityName, set, where: .condition(idCondition(T.self, id))).matched > 0 else {
            throw PortalError(.rowNotFound, "no \(T.entityName) with \(T.idAttributes.joined(separator: ", ")) "
                              + id.map { "\($0)" }.joined(separator: ", "), entity: T.entityName, attribute: T.idAttributes.first)
        }
    }

    /// Inserts `entity`, or saves it over the stored one with the same id; returns it as stored.
    @discardableResult
    public func upsert<T: PortalEntity>(_ entity: T) throws -> T {
        let (columns, values) = try encodedForInsert(entity)
        guard let row = try upsert(self.entity(named: T.entityName), key: T.idAttributes, columns: columns, values: values, returning: true) else {
            throw PortalError(.database, "the upsert returned no row", entity: T.entityName)
        }
        return try decoded(row, as: T.self)
    }

    /// Deletes the stored entity with `entity`'s id; returns false when there was none.
    @discardableResult
    public func delete<T: PortalEntity>(_ entity: T) throws -> Bool {
        let (columns, values) = try encoded(entity)
        let id = try idValues(of: T.self, columns: columns, values: values)
        // A row the store keys itself (a Core Data row, by its Z_PK) goes by the store's key.
        let filter: RowFilter = try rowKey(T.self, id).map { .id([.integer($0)]) } ?? .condition(idCondition(T.self, id))
        return try delete(T.entityName, where: filter).matched > 0
    }

    // MARK: Helpers

    /// A typed insert by columns: on a Core Data store a `create` (a new Z_PK from Z_MAX, Z_ENT,
    /// Z_OPT, dates and UUIDs in the store's form), a nil rowid left for it to choose.
    @discardableResult
    func insertEncoded(_ entity: String, columns: [String], values: [Value], returning: Bool) throws -> Row? {
        guard store.writePolicy.keepsBookkeeping else { return try insert(entity, columns: columns, values: values, returning: returning) }
        var pairs: [String: Value] = [:]
        for (column, value) in zip(columns, values) where !(column == "rowid" && value == .null) { pairs[column] = value }
        return try create(entity, pairs)
    }

    /// Saves the attributes of a row the store keys itself that differ from the stored ones, as
    /// Core Data's save writes only what changed: a date read and written back as text (to the
    /// millisecond) leaves the stored seconds as they were, and an unchanged row keeps its `Z_OPT`.
    private func updateChanged<T: PortalEntity>(_ type: T.Type, key: Int64, columns: [String], values: [Value]) throws {
        guard let stored = try fetch(T.self, where: "SELF == \(key)", arguments: [], sortedBy: [], limit: 1).first else {
            throw PortalError(.rowNotFound, "no \(T.entityName) with rowid \(key)", entity: T.entityName, attribute: T.idAttribute)
        }
        let before = try encoded(stored)
        var set: [String: Value] = [:]
        for (i, column) in columns.enumerated() where column != T.idAttribute {
            if before.columns.count != columns.count || before.values[i] != values[i] { set[column] = values[i] }
        }
        if !set.isEmpty { try update(T.entityName, set: set, where: "SELF == \(key)") }
    }

    /// The store's own key of the row `T` with `id` stands for (a Core Data row's `Z_PK`), nil
    /// where rows are found by their id attributes.
    private func rowKey<T: PortalEntity>(_ type: T.Type, _ id: [Value]) throws -> Int64? {
        try store.writePolicy.rowKey(of: T.entityName, idAttributes: T.idAttributes, id: id)
    }

    func encoded<T: PortalEntity>(_ entity: T) throws -> (columns: [String], values: [Value]) {
        var encoded: (columns: [String], values: [Value]) = ([], [])
        try EntityEncoding.each([entity], entity: T.entityName, dates: DateForm(self)) { encoded = ($0, $1) }
        return encoded
    }

    /// The columns to insert: all, but an id that is nil (the database then chooses it).
    private func encodedForInsert<T: PortalEntity>(_ entity: T) throws -> (columns: [String], values: [Value]) {
        let (columns, values) = try encoded(entity)
        return Self.withoutNilId(columns, values, id: T.idAttribute)
    }

    /// The columns and values of an insert without the id when it is nil: the database chooses
    /// it (SQLite's rowid, a server's serial or identity column, which refuses an explicit NULL).
    static func withoutNilId(_ columns: [String], _ values: [Value], id: String) -> (columns: [String], values: [Value]) {
        guard let i = columns.firstIndex(of: id), values[i] == .null else { return (columns, values) }
        var (columns, values) = (columns, values)
        columns.remove(at: i)
        values.remove(at: i)
        return (columns, values)
    }

    /// The values of every id attribute, in `T.idAttributes` order.
    private func idValues<T: PortalEntity>(of type: T.Type, columns: [String], values: [Value]) throws -> [Value] {
        try T.idAttributes.map { part in
            guard let i = columns.firstIndex(of: part) else {
                throw PortalError(.conversion, "\(T.self) encodes no '\(part)'", entity: T.entityName, attribute: part)
            }
            return values[i]
        }
    }

    private func idCondition<T: PortalEntity>(_ type: T.Type, _ id: [Value]) -> SQLFragment {
        Keyset.equals(T.idAttributes, alias: "t0", id, dialect: store.dialect)
    }

    private func decoded<T: PortalEntity>(_ row: Row, as type: T.Type) throws -> T {
        try row.decoded(as: T.self, entity: T.entityName)
    }
}
