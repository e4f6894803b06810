import CSQLite
#if canImport(Glibc)
import Glibc
#endif
import PortalEngine

extension Store {
    /// Writes a new SQLite file at `path` holding every table, index, view and trigger of this
    /// store with all their rows, from one consistent state (SQLite's `VACUUM INTO`, on a
    /// connection of its own, so that it works on read-only stores and never waits on the
    /// writer). Refuses an existing file; stops when `StoreOptions.interruptRequested` says so,
    /// and then (or on any failure) removes the new file. Returns each table and its row count.
    public func copy(to path: String) throws -> [(String, Int)] {
        guard !isInMemory else { throw PortalError(.misuse, "an in-memory database cannot be copied from another connection") }
        let source = try Connection(path: self.path, readOnly: true, create: false,
                                    busyTimeout: Int32(clamping: options.busyTimeout),
                                    interruptRequested: options.interruptRequested)
        defer { source.close() }
        CollationFallback.install(on: source.handle)
        let file = try NewDatabaseFile(path)
        do {
            let vacuum = { try source.run("VACUUM INTO ?", [.text(path)]) }
            if let stop = options.interruptRequested { try source.stopping(when: stop, vacuum) } else { try vacuum() }
        } catch {
            file.remove()
            guard var error = error as? PortalError else { throw error }
            error.path = path
            throw error
        }
        let copy = try Store(path: path, options: StoreOptions(readOnly: true, create: false))
        defer { try? copy.close() }
        return try copy.read { ctx in
            try ctx.schema.entities.filter { $0.kind == .table }.map { ($0.name, try ctx.count($0.name)) }
        }
    }
}
