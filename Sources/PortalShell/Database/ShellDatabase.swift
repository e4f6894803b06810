import Foundation
import PortalCoreData
import PortalEngine
import PortalSQLite
import PortalPostgres
#if canImport(Glibc)
import Glibc
#endif

/// The shell's session on one database file: one engine `Store`, the schema under the names
/// users type, and the user's explicit transaction (`begin … commit`). Every write goes through
/// the store's write context (`Store.write`: its own `BEGIN IMMEDIATE … COMMIT`, or a savepoint
/// inside the user's transaction), so a failure changes nothing and observers see each commit.
final class ShellDatabase {
    let store: Store
    let path: String
    /// What the store opened: `path`, or an SQLite URI for it (see `readOnlyStorePath`).
    let storePath: String
    let isReadOnly: Bool
    private(set) var schema: Schema
    /// The user's transaction, between `begin` and `commit`/`rollback` (nil in a read-only
    /// session, whose `begin` only groups commands).
    private var transaction: Transaction?
    /// True between the user's `begin` and `commit`/`rollback`.
    private(set) var inUserTransaction = false
    /// The write context of the write running now: queries made inside a write run on it (they
    /// see its changes, and `create … RETURNING` is a write).
    private var activeWrite: WriteContext?

    /// The file name shown in the prompt.
    var displayName: String { Self.shortName(of: path) }

    /// The name of a file without its folder; a server database's name without its URL's
    /// host and query (`postgresql:///music?host=/run/postgresql` is `music`, not `postgresql`).
    static func shortName(of path: String) -> String {
        if CopyTo.isPostgresURL(path) {
            return PostgresServer.databaseName(of: path) ?? URLComponents(string: path)?.host ?? "postgres"
        }
        return path == ":memory:" ? ":memory:" : String(path.split(separator: "/").last ?? Substring(path))
    }

    /// What the session says on opening a Core Data store; nil for a plain database.
    private(set) var coreDataBanner: CoreDataBanner?

    init(path: String, readOnly: Bool, create: Bool, busyTimeout: Int,
         coreData: CoreDataOpening = .byModel) throws(ShellError) {
        if CopyTo.isPostgresURL(path) {
            let shown = PostgresServer(path).displayName
            do {
                var options = StoreOptions(readOnly: readOnly, create: false)
                options.interruptRequested = Interrupts.interruptRequested
                store = try Store(url: path, options: options)
            } catch {
                throw ShellError.cannotOpen("cannot open '\(shown)': \(error)", cause: error)
            }
            self.path = shown
            storePath = path
        } else {
            (store, storePath, coreDataBanner) = try Self.openFile(path, readOnly: readOnly, create: create,
                                                                    busyTimeout: busyTimeout, coreData: coreData)
            self.path = path
        }
        self.isReadOnly = readOnly
        self.schema = Schema(entities: [])
        do {
            try refreshSchema()
        } catch {
            throw ShellError.cannotOpen("cannot read the schema of '\(self.path)': \(error)", cause: error)
        }
    }

