#if canImport(Glibc)
import Glibc
#endif

/// The files that make up the open database, so that `export … to` and `output` can refuse to
/// truncate one of them (which would destroy the database).
extension ShellDatabase {
    static let companionSuffixes = ["-journal", "-wal", "-shm"]

    /// Which of the database's files (the file, its -journal, -wal or -shm) `target` names, nil
    /// when none. An existing target is compared by device and inode (hard links, symbolic
    /// links, `./` and `..` all lead to the same inode); one that does not exist yet by its
    /// resolved path, so that a link to a WAL not yet created is caught too.
    func ownFile(named target: String) -> String? {
        guard path != ":memory:", !path.hasPrefix("file:") else { return nil }
        // SQLite puts the -wal and -journal beside the file a symbolic link leads to.
        let bases = [path] + (Self.resolvedPath(path).map { [$0] } ?? [])
        let files = bases.flatMap { base in [base] + Self.companionSuffixes.map { base + $0 } }
        var targetInfo = stat()
        let targetExists = stat(target, &targetInfo) == 0
        let resolvedTarget = Self.resolvedPath(target)
        for file in files {
            var info = stat()
            if targetExists && stat(file, &info) == 0 && info.st_dev == targetInfo.st_dev && info.st_ino == targetInfo.st_ino {
                return file
            }
            if let resolvedTarget, resolvedTarget == Self.resolvedPath(file) { return file }
        }
        return nil
    }

    /// Throws when `target` is one of the database's files; `verb` says what was refused.
    func refuseOwnFile(_ target: String, _ verb: String) throws {
        guard let file = ownFile(named: target) else { return }
        let what = file == path ? "the open database" : "a file of the open database ('\(file)')"
        throw ShellError("cannot \(verb) '\(target)': it is \(what), and writing there would destroy it; nothing was written")
    }

    /// `path` with symbolic links, `.` and `..` resolved, also when its last part does not exist
    /// (then its folder is resolved); nil when the folder does not exist.
    static func resolvedPath(_ path: String) -> String? {
        var current = path
        // Follow a chain of links on the last part (40, as the kernel does).
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { break }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : folder(of: current) + "/" + target
        }
        let name = current.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? current
        guard let real = realpath(folder(of: current), nil) else { return nil }
        defer { free(real) }
        let resolvedFolder = String(cString: real)
        return (resolvedFolder == "/" ? "" : resolvedFolder) + "/" + name
    }

    /// The folder part of a path: `.` for a bare name.
    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
