import Synchronization
import Foundation

/// A database: one writer connection behind a lock, a pool of read-only connections, the schema,
/// observers and migrations.
///
/// - Every `write` is one `BEGIN IMMEDIATE … COMMIT` on the writer; a thrown error rolls it back
///   and is rethrown. A write (or `beginTransaction`) nested inside a write on the same thread runs
///   as a savepoint of the outer one.
/// - Every `read` is one `BEGIN DEFERRED` transaction on a read-only connection of the pool, so it
///   sees one committed state; in WAL mode readers and the writer never block each other. A read
///   made on a thread that is inside a write (or an explicit transaction) runs on the writer, so
///   it sees the uncommitted changes.
/// - In-memory stores have a single connection (a private `:memory:` database cannot be shared
///   with other connections without shared cache, whose table locks would make readers block the
///   writer): reads and writes take turns on it.
public final class Store: @unchecked Sendable {
    /// The database as users name it: the file, `:memory:`, or a server's database without its password.
    public let path: String
    /// How the store was opened.
    public let options: StoreOptions
    /// True for a private in-memory database (one connection: reads run on the writer).
    public let isInMemory: Bool
    /// True when every write is refused.
    public var isReadOnly: Bool { options.readOnly }
    /// How statements are spelled for this store's database.
    public let dialect: any SQLDialect
    /// The kind of database the store is open on.
    public let backend: any DatabaseBackend
    /// The server the store is open on, nil for a database file.
    public let server: (any DatabaseServer)?
    /// True when the catalog names entities otherwise than their tables (a Core Data store), or
    /// the database resolves names otherwise than the engine (a server folds unquoted names to
    /// lower case, where SQLite ignores case): every statement then needs the schema to find its
    /// table and columns.
    let catalogMapsNames: Bool
    /// How writes are made: the catalog's policy (a Core Data store's bookkeeping), else the
    /// plain one. Chosen once: a dynamic cast of the options' catalog on every insert of a bulk
    /// write would cost more than the insert's binding.
    package let writePolicy: any WritePolicy

    let writer: (any DatabaseConnection)?
    let gate = WriterGate()
    private let readers: ReaderPool?
    let changes = ChangeTracker()
    let schemaCache: SchemaCache
    let observation = ObservationCenter()
    /// Serial queue for async writes and `write(_:completion:)`, so async callers never block
    /// the cooperative thread pool on the writer's lock.
    private let asyncWriteQueue = DispatchQueue(label: "portal.store.write")
    private let stateLock = NSLock()
    private var isClosed = false
    /// The transaction `beginTransaction()` opened, while it is open (guarded by `stateLock`).
    private var openTransactionHandle: Transaction?
    /// What other modules keep with the store, one object for each type (guarded by `stateLock`).
    private var attachments: [ObjectIdentifier: AnyObject] = [:]

    /// Opens the database of `backend`: a writer connection (unless `options.readOnly`), and
    /// readers as reads need them (none for an in-memory database: reads run on the writer).
    /// A local connection's writes are noted row by row for observers; on a server they are
    /// noted by entity, and raw SQL that writes tells them anything may have changed.
    public init(backend: any DatabaseBackend, options: StoreOptions = StoreOptions()) throws {
        var options = options
        path = backend.displayName
        self.backend = backend
        dialect = backend.dialect
        server = backend.server
        isInMemory = backend.isInMemory
        let writer = options.readOnly ? nil : try backend.connect(readOnly: false)
        // The catalog the database's tables call for, chosen on the first connection (which a
        // read-only store keeps as its first reader): the file is opened once. A read-only store
        // checks the database now in any case, so that a bad file fails at open time.
        var firstReader: (any DatabaseConnection)?
        if let choose = options.catalogForFile {
            let probe: any DatabaseConnection
            if let writer { probe = writer } else { probe = try backend.connect(readOnly: true); firstReader = probe }
            if let chosen = try choose(probe) { options.catalog = chosen }
        } else if writer == nil, !isInMemory {
            firstReader = try backend.connect(readOnly: true)
        }
        self.options = options
        interruptRequested = options.interruptRequested
        schemaCache = SchemaCache(backend: backend, catalog: options.catalog)
        catalogMapsNames = options.catalog != nil || server != nil
        writePolicy = (options.catalog as? any WritePolicyCatalog)?.writePolicy ?? PlainWritePolicy()
        self.writer = writer
        readers = isInMemory ? nil : ReaderPool(maximum: options.maximumReaders) { try backend.connect(readOnly: true) }
        if let firstReader { readers?.adopt(firstReader) }
        if options.readOnly { try readers?.withConnection { _, _, _ in } }
        (writer as? any LocalDatabaseConnection)?.observeChanges(changes)
        observation.attach(self)
    }

