import CSQLite
import Foundation
import PortalEngine

/// A SQLite database file (or a private in-memory database) as a store's backend: its
/// connections are opened as `StoreOptions` says (WAL, busy timeout, the interrupt flag), with
/// the engine's SQL functions registered on each.
public struct SQLiteBackend: DatabaseBackend {
    /// The file (a `file:` URI is resolved by SQLite), or `:memory:`.
    public let path: String
    /// The options the connections are opened with.
    public let options: StoreOptions
    /// True for a private in-memory database (one connection).
    public let isInMemory: Bool
    /// SQLite's spelling, with the linked library's parser limits.
    public let dialect: any SQLDialect = SQLiteDialect.library

    /// The file at `path` (`:memory:` or an empty path for a private in-memory database). A file
    /// that does not exist is refused here when it is not to be created.
    public init(path: String, options: StoreOptions = StoreOptions()) throws {
        self.path = path
        self.options = options
        isInMemory = path == ":memory:" || path.isEmpty
        let isURI = path.hasPrefix("file:")   // SQLite resolves URI filenames itself
        if !isInMemory && !isURI && access(path, F_OK) != 0 && (options.readOnly || !options.create) {
            throw PortalError(.fileNotFound, "no database file at \(path)", path: path)
        }
    }

    /// The path as given.
    public var displayName: String { path }

    private var timeout: Int32 { Int32(clamping: options.busyTimeout) }

    /// The writer (WAL switched on unless the options say not, foreign keys enforced) or a
    /// read-only reader; a file that is no database fails here.
    public func connect(readOnly: Bool) throws -> any DatabaseConnection {
        readOnly ? try openReader() : try openWriter()
    }

    private func openWriter() throws -> Connection {
        let path = isInMemory ? ":memory:" : self.path
        let connection = try opening {
            try Connection(path: path, readOnly: false, create: options.create, busyTimeout: timeout,
                           interruptRequested: options.interruptRequested)
        }
        try opening {
            // Reading the schema version makes SQLite read the header: a non-database fails here.
            _ = try connection.scalar("PRAGMA schema_version")
            if path != ":memory:" && options.switchesToWAL {
                _ = try connection.scalar("PRAGMA journal_mode = WAL")
                try connection.execute("PRAGMA synchronous = NORMAL")
            }
            try connection.execute("PRAGMA foreign_keys = ON")
        }
        try SQLFunctions.register(on: connection.handle)
        return connection
    }

    private func openReader() throws -> Connection {
        let connection = try opening {
            try Connection(path: path, readOnly: true, create: false, busyTimeout: timeout,
                           interruptRequested: options.interruptRequested)
        }
        try opening { _ = try connection.scalar("PRAGMA schema_version") }
        try SQLFunctions.register(on: connection.handle)
        return connection
    }

    /// Adds the path to open-time errors.
    private func opening<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch var error as PortalError {
            error.path = path
            if error.kind == .notADatabase { error.message = "\(path) is not a database (\(error.sqliteMessage ?? "file is not a database"))" }
            throw error
        }
    }

    /// `PRAGMA schema_version`: it counts every change of the schema.
    public func schemaVersion(on connection: any DatabaseConnection) throws -> Value {
        guard let current = try connection.scalar("PRAGMA schema_version") else {
            throw PortalError(.database, "PRAGMA schema_version returned no value")
        }
        return current
    }

    /// Every table and view an entity under its own name, every column an attribute, foreign
    /// keys are relationships (named as the man page says): read from `sqlite_schema` and the PRAGMAs.
    public func schema(on connection: any DatabaseConnection) throws -> Schema {
        // The connection is one this backend opened: the reader calls SQLite on its handle.
        guard let sqlite = connection as? Connection else {
            throw PortalError.misuse("a SQLite schema read over another kind of connection")
        }
        return try SchemaReader.read(sqlite.handle)
    }

    /// `PRAGMA data_version`: it changes when another connection commits.
    public func changeMarker(on connection: any DatabaseConnection) throws -> Value {
        try connection.scalar("PRAGMA data_version") ?? .null
    }

    /// From `sqlite_schema` and the PRAGMAs.
    public func listing(_ listing: CatalogListing) -> String { listing.sqliteSQL }
}

extension Store {
    /// Opens (or creates) the SQLite database at `path`.
    public convenience init(path: String, options: StoreOptions = StoreOptions()) throws {
        try self.init(backend: try SQLiteBackend(path: path, options: options), options: options)
    }

    /// A new private in-memory database.
    public static func inMemory() throws -> Store {
        try Store(path: ":memory:", options: StoreOptions(readOnly: false, create: true))
    }
}
