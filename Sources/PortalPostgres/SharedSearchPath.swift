import Foundation

/// The `search_path` a store's connections share. PostgreSQL keeps it per session, but a store
/// has several (a writer, readers): a `SET search_path` (or `RESET`) that one of them runs is
/// published here, and each of the others takes it before its next transaction, so names mean
/// the same on every connection, as in the one session of psql.
final class SharedSearchPath: @unchecked Sendable {
    private let lock = NSLock()
    /// The path as `current_setting` gave it; nil while none was set (the server's default).
    private var value: String?
    /// Moves with each path published; 0 before any.
    private var generation = 0

    /// The path a connection that has taken `generation` lacks, with the generation it is.
    func newer(than taken: Int) -> (value: String, generation: Int)? {
        lock.withLock { value.flatMap { generation != taken ? ($0, generation) : nil } }
    }

    /// Publishes the path a connection now has; returns its generation.
    func publish(_ path: String) -> Int {
        lock.withLock {
            if path != value {
                value = path
                generation += 1
            }
            return generation
        }
    }
}