    /// Opens the database on `server`.
    public convenience init(server: any DatabaseServer, options: StoreOptions = StoreOptions()) throws {
        try self.init(backend: server, options: options)
    }

    deinit {
        observation.stop()
        readers?.close()
        if !isInMemory { (writer as? any LocalDatabaseConnection)?.checkpointWithoutWaiting() }
        writer?.close()
    }

    // MARK: Reading

    /// Runs `body` in one read transaction: it sees one committed state of the database.
    @discardableResult
    public func read<T>(_ body: (ReadContext) throws -> T) throws -> T {
        try checkOpen()
        if let writer, isInMemory || gate.mayUseLeaseFromCurrentThread {
            gate.enter()
            defer { gate.leave() }
            return try run(ReadContext(store: self, connection: writer)) { context in
                if writer.isInTransaction { return try body(context) }
                return try transaction(.deferred, on: writer) { try body(context) }
            }
        }
        guard let readers else { throw PortalError.misuse("the store has no reader") }
        return try readers.withConnection { connection, snapshot, nested in
            // A server's catalog may change under a transaction: its version is asked each time.
            let context = ReadContext(store: self, connection: connection, snapshot: server == nil ? snapshot : nil)
            return try run(context) { context in
                if nested { return try body(context) }   // inside this thread's read: same snapshot
                return try transaction(.deferred, on: connection) { try body(context) }
            }
        }
    }

    // MARK: Writing

    /// Runs `body` in one write transaction (a savepoint when nested in another write).
    @discardableResult
    public func write<T>(_ body: (WriteContext) throws -> T) throws -> T {
        try onWriter { writer in
            try run(WriteContext(store: self, connection: writer)) { context in
                if writer.isInTransaction { return try savepoint(on: writer) { try body(context) } }
                return try writeTransaction(on: writer) { try body(context) }
            }
        }
    }

    /// Runs `body` with the writer, holding the writer gate.
    private func onWriter<T>(_ body: (any DatabaseConnection) throws -> T) throws -> T {
        guard let writer else { throw readOnlyError() }
        gate.enter()
        defer { gate.leave() }
        try checkOpen()
        return try body(writer)
    }

    /// Runs `body` on the writer outside any transaction, for the statements SQLite refuses
    /// inside one (`VACUUM`, `ATTACH`, `DETACH`, `PRAGMA journal_mode`). Nothing rolls back on
    /// error; observers hear that anything may have changed. Fails while a transaction is open.
    @discardableResult
    public func writeOutsideTransaction<T>(_ body: (WriteContext) throws -> T) throws -> T {
        try onWriter { writer in
            if writer.isInTransaction {
                throw PortalError(.misuse, "this statement cannot run inside a transaction: commit or roll back first")
            }
            changes.begin()
            do {
                let result = try run(WriteContext(store: self, connection: writer), body)
                observation.didCommit(changes.take())
                return result
            } catch {
                changes.discard()
                throw error
            }
        }
    }

    // MARK: Async

    /// `read` from async code, on a thread of its own (the cooperative pool never waits for a
    /// connection). Cancelling the task interrupts the statement running for it alone: the read
    /// ends with `.interrupted`.
    @discardableResult
    public func read<T: Sendable>(_ body: @escaping @Sendable (ReadContext) throws -> T) async throws -> T {
        try await cancellable(on: .global()) { run in
            try self.read { context in try run.during(context.connection) { try body(context) } }
        }
    }

    /// `write` from async code, on the store's own serial queue. Cancelling the task interrupts
    /// its statement: the write rolls back and ends with `.interrupted`.
    @discardableResult
    public func write<T: Sendable>(_ body: @escaping @Sendable (WriteContext) throws -> T) async throws -> T {
        try await cancellable(on: asyncWriteQueue) { run in
            try self.write { context in try run.during(context.connection) { try body(context) } }
        }
    }

