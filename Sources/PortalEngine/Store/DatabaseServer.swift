/// A database on a server (PostgreSQL): how a store opens its connections, spells its
/// statements and reads its schema. PortalPostgres implements it (`Store(url:)`); the store
/// runs on it as on a SQLite file, through the connection protocol.
public protocol DatabaseServer: Sendable {
    /// The database as users name it, without a password (`Store.path`, messages).
    var displayName: String { get }
    /// How statements are spelled for the server.
    var dialect: any SQLDialect { get }
    /// A new connection: a reader's transactions are read-only and see one snapshot.
    func connect(readOnly: Bool) throws -> any DatabaseConnection
    /// A cheap text that changes whenever the schema does (the schema is re-read then).
    func schemaFingerprint(on connection: any DatabaseConnection) throws -> String
    /// The schema, read through `connection`.
    func schema(on connection: any DatabaseConnection) throws -> Schema
    /// A cheap value that changes whenever anyone commits a change to the database (it may also
    /// change when nothing this store reads did): observers poll it for other sessions' writes.
    func changeMarker(on connection: any DatabaseConnection) throws -> Value
    /// A marker that moves when the server notifies a change, read without a query, when every
    /// change is notified; else nil, and observers poll `changeMarker`. Unlike that one, it is
    /// no snapshot's: a reader takes it before its snapshot, not after.
    func notifiedChangeMarker() -> Value?
    /// The query of the server's catalog that lists `listing`, with its columns.
    func listing(_ listing: CatalogListing) -> String
}
