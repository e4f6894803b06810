import CSQLite

// INTERFACE: the compiler's owner implements this. The engine calls it on every connection it
// opens, reader and writer alike, before any compiled predicate runs there.

/// The SQL functions compiled predicates call: Unicode case/diacritic folding, LIKE with `*`/`?`,
/// MATCHES with a cached regex.
public enum SQLFunctions {
    public static func register(on db: OpaquePointer) throws {}
}
