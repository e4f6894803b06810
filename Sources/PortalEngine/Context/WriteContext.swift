import CSQLite

/// Reads and writes, inside one `Store.write` closure (one transaction, or a savepoint when nested).
public final class WriteContext: ReadContext {
    override var allowsWrites: Bool { true }

    /// Every statement of a write first asks whether an interrupt was requested, so that a
    /// long loop of short statements (an import) stops at the next one.
    override func checkValid() throws {
        try super.checkValid()
        try store.checkInterruptRequest()
    }

    /// Inserts a row and returns it as stored (defaults filled, with its new id).
    @discardableResult
    public func create(_ entity: String, _ values: [String: Value]) throws -> Row {
        let pairs = values.sorted { $0.key < $1.key }
        if let plan = try coreDataPlan(for: entity, creating: true) {
            let (attributes, links) = try coreDataLinks(try self.entity(named: entity), pairs)
            let described = try checkWritable(entity, columns: attributes.map(\.key))
            // Dates and UUIDs go in the store's own form.
            let stored = try attributes.map { (key: $0.key, value: try described.storedValue($0.value, for: $0.key)) }
            let row = try createCoreData(described, plan, stored)
            let key = connection.lastInsertRowid   // Z_PK, the table's INTEGER PRIMARY KEY
            for link in links {
                try setCoreDataRelationship(described.name, keys: [key], link.name, to: link.targets, marksRow: false)
            }
            return row
        }
        let before = connection.totalChanges
        let row = try insert(entity, columns: pairs.map(\.key), values: pairs.map(\.value), returning: true)
        // SQLite 3.40 accepts INSERT … RETURNING on a view and silently does nothing.
        guard let row, connection.totalChanges > before else {
            throw PortalError(.readOnly, "nothing was inserted into \(entity) (is it a view?)", entity: entity)
        }
        return row
    }

    /// Inserts a row from columns and values in order; returns the stored row when `returning`.
    @discardableResult
    public func insert(_ entity: String, columns: [String], values: [Value], returning: Bool = false) throws -> Row? {
        try checkValid()
        // Bulk inserts repeat the same columns: reuse the statement rather than rebuild its
        // text and look it up in the cache.
        if lastInsert.returning == returning, lastInsert.entity == entity, lastInsert.columns == columns {
            // Already reset: runWrite resets its statement when done. The checks below passed
            // when it was prepared (a store's catalog, Core Data or not, never changes).
            if let sqlite = lastInsert.sqlite {
                return try sqlite._withUnsafeGuaranteedRef { try runWrite(entity, $0, values, returning: returning) }
            }
            if let statement = lastInsert.statement {
                return try runWrite(entity, statement, values, returning: returning)
            }
        }
        try refuseOnCoreDataStore(entity, "inserting rows by columns")
        let described = try checkWritable(entity, columns: columns)
        let sql = Insert(described, columns: columns, returning: returning ? .all : .nothing).rendered(in: store.dialect).sql
        let statement = try withContext(entity) { try connection.prepare(sql) }
        lastInsert = LastInsert(entity: entity, columns: columns, returning: returning, statement: statement,
                                sqlite: (statement as? Statement).map(Unmanaged.passUnretained))
        return try runWrite(entity, statement, values, returning: returning)
    }

    /// The last insert's statement and what it was for (compared in place, not copied out).
    @exclusivity(unchecked) private var lastInsert = LastInsert()

    private struct LastInsert {
        var entity = ""
        var columns: [String] = []
        var returning = false
        var statement: (any DatabaseStatement)?
        /// The same statement when it is SQLite's, run for each row without the retain and
        /// release a strong copy costs: `statement` holds it, and only `insert` replaces it,
        /// which nothing a row runs (binding, stepping, the engine's SQL functions) calls.
        var sqlite: Unmanaged<Statement>?
    }

    /// Sets `values` on the rows matching the predicate (all rows when nil); returns how many.
    @discardableResult
    public func update(_ entity: String, set values: [String: Value], where predicate: String? = nil,
                       _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        try checkValid()
        guard !values.isEmpty else { return 0 }
        let isCoreData = try coreDataPlan(for: entity, creating: false) != nil
        let (pairs, links) = try coreDataLinks(try self.entity(named: entity), values.sorted { $0.key < $1.key })
        let described = try checkWritable(entity, columns: pairs.map(\.key))
        let condition = try target(described, predicate, arguments)
        var assignments = try pairs.map { (column: $0.key, value: SQLFragment.bound(try described.storedValue($0.value, for: $0.key))) }
        if isCoreData { assignments.append(Self.coreDataVersionBump) }
        // The rows' ids first: the new values may change which rows the predicate matches.
        let keys = links.isEmpty ? [] : try coreDataKeys(described.name, where: condition)
        let update = Update(described, set: assignments, where: condition).rendered(in: store.dialect)
        try runWrite(entity, update.sql, update.bindings, returning: false)
        let changed = connection.changes
        for link in links {
            try setCoreDataRelationship(described.name, keys: keys, link.name, to: link.targets, marksRow: false)
        }
        return changed
    }

