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
    /// The search path the store's connections share (and the copies of this value).
    private let searchPath = SharedSearchPath()

    /// The URL without its password.
    public var displayName: String { Self.withoutPassword(conninfo) }

    public var dialect: any SQLDialect { PostgresDialect() }

    public func connect(readOnly: Bool) throws -> any DatabaseConnection {
        try PostgresConnection(conninfo, readOnly: readOnly, searchPath: searchPath)
    }

    public func schemaFingerprint(on connection: any DatabaseConnection) throws -> String {
        try PostgresCatalog().fingerprint(of: try Self.postgres(connection))
    }

    public func schema(on connection: any DatabaseConnection) throws -> Schema {
        let schema = try PostgresCatalog().schema(of: try Self.postgres(connection))
        listener.note(schema)
        return schema
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

    public func listing(_ listing: CatalogListing) -> String {
        switch listing {
        case .schemas: PostgresCatalog.schemasListing
        case .databases: PostgresCatalog.databasesListing
        }
    }

    private static func postgres(_ connection: any DatabaseConnection) throws -> PostgresConnection {
        guard let postgres = connection as? PostgresConnection else {
            throw PortalError(.misuse, "a PostgreSQL catalog read over another kind of connection")
        }
        return postgres
    }

    /// `postgres://user:secret@host/db` as `postgres://user@host/db`, and `password=secret` left
    /// out of `key=value` words, for messages.
    static func withoutPassword(_ conninfo: String) -> String {
        if let words = keywords(of: conninfo) {
            return words.filter { $0.key != "password" }.map { "\($0.key)=\(quotedValue($0.value))" }.joined(separator: " ")
        }
        guard var parts = URLComponents(string: conninfo), parts.password != nil else { return conninfo }
        parts.password = nil
        return parts.string ?? conninfo
    }

    /// True when `text` names a PostgreSQL database: a `postgres://` or `postgresql://` URL, or
    /// libpq's `key=value` words (`host=db dbname=music user=me`) whose keys are libpq's.
    public static func isConnectionString(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") || keywords(of: text) != nil
    }

    /// The database a connection string names (its `dbname`, or the last part of a URL's
    /// path), when it says one.
    public static func databaseName(of conninfo: String) -> String? {
        if let words = keywords(of: conninfo) { return words.last(where: { $0.key == "dbname" })?.value }
        return URLComponents(string: conninfo).flatMap { $0.path.split(separator: "/").last.map(String.init) }
    }

    /// The `key=value` words of a libpq connection string (a value may be in single quotes, with
    /// `\'` and `\\` inside), or nil when `text` is not one: empty, or a key that is not libpq's.
    static func keywords(of text: String) -> [(key: String, value: String)]? {
        var words: [(key: String, value: String)] = []
        var rest = Substring(text)
        while true {
            rest = rest.drop(while: \.isWhitespace)
            guard !rest.isEmpty else { break }
            let key = rest.prefix(while: { $0.isLetter || $0 == "_" })
            rest = rest[key.endIndex...].drop(while: \.isWhitespace)
            // `=` first: a file name never builds the set of keywords.
            guard rest.first == "=", libpqKeywords.contains(String(key)) else { return nil }
            rest = rest.dropFirst().drop(while: \.isWhitespace)
            var value = ""
            if rest.first == "'" {
                rest = rest.dropFirst()
                while let c = rest.first, c != "'" {
                    rest = rest.dropFirst()
                    if c == "\\", let escaped = rest.first { value.append(escaped); rest = rest.dropFirst() } else { value.append(c) }
                }
                guard rest.first == "'" else { return nil }
                rest = rest.dropFirst()
            } else {
                value = String(rest.prefix(while: { !$0.isWhitespace }))
                rest = rest.dropFirst(value.count)
            }
            words.append((String(key), value))
        }
        return words.isEmpty ? nil : words
    }

    private static func quotedValue(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0.isWhitespace || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// The keys of libpq's connection strings (PostgreSQL 15's documentation, 34.1.2).
    private static let libpqKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "channel_binding", "connect_timeout",
        "client_encoding", "options", "application_name", "fallback_application_name", "keepalives",
        "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode",
        "sslmode", "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslrootcert", "sslcrl",
        "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname",
        "gsslib", "service", "target_session_attrs", "load_balance_hosts", "sslcertmode", "require_auth",
    ]
}

extension Store {
    /// Opens the PostgreSQL database a `postgres://` or `postgresql://` URL (or a libpq
    /// `key=value` string) names, as `Store(path:)` opens a SQLite file: one writer connection,
    /// readers in read-only snapshot transactions, the same entity API and `Portal<T>`.
    public convenience init(url: String, options: StoreOptions = StoreOptions()) throws {
        try self.init(server: PostgresServer(url), options: options)
    }
}
