#if canImport(Glibc)
import Glibc
#endif

/// The file a copy writes: created empty by this process (`O_CREAT | O_EXCL`), so that a file
/// that exists — also one another process made a moment ago — is refused and never removed.
/// SQLite takes an empty file as a new database.
public struct NewDatabaseFile: Sendable {
    /// Where the file is.
    public let path: String

    /// Creates the empty file; refuses one that exists.
    public init(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = errno
            if reason == EEXIST { throw PortalError(.misuse, "'\(path)' exists: a copy is written to a new file", path: path) }
            throw PortalError(.cannotOpen, "cannot create \(path): \(String(cString: strerror(reason)))", path: path)
        }
        close(descriptor)
        self.path = path
    }

    /// Removes the file and the journal files SQLite may have made beside it (a copy that
    /// failed leaves nothing behind).
    public func remove() {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }
}
