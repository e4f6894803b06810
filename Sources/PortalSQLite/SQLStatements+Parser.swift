import CSQLite
import Foundation
import PortalEngine

/// Raw SQL cut into its statements by SQLite's own rule (`sqlite3_complete`): a `;` ends a
/// statement only outside strings, comments and trigger bodies, so `CREATE TRIGGER … BEGIN …;
/// END` stays whole and a statement hidden after a comment is not dropped.
extension SQLStatements {
    /// Each statement of `text` with its `;`; a last statement without one is kept as typed.
    /// Text holding only whitespace and comments is no statement.
    public static func split(_ text: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for c in text {
            current.append(c)
            if c == ";" && isComplete(current) {
                if hasStatement(current) { statements.append(current.trimmingWhitespace()) }
                current = ""
            }
        }
        if hasStatement(current) { statements.append(current.trimmingWhitespace()) }
        return statements
    }

    /// True when `text` ends with a whole statement and `;` (SQLite's `sqlite3_complete`).
    public static func isComplete(_ text: String) -> Bool { sqlite3_complete(withServerStringsMasked(text)) != 0 }

    /// True when `text` would end a statement if a `;` followed: no string, comment or trigger
    /// body is left open (the line ends there).
    public static func canEnd(_ text: String) -> Bool { isComplete(text + "\n;") }

    /// True when SQLite's parser reads `text` as a statement cut short (`SELECT a,`, `... UNION`,
    /// `CREATE TABLE t(`): it says "incomplete input". Asked of an empty in-memory database, so
    /// names that do not exist there are no error of this kind.
    public static func isIncompleteInput(_ text: String) -> Bool {
        ParsingDatabase.shared.withHandle { database in
            var statement: OpaquePointer?
            let code = sqlite3_prepare_v2(database, withServerStringsMasked(text), -1, &statement, nil)
            sqlite3_finalize(statement)
            return code == SQLITE_ERROR && String(cString: sqlite3_errmsg(database)) == "incomplete input"
        } ?? false
    }

    /// How many values one statement may bind (`SQLITE_LIMIT_VARIABLE_NUMBER` of this build).
    static let bindingLimit: Int? = {
        var database: OpaquePointer?
        defer { sqlite3_close(database) }
        guard sqlite3_open_v2(":memory:", &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nil) == SQLITE_OK,
              let database else { return nil }
        return Int(sqlite3_limit(database, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
    }()
}

/// An empty in-memory database that only parses (`isIncompleteInput`, asked at every line end
/// of a script's `sql` command): opened once, on first use, and used under its lock, as an
/// error message is the connection's until the next call.
private final class ParsingDatabase: @unchecked Sendable {
    static let shared = ParsingDatabase()
    private let lock = NSLock()
    private var handle: OpaquePointer?
    private var opened = false

    /// `body` on the database; nil when it cannot be opened.
    func withHandle<T>(_ body: (OpaquePointer) -> T) -> T? {
        lock.lock()
        defer { lock.unlock() }
        if !opened {
            opened = true
            if sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nil) != SQLITE_OK {
                sqlite3_close(handle)
                handle = nil
            }
        }
        return handle.map(body)
    }
}
