extension ReadContext {
    /// One statement of raw SQL, prepared once and run as many times as wanted with new
    /// arguments inside this read or write: `let byId = try ctx.prepare("SELECT * FROM Track
    /// WHERE TrackId = ?")`, then `try byId.rows([.integer(id)])` in a loop. The statement comes
    /// from the connection's statement cache, so preparing the same text again (in this or a
    /// later transaction on the connection) costs a lookup. In a read, SQL that would write is
    /// refused.
    public func prepare(_ sql: String) throws -> PreparedStatement {
        try checkValid()
        let statement = try connection.prepare(sql)
        // Anything after the text prepared but spaces and semicolons is a second statement,
        // which would be silently ignored. (A server refuses two commands in one prepared
        // statement itself.)
        let prepared = (statement as? any ColumnReadingStatement)?.preparedLength ?? sql.utf8.count
        if sql.utf8.dropFirst(prepared).contains(where: { !($0 == UInt8(ascii: ";") || $0 == 32 || (9...13).contains($0)) }) {
            throw PortalError(.misuse, "prepare takes one SQL statement; run several with query or execute")
        }
        let writes = !statement.isReadOnly
        if writes && !allowsWrites { throw PortalError(.writeInRead, "a read cannot change the database; use a write") }
        return PreparedStatement(statement, context: self, writes: writes, changesRowsOnly: writes && SQLStatements.changesRowsOnly(sql))
    }
}

/// A statement of raw SQL prepared by `ReadContext.prepare`, to run again and again with new
/// arguments (`?` parameters in order, or `$name`/`:name`/`@name` by name). Valid only inside
/// the read or write that prepared it: used after that closure returned it throws `.misuse`;
/// it is not `Sendable`, so the compiler keeps it from going to another task or thread.
public final class PreparedStatement {
    /// The connection's cached statement, or one of its own once the cached one was found
    /// running for another user of the same text (a loop inside a loop).
    @exclusivity(unchecked) private(set) var statement: any DatabaseStatement {
        didSet { reading = statement as? any ColumnReadingStatement }
    }
    /// How many parameters the statement has (the same for its re-prepared copies: same text).
    private let parameterCount: Int
    /// The same statement when its runs can be controlled without clearing its bindings (a
    /// loop of executions pays no dynamic cast per run).
    ///
    /// This and the flags below are read on every run, unchecked: a statement is not
    /// `Sendable`, so one thread runs it, and the dynamic exclusivity checks cost more than a run's
    /// own work on them.
    @exclusivity(unchecked) private var reading: (any ColumnReadingStatement)?
    /// True while one of this statement's runs reads its rows.
    @exclusivity(unchecked) private var running = false
    private let context: ReadContext
    /// The context's store, read once (a run notes a write on it).
    private let store: Store
    private let writes: Bool
    /// An INSERT, UPDATE or DELETE: its runs change rows, never the schema, so noting the
    /// write once (observers hear that anything may have changed, which stays said until the
    /// transaction ends) holds for every later run.
    private let changesRowsOnly: Bool
    /// The write has been noted (see `changesRowsOnly`).
    @exclusivity(unchecked) private var noted = false

    init(_ statement: any DatabaseStatement, context: ReadContext, writes: Bool, changesRowsOnly: Bool) {
        self.statement = statement
        let reading = statement as? any ColumnReadingStatement
        self.reading = reading
        parameterCount = reading?.parameterCount ?? 0
        self.context = context
        store = context.store
        self.writes = writes
        self.changesRowsOnly = changesRowsOnly
    }

    /// The SQL text.
    public var sql: String { statement.sql }

    /// The result's column names.
    public var columns: [String] { statement.columns.names }

    /// Every row of one execution with `arguments` bound to the `?` parameters in order.
    public func rows(_ arguments: [Value] = []) throws -> [Row] {
        try run(arguments) { try $0.rows() }
    }

    /// Every row of one execution with each `$name` (`:name`, `@name`) parameter bound to `arguments[name]`.
    public func rows(named arguments: [String: Value]) throws -> [Row] {
        try run(named: arguments) { try $0.rows() }
    }

    /// The rows of one execution, handed to `body` one at a time (none kept).
    public func forEach(_ arguments: [Value] = [], _ body: (Row) throws -> Void) throws {
        try run(arguments) { try $0.forEachRow(body) }
    }

    /// The rows of one execution decoded as `T` (by `RowDecodable` when `T` conforms, else by
    /// Codable, properties by column name).
    public func fetch<T: Decodable>(_ type: T.Type, _ arguments: [Value] = []) throws -> [T] {
        try run(arguments) { statement in
            let source = ColumnSource(statement: statement)
            defer { source.finish() }
            return try context.decodeRows(T.self, named: "\(T.self)", of: statement, from: source)
        }
    }

    /// The first column of the first row of one execution, or nil when there is no row.
    public func scalar(_ arguments: [Value] = []) throws -> Value? {
        try run(arguments) { try $0.step() ? $0.value(at: 0) : nil }
    }

    /// Runs the statement once to its end; returns how many rows it changed (0 for a query).
    @discardableResult
    public func execute(_ arguments: [Value] = []) throws -> Int {
        try start(binding: arguments.count)
        defer { finish() }
        try runToEnd(statement, arguments)
        guard writes else { return 0 }
        // The count straight from the statement's connection, without the context's.
        if let reading { return reading.connectionChanges }
        return context.connection.changes
    }

    /// Binds `arguments` and steps `statement` to its end (generic: the statement's type opened once).
    private func runToEnd(_ statement: some DatabaseStatement, _ arguments: [Value]) throws {
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// Runs `body` on the statement bound to `arguments`, leaving the statement reset.
    private func run<T>(_ arguments: [Value], _ body: (any DatabaseStatement) throws -> T) throws -> T {
        try start(binding: arguments.count)
        defer { finish() }
        try statement.bind(arguments)
        return try body(statement)
    }

    private func run<T>(named arguments: [String: Value], _ body: (any DatabaseStatement) throws -> T) throws -> T {
        try start()
        defer { finish() }
        try statement.bind(named: arguments)
        return try body(statement)
    }

    /// Checks the context is still open, and starts from a reset statement with no bindings
    /// (the cache shares it with other users of the same text) but when all `binding`
    /// parameters are about to be bound again.
    private func start(binding: Int? = nil) throws {
        try context.checkValid()
        // Resetting a statement whose rows are still being read would restart that loop.
        if running {
            throw PortalError(.misuse, "this prepared statement is still running (inside its own forEach): prepare it again for a nested run")
        }
        if let reading, reading.isRunning {
            statement = try context.connection.prepareUncached(statement.sql)
        }
        running = true
        if let reading {
            // Not running: reset already, or run to its end (a step starts it again).
            if binding != parameterCount { reading.clearBindings() }
        } else {
            statement.reset()
        }
        if writes && !(changesRowsOnly && noted) {
            store.noteRawWrite()
            noted = true
        }
    }

    private func finish() {
        running = false
        // Reset only: the next run clears or binds every parameter again.
        if let reading { reading.resetKeepingBindings() } else { statement.reset() }
    }
}
