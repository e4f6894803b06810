import CSQLite
import PortalPredicate

// INTERFACE: the compiler's owner implements this (PRAGMA table_list / table_info /
// foreign_key_list / index_list, relationship naming of SPEC section 2). The engine calls it on
// open and whenever PRAGMA schema_version changes.

/// Reads the schema of an open SQLite connection.
public enum SchemaReader {
    public static func read(_ db: OpaquePointer) throws -> Schema {
        throw PredicateError(.unsupported, "the schema reader is not built yet")
    }
}
