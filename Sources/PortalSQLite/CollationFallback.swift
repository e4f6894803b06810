import CSQLite
import Synchronization
import PortalEngine

/// Collations a database's schema names that this program does not have (Anki's `unicase`,
/// registered by the program that made the file): without one, SQLite refuses every statement
/// that touches its column or index. Each gets a stand-in when SQLite first needs it, on every
/// connection: Unicode case-insensitive order for a name that says `case` (`unicase`,
/// `nocase_utf8`), byte order (BINARY) for any other. The stand-ins are listed for the user.
public enum CollationFallback {
    private static let substitutions = Mutex<[Substitution]>([])

    /// An unknown collation and what stands in for it.
    public struct Substitution: Sendable, Hashable {
        public var name: String
        /// How texts are ordered instead, in words ("Unicode case-insensitive", "byte by byte").
        public var fallback: String
        /// Whether it has been handed out by `takeNew()`.
        var reported = false
    }

    /// The substitutions made since the last call (each handed out once), for a note.
    public static func takeNew() -> [Substitution] {
        substitutions.withLock { list in
            let new = list.filter { !$0.reported }
            for i in list.indices { list[i].reported = true }
            return new
        }
    }

    /// Asks SQLite to call back for a collation it does not know, on `db`.
    static func install(on db: OpaquePointer) {
        sqlite3_collation_needed(db, nil, needed)
    }

    private static let needed: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, Int32, UnsafePointer<CChar>?) -> Void = {
        _, db, _, name in
        guard let db, let name else { return }
        let collation = String(cString: name)
        let caseless = collation.lowercased().contains("case")
        guard SQLFunctions.registerStandIn(on: db, named: collation, caseInsensitive: caseless) else { return }
        let fallback = caseless ? "Unicode case-insensitive order" : "byte order (BINARY)"
        substitutions.withLock { list in
            if !list.contains(where: { $0.name == collation }) { list.append(Substitution(name: collation, fallback: fallback)) }
        }
    }
}