    /// Opens the SQLite file (a Core Data store by its model's names, unless told otherwise).
    private static func openFile(_ path: String, readOnly: Bool, create: Bool, busyTimeout: Int,
                                 coreData: CoreDataOpening) throws(ShellError) -> (Store, String, CoreDataBanner?) {
        if path != ":memory:" && !path.hasPrefix("file:") {
            var info = stat()
            if stat(path, &info) != 0 {
                if !create { throw ShellError.cannotOpen("cannot open '\(path)': no such file (use --create to create it)") }
                if readOnly { throw ShellError.cannotOpen("cannot create '\(path)' in read-only mode") }
            } else if (info.st_mode & S_IFMT) == S_IFDIR {
                throw ShellError.cannotOpen("cannot open '\(path)': it is a directory")
            } else if (info.st_mode & S_IFMT) != S_IFREG {
                // A device or a pipe (`/dev/zero`, `<(…)`) is no database: SQLite would take
                // its zeros, or the nothing it gets back, for an empty one.
                throw ShellError.cannotOpen("cannot open '\(path)': it is \(Self.kindOfFile(info.st_mode)), not a database file")
            } else if access(path, readOnly ? R_OK : R_OK | W_OK) != 0 {
                let reason = String(cString: strerror(errno))
                throw ShellError.cannotOpen("cannot open '\(path)': \(reason.lowercased())"
                                   + (readOnly ? "" : " (try --read-only if it is only readable)"))
            }
        }
        let storePath = readOnly ? try Self.readOnlyStorePath(path) : path
        do {
            // The shell leaves the file's journal mode as it found it (as the sqlite3 shell does),
            // and so can open a file that another process is writing in rollback mode.
            var options = StoreOptions(readOnly: readOnly, create: create, busyTimeout: busyTimeout)
            options.switchesToWAL = false
            options.interruptRequested = Interrupts.interruptRequested
            // The file's table names, read on its first connection, tell a Core Data store, which
            // opens by its model's names; a file that is not a database fails there, not at the
            // first command.
            options.catalogForFile = { connection in
                try CoreDataBanner.catalog(coreData, storePath: storePath,
                                           isCoreData: try CoreDataStoreInfo.isCoreDataStore(connection), displayPath: path)
            }
            let opened = try Store(path: storePath, options: options)
            let banner = opened.options.catalog is CoreDataStoreCatalog ? try CoreDataBanner.of(opened, displayPath: path) : nil
            return (opened, storePath, banner)
        } catch let error as ShellError {
            throw error
        } catch let error as PortalError {
            // SQLITE_READONLY_ROLLBACK: a hot journal that a read-only connection cannot roll back.
            if error.sqliteCode == SQLiteCode.readOnlyRollback { throw ShellError.cannotOpen(Self.hotJournalMessage(path), cause: error) }
            throw ShellError.cannotOpen("cannot open '\(path)': \(Self.openReason(error))", cause: error)
        } catch {
            throw ShellError.cannotOpen("cannot open '\(path)': \(error)")
        }
    }

