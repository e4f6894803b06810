/// Reads and writes, inside one `Store.write` closure (one transaction, or a savepoint when nested).
public final class WriteContext: ReadContext {
    /// A context that writes (its `checkValid` also asks whether an interrupt was requested).
    init(store: Store, connection: any DatabaseConnection) {
        super.init(store: store, connection: connection, allowsWrites: true)
    }

    /// Inserts a row and returns it as stored (defaults filled, with its new id). On a Core
    /// Data store a to-one relationship may be given by the row's id (or nil).
    @discardableResult
    public func create(_ entity: String, _ values: [String: Value]) throws -> Row {
        try checkValid()
        if let row = try createKnownRow(entity, values) { return row }
        let result = try insert(entity, try assignments(values, of: entity), returning: .all)
        guard let row = result.rows.first else { throw PortalError(.database, "the insert returned no row", entity: entity) }
        return row
    }

    /// Inserts a row from columns and values in order; returns the stored row when `returning`.
    /// Inlined into the caller, which then hands the values over where it made them: the array
    /// literal of a loop of inserts stays in the loop's frame, with no allocation per row.
    @inlinable @discardableResult
    public func insert(_ entity: String, columns: [String], values: [Value], returning: Bool = false) throws -> Row? {
        try values.withUnsafeBufferPointer { try insert(entity, columns: columns, valuesAt: $0, returning: returning) }
    }

    /// `insert(_:columns:values:returning:)` of the values in `values`.
    @usableFromInline
    func insert(_ entity: String, columns: [String], valuesAt values: UnsafeBufferPointer<Value>, returning: Bool) throws -> Row? {
        try insert(entity, columns: columns, ValueArguments(values: values), returning: returning)
    }

    /// Inserts a row from columns and fields in order, text read in place from the caller's
    /// buffers (see `InsertField`): a bulk load's way, which makes no `String` per field.
    public func insert(_ entity: String, columns: [String], fields: [InsertField]) throws {
        _ = try insert(entity, columns: columns, FieldArguments(fields: fields), returning: false)
    }

    private func insert(_ entity: String, columns: [String], _ values: some InsertArguments, returning: Bool) throws -> Row? {
        try checkValid()
        // Bulk inserts repeat the same columns: reuse the statement rather than rebuild its
        // text and look it up in the cache.
        // Borrowed: `lastInsert` keeps it, and only this function replaces that. Its `let`s
        // are then read without a retain and release of the statement for every row.
        if let last = lastInsertReference,
           last._withUnsafeGuaranteedRef({ $0.returning == returning && $0.entity == entity && sameNames($0.columns, columns) }) {
            // Already reset: a run resets its statement when done. The checks below passed when
            // it was prepared (a store's catalog, Core Data or not, never changes).
            guard returning else {
                // The loop of a bulk insert, in this function's frame.
                try last._withUnsafeGuaranteedRef { try runToEnd(entity, $0.statement, values) }
                return nil
            }
            return try last._withUnsafeGuaranteedRef { try runWrite(entity, $0.statement, values, returning: true) }
        }
        try store.writePolicy.refuse(.insertByColumns, of: entity)
        let described = try checkWritable(entity, columns: columns)
        let sql = Insert(described, columns: columns, returning: returning ? .all : .nothing).rendered(in: store.dialect).sql
        let statement = try withContext(entity) { try connection.prepare(sql) }
        let last = LastInsert(entity: entity, columns: columns, returning: returning, statement: statement)
        lastInsert = last
        lastInsertReference = Unmanaged.passUnretained(last)
        return try runWrite(entity, statement, values, returning: returning)
    }

    /// What `create` knows of the table it last wrote.
    @exclusivity(unchecked) var createPlan: CreatePlan?
    /// The table `create` last found it has no plan for, and `Store.rawWrites` then: a loop of
    /// creates into it takes the general path without asking again for every row.
    @exclusivity(unchecked) var createRefused: (entity: String, rawWrites: Int)?

    /// While `deleteKeepingRows` runs, the rows removed and changed so far (see `DeletedRows`).
    @exclusivity(unchecked) package var keptChanges: [DeletedRows.Change]?

