// The catalog seam: a store asks its catalog what the entities are and where they are stored.
// A plain SQLite file's catalog reads its PRAGMAs; a Core Data store's reads the model the app
// saved in it and maps its names onto the mangled tables and columns.

/// Reads the schema of an open database: entities, attributes, keys, relationships, indexes, and
/// the table and column each is stored in (see `Schema`). The store reads it on open and again
/// whenever the database's schema changes.
public protocol Catalog: Sendable {
    /// The schema of the database `connection` is open on.
    func schema(of connection: Connection) throws -> Schema
}

/// A plain SQLite database's catalog: every table and view is an entity under its own name, every
/// column an attribute, foreign keys are relationships (named as the man page says).
public struct SQLiteCatalog: Catalog {
    /// The catalog (it has no settings).
    public init() {}

    /// Read from `sqlite_schema` and the PRAGMAs.
    public func schema(of connection: Connection) throws -> Schema {
        try SchemaReader.read(connection.handle)
    }
}
