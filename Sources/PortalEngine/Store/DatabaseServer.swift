/// A database on a server (PostgreSQL). Its schema version is asked at most once a second (it
/// costs a query), every name needs the schema (the server folds unquoted names), and its
/// change marker is a snapshot's, offered to readers (`ReadContext.serverChangeMarker`).
public protocol DatabaseServer: DatabaseBackend {
    /// A cheap text that changes whenever the schema does (the schema is re-read then).
    func schemaFingerprint(on connection: any DatabaseConnection) throws -> String
}

extension DatabaseServer {
    /// The server itself.
    public var server: (any DatabaseServer)? { self }

    /// The fingerprint.
    public func schemaVersion(on connection: any DatabaseConnection) throws -> Value {
        .text(try schemaFingerprint(on: connection))
    }
}