    /// The last insert's statement and what it was for (compared in place, not copied out).
    @exclusivity(unchecked) private var lastInsert: LastInsert?
    /// `lastInsert`, unretained: what a loop of inserts reads it through.
    @exclusivity(unchecked) private var lastInsertReference: Unmanaged<LastInsert>?

    private final class LastInsert {
        let entity: String
        let columns: [String]
        let returning: Bool
        let statement: any DatabaseStatement
        /// The positions of the returned row's REAL columns, once a row has been returned, and
        /// `Store.rawWrites` then (raw SQL since, an `ALTER TABLE`, may have changed the columns).
        var realPositions: (positions: [Int], rawWrites: Int)?

        init(entity: String, columns: [String], returning: Bool, statement: any DatabaseStatement) {
            self.entity = entity
            self.columns = columns
            self.returning = returning
            self.statement = statement
        }
    }

    /// True when an insert of these columns reuses the last insert's statement (its columns
    /// were checked when it was prepared).
    func reusesLastInsert(_ entity: String, columns: [String], returning: Bool) -> Bool {
        guard let lastInsert else { return false }
        return lastInsert.returning == returning && lastInsert.entity == entity && sameNames(lastInsert.columns, columns)
    }

    /// `a == b`, answered without a call when both are the same array (a loop of inserts passes
    /// the same columns every time).
    @inline(__always)
    private func sameNames(_ a: [String], _ b: [String]) -> Bool {
        let same = a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress && a.count == b.count } }
        return same || a == b
    }

    /// The positions of REAL columns in a row the last insert returned (`asStored`), found
    /// once for the statement rather than for every row of a loop of inserts.
    func realPositions(of row: Row, entity: String) throws -> [Int] {
        let rawWrites = store.rawWrites.load(ordering: .relaxed)
        if let known = lastInsert?.realPositions, lastInsert?.entity == entity, known.rawWrites == rawWrites { return known.positions }
        let positions = Self.realPositions(in: row.names, of: try self.entity(named: entity))
        lastInsert?.realPositions = (positions, rawWrites)
        return positions
    }

    /// Sets `values` on the rows matching the predicate (all rows when nil); returns how many
    /// matched. On a Core Data store a to-one relationship may be given by the row's id (or nil).
    @discardableResult
    public func update(_ entity: String, set values: [String: Value], where predicate: String? = nil,
                       _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        try update(entity, try assignments(values, of: entity), where: predicate.map { .predicate($0, arguments) } ?? .all).matched
    }

    /// Deletes the rows matching the predicate (all rows when nil); returns how many matched.
    @discardableResult
    public func delete(_ entity: String, where predicate: String? = nil,
                       _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        try delete(entity, where: predicate.map { .predicate($0, arguments) } ?? .all).matched
    }

    /// The assignments of a dictionary of values, in name order: on a Core Data store a value
    /// naming a to-one relationship sets it to the row with that id (nil clears it).
    private func assignments(_ values: [String: Value], of entity: String) throws -> [AttributeAssignment] {
        let sorted = values.sorted { $0.key < $1.key }
        guard store.writePolicy.keepsBookkeeping else { return sorted.map { .value($0.key, $0.value) } }
        let described = try self.entity(named: entity)
        return try sorted.map { name, value in
            guard let relationship = described.settableRelationship(named: name) else { return .value(name, value) }
            switch (relationship.kind, value) {
            case (.toOne, .integer(let key)): return .rows(relationship.name, [key])
            case (.toOne, .null): return .rows(relationship.name, [])
            default:
                throw PortalError(.misuse, "\(described.name).\(relationship.name) takes a row's id or nil here "
                                  + "(update with AttributeAssignment.rows sets to-many relationships)", entity: described.name,
                                  attribute: relationship.name)
            }
        }
    }

    /// Inserts the row, or, when a row with the same primary key exists, updates its other
    /// attributes. Returns the row as stored. The entity needs a declared primary key.
    @discardableResult
    public func upsert(_ entity: String, _ values: [String: Value]) throws -> Row {
        try store.writePolicy.refuse(.upsert, of: entity)
        let described = try self.entity(named: entity)
        guard described.kind == .table else {
            throw PortalError(.notWritable, "\(described.name) is a view: it cannot be changed", entity: described.name)
        }
        guard !described.primaryKey.isEmpty else {
            throw PortalError(.misuse, "\(described.name) has no declared primary key to upsert on", entity: described.name)
        }
        let pairs = values.sorted { $0.key < $1.key }
        let row = try upsert(described, key: described.primaryKey, columns: pairs.map(\.key), values: pairs.map(\.value),
                             returning: true)
        guard let row else { throw PortalError(.database, "the upsert returned no row", entity: entity) }
        return row
    }

    @discardableResult
    func upsert(_ entity: EntityDescription, key: [String], columns: [String], values: [Value], returning: Bool) throws -> Row? {
        try checkValid()
        try store.writePolicy.refuse(.upsert, of: entity.name)
        let sql = Upsert(entity, key: key, columns: columns, returning: returning ? .all : .nothing).rendered(in: store.dialect).sql
        return try runWrite(entity.name, sql, values, returning: returning)
    }

    /// Runs raw SQL that changes the database or its schema (several statements allowed when
    /// there are no bindings). Returns the number of rows changed by the last statement.
    @discardableResult
    public func execute(_ sql: String, _ bindings: [Value] = []) throws -> Int {
        try checkValid()
        try refuseTransactionControl(sql)
        store.noteRawWrite()
        if bindings.isEmpty {
            try connection.execute(sql)
        } else {
            let result = try query(sql, bindings)
            return result.changes
        }
        return connection.changes
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE of this context.
    public var changes: Int { connection.changes }
    /// The rowid of the row the last successful INSERT of this connection inserted.
    public var lastInsertRowid: Int64 { connection.lastInsertRowid }
    /// Rows changed by every INSERT, UPDATE or DELETE on the writer since it opened: the
    /// difference across a call counts the changes of several statements (or of triggers).
    public var totalChanges: Int { connection.totalChanges }

    // MARK: Helpers

    /// Refuses a view, an unknown entity and unknown columns before SQLite is asked, naming the
    /// closest existing name (SQLite's own messages are English text, not classified here).
    func checkWritable(_ entity: String, columns: [String]) throws -> EntityDescription {
        let described = try self.entity(named: entity)
        guard described.kind == .table else {
            throw PortalError(.notWritable, "\(described.name) is a view: it cannot be changed", entity: described.name)
        }
        let rowid = described.hasRowid ? store.dialect.rowidColumn?.lowercased() : nil
        for column in columns where described.attribute(named: column) == nil && column.lowercased() != rowid {
            throw PortalError(.unknownAttribute, "\(described.name) has no attribute named '\(column)'",
                              entity: described.name, attribute: column,
                              suggestion: closestName(to: column, among: described.attributes.map(\.name)))
        }
        return described
    }

    /// Runs a cached write statement, noting the entity for observers; returns the first row
    /// when `returning`.
    @discardableResult
    package func runWrite(_ entity: String, _ sql: String, _ bindings: [Value], returning: Bool) throws -> Row? {
        let statement = try withContext(entity) { try connection.prepare(sql) }
        return try bindings.withUnsafeBufferPointer { try runWrite(entity, statement, ValueArguments(values: $0), returning: returning) }
    }

    private func runWrite(_ entity: String, _ statement: any DatabaseStatement, _ bindings: some InsertArguments,
                          returning: Bool) throws -> Row? {
        guard returning else {
            try runToEnd(entity, statement, bindings)
            return nil
        }
        // `withContext`'s work without its closure, whose captures cost retains and releases on
        // every row of a bulk insert.
        do {
            defer { statement.resetKeepingBindings() }
            try bindings.bind(to: statement)
            store.changes.note(entity: entity)
            var row: Row?
            while try statement.step() {
                if row == nil { row = statement.row() }
            }
            return row
        } catch let error as PortalError {
            throw naming(entity, in: error)
        }
    }

    /// One run of a write that returns nothing, noted for observers. Generic over the arguments
    /// alone: specialized for each kind, the run is one call to the statement, which binds
    /// every value itself.
    @inline(__always)
    private func runToEnd(_ entity: String, _ statement: any DatabaseStatement, _ bindings: some InsertArguments) throws {
        store.changes.note(entity: entity)
        do {
            // Every run binds all its parameters again: they need not be cleared.
            try bindings.runToEnd(statement)
        } catch let error as PortalError {
            throw naming(entity, in: error)
        }
    }
}
