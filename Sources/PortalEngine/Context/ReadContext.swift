
/// What a select returns besides the entity's columns.
enum Projection: Equatable {
    /// `t0.*`, preceded by `t0.rowid AS rowid` when asked for and the entity has a rowid.
    case rows(includeRowid: Bool)
    /// The same, for typed entities: a Core Data date as its Unix seconds, a number with the
    /// stored precision, rather than its text to the millisecond.
    case typedRows(includeRowid: Bool)
    case count

    /// The rows a typed read of `T` decodes: `typedRows`, with the rowid when `T` is identified by it.
    static func typed<T: PortalEntity>(_ type: T.Type) -> Projection {
        .typedRows(includeRowid: T.idAttributes == ["rowid"])
    }
}

/// Reads, inside one `Store.read` (or `write`) closure. Valid only during that closure: use
/// after it returned throws `.misuse`. Not `Sendable`: it cannot leave its thread either.
public class ReadContext {
    package let store: Store
    package let connection: any DatabaseConnection
    private(set) var isValid = true
    /// False for read contexts: raw SQL that writes is refused. Stored, not overridden:
    /// `checkValid` reads it for every statement.
    let allowsWrites: Bool
    /// On a read-only connection, what this read learned for the reads nested in it: the
    /// schema's version, asked once. Nil where the schema may change under the context (the
    /// writer, a server's catalog).
    private let snapshot: ReadSnapshot?

    init(store: Store, connection: any DatabaseConnection, allowsWrites: Bool = false, snapshot: ReadSnapshot? = nil) {
        self.store = store
        self.connection = connection
        self.allowsWrites = allowsWrites
        self.snapshot = snapshot
    }

    func invalidate() { isValid = false }

    /// Throws `.misuse` once the closure this context was given to has returned. In a write,
    /// also `.interrupted` when an interrupt was requested: every statement of a write asks,
    /// so that a long loop of short statements (an import) stops at the next one. Final and
    /// inlined: a loop of inserts or prepared executions asks it for every row.
    @inline(__always)
    package final func checkValid() throws {
        guard isValid else {
            throw PortalError.misuse("a store context was used outside the closure it was given to")
        }
        if allowsWrites { try store.checkInterruptRequest() }
    }

    /// The database's entities, as of this transaction.
    public var schema: Schema {
        get throws {
            try checkValid()
            guard snapshot != nil else { return try store.schema(on: connection) }
            return try store.schemaCache.schema(on: connection, version: try schemaVersion)
        }
    }

    /// The entity named `name` (case-insensitive when unambiguous), or `.unknownEntity` with a suggestion.
    public func entity(named name: String) throws -> EntityDescription {
        let schema = try self.schema
        if let entity = schema.entity(named: name) { return entity }
        throw PortalError(.unknownEntity, "no entity named '\(name)'", entity: name,
                          suggestion: closestName(to: name, among: schema.entities.map(\.name)))
    }

    // MARK: Entity queries

    /// How many rows of `entity` match the predicate (all rows when it is nil).
    public func count(_ entity: String, where predicate: String? = nil,
                      _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        let fragment = try select(entity, .count, predicate, arguments.map(\.predicateArgument), [], nil, nil)
        return try withContext(entity) {
            guard case .integer(let n)? = try connection.scalar(fragment.sql, fragment.bindings) else { return 0 }
            return Int(n)
        }
    }

    /// The rows of `entity` matching the predicate, sorted, at most `limit` after skipping
    /// `offset`. With `includeRowid`, each row starts with a `rowid` attribute (when the entity
    /// has one), for keyset paging with `SELF > %@`.
    public func find(_ entity: String, where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                     sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil,
                     includeRowid: Bool = false) throws -> [Row] {
        try find(entity, where: predicate, arguments: arguments.map(\.predicateArgument), sortedBy: sortedBy,
                 limit: limit, offset: offset, includeRowid: includeRowid)
    }

    func find(_ entity: String, where predicate: String?, arguments: [Argument], sortedBy: [SortKey] = [],
              limit: Int? = nil, offset: Int? = nil, includeRowid: Bool = false) throws -> [Row] {
        try run(entity, where: predicate, arguments: arguments, sortedBy: sortedBy, limit: limit,
                offset: offset, includeRowid: includeRowid) { try $0.rows() }
    }

