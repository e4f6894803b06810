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
    /// The connection's cached statement, prepared with this object: a `let`, so that a run
    /// reads it without a retain and release.
    private let prepared: any DatabaseStatement
    /// A statement of its own, once the cached one was found running for another user of the
    /// same text (a loop inside a loop); the runs use it from then on.
    ///
    /// This and the flags below are read on every run, unchecked: a statement is not
    /// `Sendable`, so one thread runs it, and the dynamic exclusivity checks cost more than a run's
    /// own work on them.
    @exclusivity(unchecked) private var replacement: (any DatabaseStatement)?
    /// `replacement != nil`, asked without copying the statement out.
    @exclusivity(unchecked) private var replaced = false
    /// The statement the runs use.
    var statement: any DatabaseStatement { replacement ?? prepared }
    /// How many parameters the statement has (the same for its re-prepared copies: same text).
    private let parameterCount: Int
    /// `prepared` when its runs can be controlled without clearing its bindings (a loop of
    /// executions pays no dynamic cast per run).
    private let preparedReading: (any ColumnReadingStatement)?
    /// The same for `replacement`.
    @exclusivity(unchecked) private var replacementReading: (any ColumnReadingStatement)?
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
        prepared = statement
        let reading = statement as? any ColumnReadingStatement
        preparedReading = reading
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
    /// Inlined into the caller, which then hands the arguments over where it made them: the
    /// array literal of a loop of executions stays in the loop's frame, with no allocation per run.
    @inlinable @discardableResult
    public func execute(_ arguments: [Value] = []) throws -> Int {
        try arguments.withUnsafeBufferPointer { try execute(valuesAt: $0) }
    }

    /// `execute` of the values in `arguments`.
    @usableFromInline
    func execute(valuesAt arguments: UnsafeBufferPointer<Value>) throws -> Int {
        // The common case, a loop of executions of the connection's own statement with every
        // parameter given, in one call to it (asked through `?.`: binding the statement to a
        // name would retain and release it). When another user of the same text has it running,
        // nothing was done: `start` below gives this one a statement of its own.
        if !replaced && !running && arguments.count == parameterCount {
            try context.checkValid()
            if let changes = try preparedReading?.runToEndUnlessRunning(binding: arguments) {
                // Noted once it ran (`start` notes the other ways): a failed run changed nothing.
                noteWrite()
                return writes ? changes : 0
            }
        }
        try start(binding: arguments.count, reading: false)
        // The run leaves the statement reset (bindings kept), as `finish` would.
        if !replaced {
            try prepared.runToEnd(binding: arguments)
            guard writes else { return 0 }
            // The count straight from the statement's connection, without the context's (asked
            // through `?.`: binding the statement to a name would retain and release it).
            if let changes = preparedReading?.connectionChanges { return changes }
        } else {
            try statement.runToEnd(binding: arguments)
            guard writes else { return 0 }
            if let replacementReading { return replacementReading.connectionChanges }
        }
        return context.connection.changes
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
    /// parameters are about to be bound again. `reading`: a body reads the rows, until `finish`.
    private func start(binding: Int? = nil, reading: Bool = true) throws {
        try context.checkValid()
        // Resetting a statement whose rows are still being read would restart that loop.
        if running {
            throw PortalError(.misuse, "this prepared statement is still running (inside its own forEach): prepare it again for a nested run")
        }
        if !replaced, let isRunning = preparedReading?.isRunning {
            // The common case, without a statement passed on or bound to a name (a retain and
            // release each run).
            if isRunning {
                try replace()
            } else if binding != parameterCount {
                // Not running: reset already, or run to its end (a step starts it again).
                preparedReading?.clearBindings()
            }
        } else {
            try start(statement, replaced ? replacementReading : preparedReading, binding: binding)
        }
        running = reading
        noteWrite()
    }

    /// Tells the store's observers of a run that writes (once for a statement that changes rows only).
    @inline(__always)
    private func noteWrite() {
        if writes && !(changesRowsOnly && noted) {
            store.noteRawWrite()
            noted = true
        }
    }

    /// `start`'s work on the statement in use: a statement of its own when the connection's is
    /// running for another user.
    private func start(_ statement: any DatabaseStatement, _ columnReading: (any ColumnReadingStatement)?, binding: Int?) throws {
        guard let columnReading else { return statement.reset() }
        if columnReading.isRunning {
            try replace()
        } else if binding != parameterCount {
            columnReading.clearBindings()
        }
    }

    /// Runs on a statement of its own from now on, prepared afresh (nothing to reset or clear).
    private func replace() throws {
        let own = try context.connection.prepareUncached(prepared.sql)
        replacement = own
        replacementReading = own as? any ColumnReadingStatement
        replaced = true
    }

    private func finish() {
        running = false
        // Reset only: the next run clears or binds every parameter again.
        if let reading = replaced ? replacementReading : preparedReading {
            reading.resetKeepingBindings()
        } else {
            statement.reset()
        }
    }
}