    /// Runs `work` on `queue` for an async caller, with the task's cancellation mapped to an
    /// interrupt of the connection `work` runs on.
    private func cancellable<T: Sendable>(on queue: DispatchQueue,
                                          _ work: @escaping @Sendable (TaskRun) throws -> T) async throws -> T {
        let run = TaskRun()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { continuation.resume(with: Result { try work(run) }) }
            }
        } onCancel: {
            run.cancel()
        }
    }

    /// `write` in the background; `completion` gets the result on the store's write queue.
    public func write<T: Sendable>(_ body: @escaping @Sendable (WriteContext) throws -> T,
                                   completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        asyncWriteQueue.async {
            completion(Result { try self.write(body) })
        }
    }

    /// One immediate transaction, with the entities it touched recorded for observers. An
    /// interrupt requested before the commit rolls it all back.
    private func writeTransaction<T>(on writer: any DatabaseConnection, _ body: () throws -> T) throws -> T {
        changes.begin()
        do {
            let result = try transaction(.immediate, on: writer) {
                let result = try body()
                try checkInterruptRequest()
                return result
            }
            observation.didCommit(changes.take())
            return result
        } catch {
            changes.discard()
            throw error
        }
    }

    func savepoint<T>(on writer: any DatabaseConnection, _ body: () throws -> T) throws -> T {
        try writer.savepoint("portal_nested")
        do {
            let result = try body()
            try writer.release(savepoint: "portal_nested")
            return result
        } catch {
            if writer.isInTransaction {
                try? writer.rollback(toSavepoint: "portal_nested")
                try? writer.release(savepoint: "portal_nested")
            }
            throw error
        }
    }

    /// Runs `body` in a transaction opened as `start` says, committed after (rolled back on error).
    private func transaction<T>(_ start: TransactionStart, on connection: any DatabaseConnection, _ body: () throws -> T) throws -> T {
        try connection.begin(start)
        do {
            let result = try body()
            try connection.commit()
            return result
        } catch {
            if connection.isInTransaction { try? connection.rollback() }
            throw error
        }
    }

    /// Hands `context` to `body` and makes it unusable afterwards.
    func run<C: ReadContext, T>(_ context: C, _ body: (C) throws -> T) throws -> T {
        defer { context.invalidate() }
        return try body(context)
    }

    // MARK: Explicit transactions (the shell's begin/commit/rollback)

    /// Opens a write transaction that spans calls, until its `commit()` or `rollback()`. The
    /// handle may be used from any thread or task (one call at a time): the shell and its
    /// browser's worker threads run on the same transaction and see its uncommitted changes.
    /// The thread that began it may also use the store directly: its `read` and `write` calls
    /// run inside the transaction, and `Store.commit()`/`rollback()` end it. Other threads'
    /// writes wait until it ends; their reads see the last committed state.
    @discardableResult
    public func beginTransaction() throws -> Transaction {
        guard let writer else { throw readOnlyError() }
        let nested = gate.enter()
        defer { gate.leave() }
        if nested || openTransaction != nil { throw PortalError.misuse("a transaction is already open") }
        try checkOpen()
        changes.begin()
        do {
            try writer.begin(.immediate)
        } catch {
            changes.discard()
            throw error
        }
        let transaction = Transaction(store: self)
        setOpenTransaction(transaction)
        gate.lease()   // before the gate is left, so that no other thread's write slips in
        return transaction
    }

    /// The transaction `beginTransaction()` opened, while it is open (any thread may ask).
    public var openTransaction: Transaction? {
        stateLock.lock()
        defer { stateLock.unlock() }
        return openTransactionHandle
    }

    private func setOpenTransaction(_ transaction: Transaction?) {
        stateLock.lock()
        openTransactionHandle = transaction
        stateLock.unlock()
    }

    /// True when a transaction `beginTransaction()` opened is open and this thread may use it
    /// through the store (it began it, or runs on it now).
    public var isInTransaction: Bool { openTransaction != nil && gate.mayUseLeaseFromCurrentThread }

    /// Commits the open transaction (from the thread that began it). When the commit fails (a
    /// deferred constraint, a busy lock) the transaction stays open: fix it and commit again, or
    /// roll back.
    public func commit() throws { try transactionOfCurrentThread().commit() }

    /// Rolls back the open transaction (from the thread that began it).
    public func rollback() throws { try transactionOfCurrentThread().rollback() }

    private func transactionOfCurrentThread() throws -> Transaction {
        guard let transaction = openTransaction, gate.mayUseLeaseFromCurrentThread else {
            throw PortalError.misuse("no transaction is open")
        }
        return transaction
    }

    /// Runs `body` on the writer for `transaction`, one caller at a time.
    func onTransaction<T>(_ transaction: Transaction, _ body: (any DatabaseConnection) throws -> T) throws -> T {
        guard let writer else { throw readOnlyError() }
        gate.enterLeased()
        defer { gate.leave() }
        guard openTransaction === transaction else { throw PortalError.misuse("the transaction has ended") }
        try checkOpen()
        return try body(writer)
    }

    /// Commits or rolls back `transaction`. A failed commit leaves it open; a rollback always
    /// ends it.
    func end(_ transaction: Transaction, commit: Bool) throws {
        try onTransaction(transaction) { writer in
            if commit {
                try checkInterruptRequest()
                try writer.commit()
                observation.didCommit(changes.take())
            } else {
                defer { changes.discard() }
                if writer.isInTransaction {
                    // The transaction ends even when the rollback reports an error.
                    defer { endLease() }
                    try writer.rollback()
                    return
                }
            }
            endLease()
        }
    }

    /// The open transaction is over: other threads' writes may go on.
    private func endLease() {
        setOpenTransaction(nil)
        gate.endLease()
    }

    // MARK: Schema

    /// The entities of the database, re-read whenever `PRAGMA schema_version` changes.
    public var schema: Schema {
        get throws { try read { try $0.schema } }
    }

    func schema(on connection: any DatabaseConnection) throws -> Schema {
        try schemaCache.schema(on: connection)
    }

    /// The schema's version now (`ReadContext.schemaVersion`): on a file, asked without a
    /// transaction (one `PRAGMA schema_version` on a reader, on the writer inside this thread's
    /// transaction); on a server, in a read, whose start gives the reader the session's settings
    /// (a `search_path` changes what names mean), as the store last checked its fingerprint. A
    /// caller that keeps what it derived from the schema compares it with the version it
    /// derived it from.
    public func currentSchemaVersion() throws -> Value {
        if server != nil { return try read { try $0.schemaVersion } }
        try checkOpen()
        if let writer, isInMemory || gate.mayUseLeaseFromCurrentThread {
            gate.enter()
            defer { gate.leave() }
            return try schemaCache.version(on: writer)
        }
        guard let readers else { throw PortalError.misuse("the store has no reader") }
        return try readers.withConnection { connection, _, _ in try schemaCache.version(on: connection) }
    }

    /// How many read-only connections the store has opened so far (for tests of its opening).
    var readerConnections: Int { readers?.count ?? 0 }

    // MARK: Attachments

    /// The object of type `T` kept with this store, made by `make` on first use: what another
    /// module of the package derives from the store and shares among all its users (the
    /// browser's compiled pages), living as long as the store.
    package func attachment<T: AnyObject>(_ make: () -> T) -> T {
        stateLock.lock()
        defer { stateLock.unlock() }
        let key = ObjectIdentifier(T.self)
        // Kept under its own type's key: the downcast cannot fail.
        if let found = attachments[key] { return unsafeDowncast(found, to: T.self) }
        let made = make()
        attachments[key] = made
        return made
    }

    // MARK: Interrupt and close

    /// Makes the statements running now stop with `.interrupted` (for Ctrl-C). Thread-safe.
    public func interrupt() {
        writer?.interrupt()
        readers?.interruptAll()
    }

    /// Rolls back an open explicit transaction of this thread, checkpoints what of the WAL it can
    /// without waiting (unless read-only) and closes every connection. Further use throws `.misuse`.
    public func close() throws {
        if let transaction = openTransaction { try? transaction.rollback() }
        observation.stop()
        gate.enter()
        defer { gate.leave() }
        stateLock.lock()
        let wasClosed = isClosed
        isClosed = true
        stateLock.unlock()
        guard !wasClosed else { return }
        readers?.close()
        guard let writer else { return }
        if !isInMemory { (writer as? any LocalDatabaseConnection)?.checkpointWithoutWaiting() }
        writer.close()
    }

    /// Raw SQL that writes may have changed any table, or the schema: observers hear that
    /// anything may have changed, and the schema's version is asked again at the next read.
    func noteRawWrite() {
        changes.noteUnknown()
        schemaCache.expire()
        rawWrites.add(1, ordering: .relaxed)
    }

    /// How many times raw SQL wrote: what a write derived from the schema (`create`'s plan of a
    /// table) is kept only while this stays the same.
    let rawWrites = Atomic<Int>(0)

    /// `options.interruptRequested`, kept apart: every statement of a write asks it, and a loop
    /// of inserts then reads one field rather than the options.
    private let interruptRequested: (@Sendable () -> Bool)?

    /// Throws `.interrupted` while `options.interruptRequested` says so.
    @inline(__always)
    func checkInterruptRequest() throws {
        if let interruptRequested, interruptRequested() { throw Store.interrupted() }
    }

    /// The error of a requested interrupt, made out of the way of the statements that ask.
    @inline(never)
    private static func interrupted() -> PortalError { PortalError(.interrupted, "interrupted") }

    func checkOpen() throws {
        stateLock.lock()
        defer { stateLock.unlock() }
        if isClosed { throw PortalError.misuse("the store is closed") }
    }

    func readOnlyError() -> PortalError {
        PortalError(.readOnly, "the store is read-only: writes are refused", path: path)
    }
}