    /// The first row matching, in the given order.
    public func first(_ entity: String, where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                      sortedBy: [SortKey] = [], includeRowid: Bool = false) throws -> Row? {
        try find(entity, where: predicate, arguments: arguments.map(\.predicateArgument), sortedBy: sortedBy,
                 limit: 1, includeRowid: includeRowid).first
    }

    /// Streams the rows of a `find`, one at a time, in bounded memory (exports of millions of rows).
    public func forEach(_ entity: String, where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                        sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil, includeRowid: Bool = false,
                        _ body: (Row) throws -> Void) throws {
        try forEach(entity, where: predicate, arguments: arguments.map(\.predicateArgument), sortedBy: sortedBy,
                    limit: limit, offset: offset, includeRowid: includeRowid, body)
    }

    func forEach(_ entity: String, where predicate: String?, arguments: [Argument], sortedBy: [SortKey],
                 limit: Int?, offset: Int?, includeRowid: Bool, _ body: (Row) throws -> Void) throws {
        try run(entity, where: predicate, arguments: arguments, sortedBy: sortedBy, limit: limit,
                offset: offset, includeRowid: includeRowid) { try $0.forEachRow(body) }
    }

    /// Prepares and binds the select of a `find`, and hands the statement to `body`.
    private func run<T>(_ entity: String, where predicate: String?, arguments: [Argument], sortedBy: [SortKey],
                        limit: Int?, offset: Int?, includeRowid: Bool, _ body: (any DatabaseStatement) throws -> T) throws -> T {
        let fragment = try select(entity, .rows(includeRowid: includeRowid), predicate, arguments, sortedBy, limit, offset)
        return try withContext(entity) {
            let statement = try connection.prepare(fragment.sql)
            defer { statement.reset() }
            try statement.bind(fragment.bindings)
            return try body(statement)
        }
    }

    /// The SQL and bindings a `find` (or `count`) compiles to, without running it.
    public func compiledSQL(_ entity: String, where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                            sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil,
                            includeRowid: Bool = false, count: Bool = false) throws -> SQLFragment {
        try select(entity, count ? .count : .rows(includeRowid: includeRowid), predicate,
                   arguments.map(\.predicateArgument), sortedBy, limit, offset)
    }

    /// The compiled SQL of a `find`, its bindings and SQLite's query plan (the shell's `explain`).
    public func explain(_ entity: String, where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                        sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil) throws -> Explanation {
        let fragment = try compiledSQL(entity, where: predicate, arguments, sortedBy: sortedBy, limit: limit, offset: offset)
        let plan = try query(store.dialect.queryPlanPrefix + fragment.sql, fragment.bindings)
        return Explanation(sql: fragment.sql, bindings: fragment.bindings, plan: plan.rows)
    }

    // MARK: Raw SQL

    /// Runs raw SQL (several statements separated by `;` allowed) and returns the last
    /// statement's rows with its column names. In a read, statements that would write are refused.
    public func query(_ sql: String, _ bindings: [Value] = []) throws -> ResultSet {
        var result = ResultSet(columns: [], rows: [])
        try eachStatement(sql, bindings) { statement in
            let before = connection.totalChanges
            let rows = try statement.rows()
            let changed = !statement.isReadOnly ? connection.totalChanges - before : 0
            result = ResultSet(columns: statement.columns.names, rows: rows, changes: changed)
        }
        return result
    }

    /// Streams the rows of raw SQL one at a time (bounded memory). Returns the column names,
    /// known even when there was no row.
    @discardableResult
    public func stream(_ sql: String, _ bindings: [Value] = [], _ body: (Row) throws -> Void) throws -> [String] {
        var columns: [String] = []
        try eachStatement(sql, bindings) { statement in
            columns = statement.columns.names
            try statement.forEachRow(body)
        }
        return columns
    }

