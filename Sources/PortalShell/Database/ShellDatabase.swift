import CSQLite
import PortalEngine
#if canImport(Glibc)
import Glibc
#endif

/// Why a database could not be opened (exit status 3).
public struct OpenError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The shell's session on one database file: one engine connection that reads and writes, the
/// schema under the names users type, and the user's explicit transaction (`begin … commit`).
/// Every write runs inside a transaction (or a savepoint inside the user's), so a failure
/// changes nothing.
final class ShellDatabase {
    let connection: Connection
    let path: String
    let isReadOnly: Bool
    private(set) var schema: Schema
    private var schemaVersion: Int64 = -1
    /// True between the user's `begin` and `commit`/`rollback`.
    private(set) var inUserTransaction = false
    private var savepointCounter = 0

    /// The file name shown in the prompt.
    var displayName: String {
        path == ":memory:" ? ":memory:" : String(path.split(separator: "/").last ?? Substring(path))
    }

    init(path: String, readOnly: Bool, create: Bool, busyTimeout: Int) throws(OpenError) {
        if path != ":memory:" && !path.hasPrefix("file:") {
            var info = stat()
            if stat(path, &info) != 0 {
                if !create { throw OpenError(message: "cannot open '\(path)': no such file (use --create to create it)") }
                if readOnly { throw OpenError(message: "cannot create '\(path)' in read-only mode") }
            } else if (info.st_mode & S_IFMT) == S_IFDIR {
                throw OpenError(message: "cannot open '\(path)': it is a directory")
            } else if access(path, readOnly ? R_OK : R_OK | W_OK) != 0 {
                let reason = String(cString: strerror(errno))
                throw OpenError(message: "cannot open '\(path)': \(reason.lowercased())"
                                + (readOnly ? "" : " (try --read-only if it is only readable)"))
            }
        }
        do {
            connection = try Connection(path: path, readOnly: readOnly, create: create, busyTimeout: Int32(clamping: busyTimeout))
            if readOnly { try connection.execute("PRAGMA query_only = 1") }
            try connection.execute("PRAGMA foreign_keys = ON")
            try SQLFunctions.register(on: connection.handle)
            // Touch the file: a file that is not a database fails here, not at the first command.
            _ = try connection.scalar("SELECT count(*) FROM sqlite_schema")
        } catch let error as PortalError {
            throw OpenError(message: "cannot open '\(path)': \(Self.openReason(error))")
        } catch {
            throw OpenError(message: "cannot open '\(path)': \(error)")
        }
        self.path = path
        self.isReadOnly = readOnly
        self.schema = Schema(entities: [])
        do {
            try refreshSchema()
        } catch {
            throw OpenError(message: "cannot read the schema of '\(path)': \(error)")
        }
    }

    private static func openReason(_ error: PortalError) -> String {
        switch error.kind {
        case .notADatabase: return "the file is not an SQLite database (or it is damaged)"
        case .busy: return "the database is locked by another process (waited past --busy-timeout)"
        case .cannotOpen: return "unable to open the file (permissions?)"
        default: return error.description
        }
    }

    /// Re-reads the schema when `PRAGMA schema_version` says it changed (another process, `sql`).
    func refreshSchema() throws {
        let version: Int64
        if case .integer(let v)? = try connection.scalar("PRAGMA schema_version") { version = v } else { version = 0 }
        guard version != schemaVersion else { return }
        schema = try SchemaReader.read(connection.handle)
        schemaVersion = version
    }

    /// Runs `sql` and hands the statement to `body` once per row (the renderers' fast path).
    func queryStatement(_ sql: String, _ bindings: [Value], columns: ([String]) throws -> Void,
                        row body: (OpaquePointer, Int32) throws -> Void) throws {
        let statement = try connection.prepareUncached(sql)
        try statement.bind(bindings)
        let count = statement.columnCount
        try columns((0..<count).map(statement.columnName))
        while try statement.step() { try body(statement.handle, Int32(count)) }
    }

    /// Runs `sql` and hands each row's values to `body`; the values array is reused.
    func query(_ sql: String, _ bindings: [Value], columns: ([String]) throws -> Void,
               row body: ([Value]) throws -> Void) throws {
        let statement = try connection.prepareUncached(sql)
        try statement.bind(bindings)
        let count = statement.columnCount
        try columns((0..<count).map(statement.columnName))
        var values = [Value](repeating: .null, count: count)
        while try statement.step() {
            for i in 0..<count { values[i] = statement.value(at: Int32(i)) }
            try body(values)
        }
    }

    /// Runs `body` as one transaction: a savepoint inside the user's `begin`, else its own
    /// `BEGIN IMMEDIATE … COMMIT`. A thrown error rolls everything of `body` back.
    func write<T>(_ body: () throws -> T) throws -> T {
        if isReadOnly { throw PortalError(.readOnly, "the database is open read-only (--read-only): nothing was written") }
        if inUserTransaction {
            savepointCounter += 1
            let name = "portal_shell_\(savepointCounter)"
            try connection.execute("SAVEPOINT \(name)")
            do {
                let result = try body()
                try connection.execute("RELEASE \(name)")
                return result
            } catch {
                try? connection.execute("ROLLBACK TO \(name)")
                try? connection.execute("RELEASE \(name)")
                throw error
            }
        }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    func begin() throws {
        if inUserTransaction { throw PortalError(.misuse, "a transaction is already open (commit or rollback it first)") }
        if isReadOnly {
            try connection.execute("BEGIN DEFERRED")
        } else {
            try connection.execute("BEGIN IMMEDIATE")
        }
        inUserTransaction = true
    }

    func commit() throws {
        guard inUserTransaction else { throw PortalError(.misuse, "no transaction is open (begin one with 'begin')") }
        try connection.execute("COMMIT")
        inUserTransaction = false
    }

    func rollback() throws {
        guard inUserTransaction else { throw PortalError(.misuse, "no transaction is open (begin one with 'begin')") }
        inUserTransaction = false
        try connection.execute("ROLLBACK")
    }

    /// Rolls back whatever is open (on interrupt and on close).
    func abandon() {
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        inUserTransaction = false
    }

    func close() {
        abandon()
        connection.close()
    }
}