    private static func kindOfFile(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    private static func openReason(_ error: PortalError) -> String {
        switch error.kind {
        case .notADatabase: return "the file is not an SQLite database (or it is damaged)"
        case .busy: return "the database is locked by another process (waited past --busy-timeout)"
        case .interrupted: return "interrupted while opening"
        case .cannotOpen: return "unable to open the file (permissions?)"
        default: return error.description
        }
    }

    /// The schema version `schema` was taken at, nil when it must be taken again.
    private var schemaVersion: Value?

    /// Takes the store's schema with the declared relationships added, when the schema's version
    /// (`PRAGMA schema_version`, a server's fingerprint) changed since it was last taken (another
    /// process, `sql`): asking the version is one statement, outside a transaction.
    func refreshSchema() throws {
        if let schemaVersion, try store.currentSchemaVersion() == schemaVersion { return }
        let (version, read) = try store.read { (try $0.schemaVersion, try $0.schema) }
        schema = read.addingRelationships(declaredRelationships)
        schemaVersion = version
    }

    /// Relationships declared with `relate` (saved per database, see `SavedRelationships`).
    private(set) lazy var declaredRelationships: [ForeignKey] = SavedRelationships.load(for: path)

    /// Adds (or, with `adding` false, removes) a declared relationship and saves the list;
    /// returns the file it was saved in (nil for a database that is not a file).
    func declare(_ key: ForeignKey, adding: Bool) throws -> String? {
        var keys = declaredRelationships
        keys.removeAll { $0 == key }
        if adding { keys.append(key) }
        let file = try SavedRelationships.save(keys, for: path)
        declaredRelationships = keys
        schemaVersion = nil
        try refreshSchema()
        return file
    }

    /// Runs `sql` and hands the statement to `body` once per row (the renderers' fast path).
    /// With `named`, parameters are bound by name (`sql`'s `$n`, `:n`, `@n`), not `bindings`.
    func queryStatement(_ sql: String, _ bindings: [Value], named: [String: Value]? = nil,
                        columns: ([String]) throws -> Void, row body: (any ColumnReadingStatement, Int32) throws -> Void) throws {
        try withContext { context in
            var count: Int32 = 0
            try context.forEachRow(sql, bindings, named: named, columns: { names in
                count = Int32(names.count)
                try columns(names)
            }) { statement in
                guard let reader = statement as? any ColumnReadingStatement else {
                    throw PortalError(.misuse, "the in-place renderers read statements that read their columns in place only")
                }
                try body(reader, count)
            }
        }
    }

    /// Runs `sql` and hands each row's values to `body`; the values array is reused.
    func query(_ sql: String, _ bindings: [Value], named: [String: Value]? = nil, columns: ([String]) throws -> Void,
               row body: ([Value]) throws -> Void) throws {
        try withContext { context in
            var values: [Value] = []
            try context.forEachRow(sql, bindings, named: named, columns: { names in
                values = [Value](repeating: .null, count: names.count)
                try columns(names)
            }) { statement in
                for i in values.indices { values[i] = statement.value(at: Int32(i)) }
                try body(values)
            }
        }
    }

    /// True when SQLite says `sql` only reads.
    func isReadOnly(_ sql: String) throws -> Bool {
        try withContext { try $0.isReadOnly(sql) }
    }

    /// Runs `body` on the running write's context, else in a read (which, inside the user's
    /// transaction, sees its uncommitted changes).
    func reading<T>(_ body: (ReadContext) throws -> T) throws -> T { try withContext(body) }

    /// The running write's context, else a read of the store (which, inside the user's
    /// transaction, runs on the writer and sees its uncommitted changes).
    private func withContext<T>(_ body: (ReadContext) throws -> T) throws -> T {
        // No read starts after a signal (one that came while its predicate compiled).
        try Executor.stopIfInterrupted()
        if let activeWrite { return try body(activeWrite) }
        if let transaction { return try transaction.read(body) }
        return try store.read(body)
    }

    /// Runs `body` through the store's write context: one transaction, or a savepoint inside
    /// the user's `begin`. A thrown error rolls everything of `body` back.
    func write<T>(_ body: (WriteContext) throws -> T) throws -> T {
        if !keepsCoreData, let refusal = coreDataBanner?.writeRefusal { throw PortalError(.notWritable, refusal) }
        if isReadOnly { throw PortalError(.readOnly, "the database is open read-only (--read-only): nothing was written") }
        let run = { (context: WriteContext) throws -> T in
            let outer = self.activeWrite
            self.activeWrite = context
            defer { self.activeWrite = outer }
            return try body(context)
        }
        if let transaction { return try transaction.write(run) }
        return try store.write(run)
    }

    /// Runs a write whose statements keep Core Data's bookkeeping (`create` and `update` ask the
    /// write context for it): on a Core Data store, the only writes the shell makes.
    func writeKeepingCoreData<T>(_ body: (WriteContext) throws -> T) throws -> T {
        keepsCoreData = true
        defer { keepsCoreData = false }
        return try write(body)
    }

    /// True while a write that keeps Core Data's bookkeeping runs.
    private var keepsCoreData = false

    /// Runs `body` on the writer outside a transaction (`VACUUM`, `ATTACH`, `DETACH`): refused
    /// inside the user's `begin`, where SQLite would refuse it.
    func writeOutsideTransaction<T>(_ body: (WriteContext) throws -> T) throws -> T {
        if let refusal = coreDataBanner?.writeRefusal { throw PortalError(.notWritable, refusal) }
        if isReadOnly { throw PortalError(.readOnly, "the database is open read-only (--read-only): nothing was written") }
        if inUserTransaction {
            throw PortalError(.misuse, "this statement cannot run inside a transaction: 'commit' or 'rollback' first")
        }
        let outer = activeWrite
        defer { activeWrite = outer }
        return try store.writeOutsideTransaction { context in
            activeWrite = context
            return try body(context)
        }
    }

    /// Databases attached with `sql ATTACH` (on the writer): `sql` then reads there too, as
    /// the readers do not see them.
    var hasAttachments = false
    /// True once `sql` made a temporary table or view, which exists on the writer's connection
    /// alone: `sql` then reads there too.
    var hasTemporaryObjects = false

    func begin() throws {
        if inUserTransaction { throw PortalError(.misuse, "a transaction is already open (commit or rollback it first)") }
        // A read-only session has no writer: its transaction only groups commands.
        if !isReadOnly { transaction = try store.beginTransaction() }
        inUserTransaction = true
    }

    func commit() throws {
        guard inUserTransaction else { throw PortalError(.misuse, "no transaction is open (begin one with 'begin')") }
        try transaction?.commit()
        transaction = nil
        inUserTransaction = false
    }

    func rollback() throws {
        guard inUserTransaction else { throw PortalError(.misuse, "no transaction is open (begin one with 'begin')") }
        inUserTransaction = false
        defer { transaction = nil }
        try transaction?.rollback()
    }

    /// Rolls back whatever is open (on interrupt and on close).
    func abandon() {
        try? transaction?.rollback()
        transaction = nil
        inUserTransaction = false
    }

    func close() {
        abandon()
        Interrupts.forget(store)
        try? store.close()
    }
}