    /// Deletes the rows matching the predicate (all rows when nil); returns how many.
    @discardableResult
    public func delete(_ entity: String, where predicate: String? = nil,
                       _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        try checkValid()
        let described = try checkWritable(entity, columns: [])
        let condition = try target(described, predicate, arguments)
        if let deleted = try coreDataDelete(described.name, where: condition) { return deleted }
        let delete = Delete(described, where: condition).rendered(in: store.dialect)
        try runWrite(entity, delete.sql, delete.bindings, returning: false)
        return connection.changes
    }

    /// Inserts the row, or, when a row with the same primary key exists, updates its other
    /// attributes. Returns the row as stored. The entity needs a declared primary key.
    @discardableResult
    public func upsert(_ entity: String, _ values: [String: Value]) throws -> Row {
        try refuseOnCoreDataStore(entity, "upsert")
        let described = try self.entity(named: entity)
        guard described.kind == .table else {
            throw PortalError(.readOnly, "\(described.name) is a view: it cannot be changed", entity: described.name)
        }
        guard !described.primaryKey.isEmpty else {
            throw PortalError(.misuse, "\(described.name) has no declared primary key to upsert on", entity: described.name)
        }
        let pairs = values.sorted { $0.key < $1.key }
        let row = try upsert(described, key: described.primaryKey, columns: pairs.map(\.key), values: pairs.map(\.value),
                             returning: true)
        guard let row else { throw PortalError(.sqlite, "the upsert returned no row", entity: entity) }
        return row
    }

    @discardableResult
    func upsert(_ entity: EntityDescription, key: [String], columns: [String], values: [Value], returning: Bool) throws -> Row? {
        try checkValid()
        try refuseOnCoreDataStore(entity.name, "upsert")
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
    private func checkWritable(_ entity: String, columns: [String]) throws -> EntityDescription {
        let described = try self.entity(named: entity)
        guard described.kind == .table else {
            throw PortalError(.readOnly, "\(described.name) is a view: it cannot be changed", entity: described.name)
        }
        let rowid = described.hasRowid ? store.dialect.rowidColumn?.lowercased() : nil
        for column in columns where described.attribute(named: column) == nil && column.lowercased() != rowid {
            throw PortalError(.unknownAttribute, "\(described.name) has no attribute named '\(column)'",
                              entity: described.name, attribute: column,
                              suggestion: closestName(to: column, among: described.attributes.map(\.name)))
        }
        return described
    }

    /// The compiled WHERE condition, nil for every row.
    private func target(_ described: EntityDescription, _ predicate: String?, _ arguments: [any ArgumentConvertible])
        throws -> SQLFragment? {
        guard let predicate else { return nil }
        let schema = try self.schema
        let filter = try compiling(described.name) {
            try PredicateCompiler.compile(predicate, arguments: arguments.map(\.predicateArgument), entity: described,
                                          schema: schema, alias: "t0", dialect: store.dialect)
        }
        return filter.condition
    }

    /// Runs a cached write statement, noting the entity for observers; returns the first row
    /// when `returning`.
    @discardableResult
    func runWrite(_ entity: String, _ sql: String, _ bindings: [Value], returning: Bool) throws -> Row? {
        let statement = try withContext(entity) { try connection.prepare(sql) }
        return try runWrite(entity, statement, bindings, returning: returning)
    }

    private func runWrite(_ entity: String, _ statement: some DatabaseStatement, _ bindings: [Value],
                          returning: Bool) throws -> Row? {
        // `withContext`'s work without its closure, whose captures cost retains and releases on
        // every row of a bulk insert. Generic, so that SQLite's statement (a bulk insert's, or
        // any whose type is known) binds and steps through direct calls, not protocol witnesses.
        do {
            // SQLite's statement is reset only: every run binds all its parameters again.
            defer { if let sqlite = statement as? Statement { sqlite3_reset(sqlite.handle) } else { statement.reset() } }
            try statement.bind(bindings)
            store.changes.note(entity: entity)
            guard returning else {
                while try statement.step() {}
                return nil
            }
            var row: Row?
            while try statement.step() {
                if row == nil { row = statement.row() }
            }
            return row
        } catch let error as PortalError {
            throw naming(entity, in: error)
        }
    }
}
