import Foundation
import PortalEngine

/// A PostgreSQL database as a store's server: connections through libpq, statements in
/// PostgreSQL's dialect, the schema from `pg_catalog`.
///
///     let store = try Store(url: "postgresql://app@db.example.com/hikes")
public struct PostgresServer: DatabaseServer {
    /// The libpq connection string or URL.
    public let conninfo: String

    /// The database `conninfo` names (a `postgres://` URL or `key=value` words; the `PG*`
    /// environment variables fill in what it leaves out).
    public init(_ conninfo: String) {
        self.conninfo = conninfo
        listener = ChangeListener(conninfo: conninfo)
    }

    /// The listening connection for `notifiedChangeMarker` (shared by the copies of this value).
    private let listener: ChangeListener

    /// The URL without its password.
    public var displayName: String { Self.withoutPassword(conninfo) }

    public var dialect: any SQLDialect { PostgresDialect() }

    public func connect(readOnly: Bool) throws -> any DatabaseConnection {
        try PostgresConnection(conninfo, readOnly: readOnly)
    }

    public func schemaFingerprint(on connection: any DatabaseConnection) throws -> String {
        try PostgresCatalog().fingerprint(of: try Self.postgres(connection))
    }

    public func schema(on connection: any DatabaseConnection) throws -> Schema {
        try PostgresCatalog().schema(of: try Self.postgres(connection))
    }

    /// The next transaction id the server will hand out (`PostgresConnection.changeMarkerSQL`),
    /// as the read's snapshot saw it.
    public func changeMarker(on connection: any DatabaseConnection) throws -> Value {
        if let known = (connection as? PostgresConnection)?.snapshotChangeMarker { return known }
        return try connection.scalar(PostgresConnection.changeMarkerSQL) ?? .null
    }

    /// The count of change notifications received, while every table notifies
    /// (`ChangeNotifications`): it costs no round trip.
    public func notifiedChangeMarker() -> Value? { listener.marker() }

    private static func postgres(_ connection: any DatabaseConnection) throws -> PostgresConnection {
        guard let postgres = connection as? PostgresConnection else {
            throw PortalError(.misuse, "a PostgreSQL catalog read over another kind of connection")
        }
        return postgres
    }

    /// `postgres://user:secret@host/db` as `postgres://user@host/db`, for messages.
    static func withoutPassword(_ conninfo: String) -> String {
        guard var parts = URLComponents(string: conninfo), parts.password != nil else { return conninfo }
        parts.password = nil
        return parts.string ?? conninfo
    }
}

extension Store {
    /// Opens the PostgreSQL database a `postgres://` or `postgresql://` URL (or a libpq
    /// `key=value` string) names, as `Store(path:)` opens a SQLite file: one writer connection,
    /// readers in read-only snapshot transactions, the same entity API and `Portal<T>`.
    public convenience init(url: String, options: StoreOptions = StoreOptions()) throws {
        try self.init(server: PostgresServer(url), options: options)
    }
}
