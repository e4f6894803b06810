// The catalog seam: a store asks its catalog what the entities are and where they are stored.
// By default that is the backend's own account of its tables; a catalog given in the store's
// options (a Core Data store's model) maps another naming onto them.

/// Reads the schema of an open database: entities, attributes, keys, relationships, indexes, and
/// the table and column each is stored in (see `Schema`), from the tables as the database has
/// them. The store reads it on open and again whenever the database's schema changes.
public protocol Catalog: Sendable {
    /// The schema of the database `connection` is open on; `tables` is the backend's own account
    /// of it (every table and view an entity under its own name).
    func schema(of connection: any DatabaseConnection, tables: Schema) throws -> Schema
}