    /// Runs one statement through the connection's statement cache (prepared once per SQL
    /// text, then only re-bound), handing `body` the statement on each row in turn: for SQL a
    /// caller runs again and again with new values, such as the browser's page queries.
    public func forEachRow(cached sql: String, _ bindings: [Value], _ body: (any DatabaseStatement) throws -> Void) throws {
        try withCachedStatement(sql, bindings) { statement in
            while try statement.step() { try body(statement) }
        }
    }

    /// Every row of one statement run through the connection's statement cache, as
    /// `forEachRow(cached:)` runs it: the rows share one storage (no allocation per row).
    public func rows(cached sql: String, _ bindings: [Value]) throws -> [Row] {
        try withCachedStatement(sql, bindings) { try $0.rows() }
    }

    /// The statement of `sql` from the connection's cache, bound, for `body`; reset after.
    private func withCachedStatement<T>(_ sql: String, _ bindings: [Value], _ body: (any DatabaseStatement) throws -> T)
        throws -> T {
        try checkValid()
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        if !allowsWrites && !statement.isReadOnly {
            throw PortalError(.writeInRead, "a read cannot change the database; use a write")
        }
        try statement.bind(bindings)
        return try body(statement)
    }

    /// Runs one statement of raw SQL prepared for this call only (for SQL run once, such as an
    /// export of millions of rows): hands `columns` the column names before the first row (so
    /// they are known even when there is none), then `body` the statement on each row, to read
    /// its columns in place without building rows. In a read, a statement that writes is refused.
    /// With `named`, parameters are bound by name (`Statement.bind(named:)`), not `bindings`.
    public func forEachRow(_ sql: String, _ bindings: [Value], named: [String: Value]? = nil,
                           columns: ([String]) throws -> Void, _ body: (any DatabaseStatement) throws -> Void) throws {
        try checkValid()
        try refuseTransactionControl(sql)
        let statement = try connection.prepareUncached(sql)
        if !statement.isReadOnly {
            guard allowsWrites else { throw PortalError(.writeInRead, "a read cannot change the database; use a write") }
            store.noteRawWrite()
        }
        if let named { try statement.bind(named: named) } else { try statement.bind(bindings) }
        try columns((0..<statement.columnCount).map(statement.columnName))
        while try statement.step() { try body(statement) }
    }

    /// True when SQLite says the (first) statement of `sql` does not write to the database, so a
    /// caller holding raw SQL from a user can choose between `read` and `write` before running it.
    public func isReadOnly(_ sql: String) throws -> Bool {
        try checkValid()
        return try connection.prepareUncached(sql).isReadOnly
    }

    /// The schema's version as of this transaction (SQLite's `PRAGMA schema_version`, a
    /// server's catalog fingerprint): it changes whenever the schema does, so callers may keep
    /// what they derived from the schema while it stays the same.
    public var schemaVersion: Value {
        get throws {
            try checkValid()
            if let known = snapshot?.schemaVersion { return known }
            let version = try store.schemaCache.version(on: connection)
            snapshot?.schemaVersion = version
            return version
        }
    }

    /// On a server, a value that changes whenever anyone commits a change to the database (it
    /// may also change when nothing this store reads did: `DatabaseServer.changeMarker`); nil
    /// for a SQLite file, whose changes show in the file itself.
    public var serverChangeMarker: Value? {
        get throws {
            try checkValid()
            return try store.server?.changeMarker(on: connection)
        }
    }

    /// Prepares each statement of `sql` in turn; bindings go to the first.
    private func eachStatement(_ sql: String, _ bindings: [Value], _ body: (any DatabaseStatement) throws -> Void) throws {
        try checkValid()
        var first = true
        try connection.forEachStatement(sql) { statement in
            try refuseTransactionControl(statement.sql)
            if !allowsWrites && !statement.isReadOnly {
                throw PortalError(.writeInRead, "a read cannot change the database; use a write")
            }
            // Bound even without values: a bound statement is one about to run, whose columns a
            // server's statement then takes from its first result instead of asking for them.
            try statement.bind(first ? bindings : [])
            first = false
            if allowsWrites && !statement.isReadOnly { store.noteRawWrite() }
            try body(statement)
        }
    }

