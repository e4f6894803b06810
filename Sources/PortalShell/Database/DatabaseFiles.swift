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

    // MARK: Read-only sessions

    /// What a read-only session hands SQLite for `path`. SQLite reads a WAL database through
    /// its -wal and -shm files and creates them when they are missing (and fails where it
    /// cannot, on read-only media), so when they hold nothing yet the file is opened
    /// `immutable`: read as it is, with no file created and no lock taken. When the -wal holds
    /// changes but the -shm is gone, the changes cannot be read without creating it: refused.
    static func readOnlyStorePath(_ path: String) throws(ShellError) -> String {
        guard path != ":memory:", !path.hasPrefix("file:"), isWAL(path) else { return path }
        // SQLite keeps the -wal beside the file a symbolic link leads to.
        var link = stat()
        let base = lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK ? resolvedPath(path) ?? path : path
        if fileSize(base + "-journal").map({ $0 > 0 }) ?? false { return path }   // SQLite decides (hot journal)
        let walSize = fileSize(base + "-wal")
        let hasShm = fileSize(base + "-shm") != nil
        if (walSize ?? 0) == 0 {
            return walSize != nil && hasShm ? path : "file:" + uriEscaped(path) + "?immutable=1"
        }
        if hasShm { return path }
        throw ShellError.cannotOpen("cannot open '\(path)' read-only: '\(base)-wal' holds committed changes not yet in the "
                           + "database (its writer did not close it), and reading them needs '\(base)-shm', which a read-only "
                           + "session does not create. Open it once without --read-only to fold them in, or copy the database "
                           + "with its -wal to a writable folder and open the copy")
    }

    /// The message for a read-only open that found a hot journal: SQLite must roll a crashed
    /// write back before anything can be read, and a read-only session cannot write.
    static func hotJournalMessage(_ path: String) -> String {
        "cannot open '\(path)' read-only: '\(path)-journal' is a hot journal, left by a write that crashed before it "
            + "finished, and reading needs it rolled back first. Open the database once without --read-only (where its "
            + "folder is writable; else copy the database and its -journal together to one that is) to roll the crashed "
            + "write back; the changes of that write are discarded, the rest is intact"
    }

    /// True when the file's header says WAL (read and write versions 2).
    private static func isWAL(_ path: String) -> Bool {
        guard let header = readFilePrefix(path, count: 20), header.count == 20 else { return false }
        return header[18] == 2 && header[19] == 2
    }

    private static func readFilePrefix(_ path: String, count: Int) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, count) }
        return n < 0 ? nil : Array(bytes[0..<n])
    }

    private static func fileSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// A path for an SQLite URI filename: every byte but letters, digits, `/`, `-`, `.`, `_`, `~` as %XX.
    private static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + ValueText.hex2(UInt32(byte))
            }
        }
        return out
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
