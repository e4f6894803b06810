/// How a store opens its file.
public struct StoreOptions: Sendable {
    /// Refuse every write, open the file with `SQLITE_OPEN_READONLY`, never switch it to WAL nor
    /// checkpoint it: the file is left byte for byte as it was.
    public var readOnly: Bool
    /// Create the file when it does not exist (ignored when `readOnly`).
    public var create: Bool
    /// How long, in milliseconds, to wait for another connection's lock before failing with `.busy`.
    public var busyTimeout: Int
    /// How many read-only connections reads may use at once.
    public var maximumReaders: Int
    /// Switch the file to WAL when it opens (the default: readers and the writer never block each
    /// other). False leaves the file's journal mode as it is, for a program that must not change
    /// the files it opens, and that must open a file another process is writing in rollback mode
    /// (switching to WAL would wait for that process's lock).
    public var switchesToWAL = true
    /// Asked between the statements of a write, before its commit, and during every wait for
    /// another connection's lock (opening included): while it returns true, they stop with
    /// `.interrupted` and the write rolls back. `Store.interrupt()` stops only the statement
    /// running at that instant; a program whose signal handler can only set a flag passes that
    /// flag here, so that a signal arriving between two statements, or just before the commit,
    /// is not lost.
    public var interruptRequested: (@Sendable () -> Bool)?
    /// Where the schema comes from: the database's own tables (nil, the default), or a catalog
    /// that maps another naming onto them (a Core Data store's model).
    public var catalog: (any Catalog)?
    /// Chooses the catalog by what the database holds, asked once with the store's first
    /// connection (before any read): the catalog it returns replaces `catalog`; nil keeps it. A
    /// Core Data store is told by its tables and opened by its model without opening the file twice.
    public var catalogForFile: (@Sendable (any DatabaseConnection) throws -> (any Catalog)?)?

    /// Options with the given values; the defaults open (or create) a writable file and wait 5 s for locks.
    public init(readOnly: Bool = false, create: Bool = true, busyTimeout: Int = 5000, maximumReaders: Int = 4) {
        self.readOnly = readOnly
        self.create = create
        self.busyTimeout = busyTimeout
        self.maximumReaders = max(1, maximumReaders)
    }
}