    /// Refuses raw SQL that would begin or end a transaction (`SQLStatements.transactionControl`):
    /// this context runs inside a transaction of the store's, which that statement would end or
    /// nest behind its back.
    func refuseTransactionControl(_ sql: String) throws {
        guard let keyword = SQLStatements.transactionControl(sql) else { return }
        throw PortalError(.misuse, "\(keyword) is not run as SQL: transactions are begun and ended by the store "
                          + "(in the shell: begin, commit, rollback)")
    }

    // MARK: Compiling

    /// SELECT for `entity`. Without predicate, sort keys or rowid the schema is not needed on a
    /// plain SQLite catalog: SQLite resolves the name itself (and reports an unknown one).
    func select(_ entityName: String, _ projection: Projection, _ predicate: String?, _ arguments: [Argument],
                _ sortedBy: [SortKey], _ limit: Int?, _ offset: Int?) throws -> SQLFragment {
        let dialect = store.dialect
        let filter = predicate.map { predicate in
            { (entity: EntityDescription, schema: Schema) in
                try PredicateCompiler.compile(predicate, arguments: arguments, entity: entity, schema: schema, alias: "t0",
                                              dialect: dialect)
            }
        }
        return try select(entityName, projection, filter: filter, sortedBy, limit, offset)
    }

    /// SELECT for `entity`, its condition compiled by `filter` (a predicate already parsed, or text).
    func select(_ entityName: String, _ projection: Projection,
                filter compile: ((EntityDescription, Schema) throws -> CompiledFilter)?,
                _ sortedBy: [SortKey], _ limit: Int?, _ offset: Int?) throws -> SQLFragment {
        try checkValid()
        var includeRowid = false
        if case .rows(let rowid) = projection { includeRowid = rowid }
        if case .typedRows(let rowid) = projection { includeRowid = rowid }
        guard compile != nil || !sortedBy.isEmpty || includeRowid || store.catalogMapsNames else {
            return assemble(Select(entityName, columns: projection == .count ? .count : .all(withRowid: false),
                                   limit: limit, offset: offset))
        }
        let schema = try self.schema
        let entity = try self.entity(named: entityName)
        // The caller's own keys replace the predicate's `SORT`.
        var filter = try compile.map { compile in try compiling(entity.name) { try compile(entity, schema) } }
        if !sortedBy.isEmpty { filter?.sort = [] }
        let columns: Select.Columns = projection == .count ? .count : .all(withRowid: includeRowid && entity.hasRowid)
        var select = try compiling(entity.name) {
            try Select.find(entity, in: schema, dialect: store.dialect, columns: columns, filter: filter, sortedBy: sortedBy,
                            limit: limit, offset: offset)
        }
        select.datesAsSeconds = projection == .typedRows(includeRowid: includeRowid)
        return assemble(select)
    }

    private func assemble(_ select: Select) -> SQLFragment { select.rendered(in: store.dialect) }

    /// Turns a predicate compiler error into `.predicate` with the entity named.
    func compiling<T>(_ entity: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PortalPredicateError {
            throw PortalError.invalidPredicate(error, entity: entity)
        }
    }

    /// Names the entity in errors and suggests close names for unknown ones.
    func withContext<T>(_ entity: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as PortalError { throw naming(entity, in: error) }
    }

    /// `error` with the entity named and, for an unknown name, the closest existing one (what
    /// `withContext` throws; called directly where a closure would cost on every row).
    func naming(_ entity: String, in error: PortalError) -> PortalError {
        var error = error
        if error.entity == nil { error.entity = entity }
        guard let schema = try? store.schema(on: connection) else { return error }
        // SQLite's error for a table that is not there is only English text: ask the schema.
        if error.kind == .database, schema.entity(named: entity) == nil {
            error.kind = .unknownEntity
            error.message = "no entity named '\(entity)'"
        }
        if error.suggestion == nil {
            switch error.kind {
            case .unknownEntity:
                error.suggestion = closestName(to: error.entity ?? entity, among: schema.entities.map(\.name))
            case .unknownAttribute:
                if let attribute = error.attribute, let described = schema.entity(named: error.entity ?? entity) {
                    error.suggestion = closestName(to: attribute, among: described.attributes.map(\.name))
                }
            default: break
            }
        }
        return error
    }
}