/// The schema, read once per version (SQLite's `PRAGMA schema_version`, a server's fingerprint)
/// and shared by the store's connections.
final class SchemaCache: @unchecked Sendable {
    private let backend: any DatabaseBackend
    /// The catalog that maps the backend's tables onto entities, nil for the tables as they are.
    private let catalog: (any Catalog)?
    private let lock = NSLock()
    private var version: Value?
    private var cached: Schema?
    /// How many times the schema was read (the tests' measure of the cache).
    private(set) var reads = 0
    /// When a server's fingerprint was last asked (and what it was): asking costs more than a
    /// page of rows, so it is asked again only after `serverRecheck`, or after this store's own
    /// raw SQL wrote (`expire`). Another session's schema change is seen within that second.
    private var serverChecked: (at: UInt64, version: Value)?
    static let serverRecheck: UInt64 = 1_000_000_000

    /// True for a server's schema (checked on every raw write, without copying `backend`).
    private let isServer: Bool

    init(backend: any DatabaseBackend, catalog: (any Catalog)?) {
        self.backend = backend
        self.catalog = catalog
        isServer = backend.server != nil
    }

    /// The schema's version as of `connection`'s transaction.
    func version(on connection: any DatabaseConnection) throws -> Value {
        guard isServer else { return try backend.schemaVersion(on: connection) }
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        let checked = serverChecked
        lock.unlock()
        if let checked, now - checked.at < Self.serverRecheck { return checked.version }
        let version = try backend.schemaVersion(on: connection)
        lock.lock()
        serverChecked = (now, version)
        lock.unlock()
        return version
    }

    func schema(on connection: any DatabaseConnection) throws -> Schema {
        try schema(on: connection, version: try version(on: connection))
    }

    /// The schema as of `current`, `connection`'s version of it.
    func schema(on connection: any DatabaseConnection, version current: Value) throws -> Schema {
        lock.lock()
        if version == current, let cached {
            lock.unlock()
            return cached
        }
        lock.unlock()
        let schema: Schema
        do {
            schema = try read(on: connection)
        } catch let error as PortalPredicate.PortalPredicateError {
            var wrapped = PortalError(.database, "cannot read the schema: \(error.message)")
            wrapped.predicateError = error
            throw wrapped
        }
        lock.lock()
        version = current
        cached = schema
        reads += 1
        lock.unlock()
        return schema
    }

    /// Makes the next `version` ask the server again (a file's version is always asked).
    func expire() {
        guard isServer else { return }
        lock.lock()
        serverChecked = nil
        lock.unlock()
    }

    private func read(on connection: any DatabaseConnection) throws -> Schema {
        let tables = try backend.schema(on: connection)
        guard let catalog else { return tables }
        return try catalog.schema(of: connection, tables: tables)
    }
}
