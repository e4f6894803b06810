/// A kind of database as a store sees it: how it opens its connections, spells its statements
/// and reads its schema. Each backend implements it (PortalSQLite's `SQLiteBackend` for a file,
/// PortalPostgres's `PostgresServer`); `Store(backend:options:)` runs on any of them, through
/// the connection protocol.
public protocol DatabaseBackend: Sendable {
    /// The database as users name it, without a password (`Store.path`, messages).
    var displayName: String { get }
    /// How statements are spelled for the database.
    var dialect: any SQLDialect { get }
    /// True when the database lives in its one connection (a private in-memory database): the
    /// store then reads and writes on that connection alone.
    var isInMemory: Bool { get }
    /// A new connection: a reader's transactions are read-only and see one snapshot.
    func connect(readOnly: Bool) throws -> any DatabaseConnection
    /// A cheap value that changes whenever the schema does (the schema is re-read then).
    func schemaVersion(on connection: any DatabaseConnection) throws -> Value
    /// The schema as the database has it (its own tables and columns), read through `connection`.
    func schema(on connection: any DatabaseConnection) throws -> Schema
    /// A cheap value that changes whenever anyone commits a change to the database (it may also
    /// change when nothing this store reads did): observers poll it for other connections' writes.
    func changeMarker(on connection: any DatabaseConnection) throws -> Value
    /// A marker that moves when the database notifies a change, read without a query, when every
    /// change is notified; else nil, and observers poll `changeMarker`. Unlike that one, it is
    /// no snapshot's: a reader takes it before its snapshot, not after.
    func notifiedChangeMarker() -> Value?
    /// The query of the database's catalog that lists `listing`, with its columns.
    func listing(_ listing: CatalogListing) -> String
    /// The backend as a server, nil for a database file. Asked instead of a cast
    /// (`as? any DatabaseServer`), which on a file's backend searches every protocol conformance
    /// of the program before it fails: a fifth of a one-line command's start-up.
    var server: (any DatabaseServer)? { get }
}

extension DatabaseBackend {
    /// A backend's database lives outside its connections unless it says otherwise.
    public var isInMemory: Bool { false }
    /// No notifications: observers poll.
    public func notifiedChangeMarker() -> Value? { nil }
    /// A database file's backend.
    public var server: (any DatabaseServer)? { nil }
}
