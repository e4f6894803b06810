#if canImport(Glibc)
import Glibc
#endif

/// The file an `export` writes. A regular file (new or existing) is written beside its final
/// name and renamed over it only once complete: a failed or interrupted export leaves the old
/// file as it was, and never a half-written one. Anything else (a device, a pipe, `/dev/stdout`)
/// is written in place, as there is nothing to rename.
struct ExportFile {
    /// Where the bytes go now.
    let descriptor: Int32
    /// The name the file gets when it is complete; nil when written in place.
    private let finalPath: String?
    private let temporaryPath: String?

    init(_ path: String) throws {
        var info = stat()
        let exists = stat(path, &info) == 0
        // `/dev/stdout` and its kin name an open file: it is written, never replaced.
        let special = path.hasPrefix("/dev/") || path.hasPrefix("/proc/")
        guard !special && (!exists || (info.st_mode & S_IFMT) == S_IFREG) else {
            descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw ShellError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
            finalPath = nil
            temporaryPath = nil
            return
        }
        // Through a symbolic link, the file it leads to is replaced, not the link.
        let target = ShellDatabase.resolvedPath(path) ?? path
        let temporary = Self.temporaryName(for: target)
        let mode = exists ? mode_t(info.st_mode & 0o777) : 0o644
        descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw ShellError("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        finalPath = target
        temporaryPath = temporary
    }

    /// `.NAME.portal-export-PID` in the same folder, so that the rename stays on one file system.
    private static func temporaryName(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return folder + "." + name + ".portal-export-\(getpid())"
    }

    /// True when the file is written beside its final name (a regular file).
    var isReplacing: Bool { temporaryPath != nil }

    /// Makes the complete file durable before it replaces the old one.
    func synchronize() {
        if isReplacing { fsync(descriptor) }
    }

    /// Puts the complete file in place (the descriptor is already closed).
    func commit() throws {
        guard let finalPath, let temporaryPath else { return }
        guard rename(temporaryPath, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw ShellError("cannot write '\(finalPath)': \(reason); nothing was written")
        }
    }

    /// Removes the incomplete file (the descriptor is already closed).
    func discard() {
        if let temporaryPath { unlink(temporaryPath) }
    }
}
