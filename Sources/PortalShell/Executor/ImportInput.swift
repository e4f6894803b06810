#if canImport(Glibc)
import Glibc
#endif

/// An import file read a chunk at a time: the readers parse a window of it in place, and the
/// window is refilled as they consume it, so memory stays flat whatever the file's size. It
/// grows only for a record larger than a chunk, up to `largestRecord`.
final class ImportInput {
    static let chunkSize = 1 << 20
    /// A record longer than this is refused rather than buffered: most likely a quote left open,
    /// which would otherwise read the rest of the file into memory.
    static let largestRecord = 64 << 20

    /// The window: bytes `start..<end` of `buffer` are read and not yet consumed.
    ///
    /// These are read for every record, unchecked: one reader uses an input, and the dynamic
    /// exclusivity checks would cost more than its own work on them.
    @exclusivity(unchecked) private(set) var buffer: [UInt8]
    /// The first byte not yet consumed; readers advance it.
    @exclusivity(unchecked) var start = 0
    @exclusivity(unchecked) private(set) var end = 0
    /// True once the source has no more bytes beyond `end`.
    @exclusivity(unchecked) private(set) var atEndOfFile = false
    /// The file's size in bytes (0 when unknown), and how many bytes came before the window:
    /// together, how far the import has got.
    let size: Int
    private var discarded = 0
    private let chunkSize: Int
    private let largestRecord: Int
    private let read: (UnsafeMutableRawBufferPointer) -> Int
    private let close: () -> Void

    /// Opens `path`; nil (errno set) when it cannot be opened or is a folder.
    convenience init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) != S_IFDIR else {
            _ = Glibc.close(descriptor)
            errno = EISDIR
            return nil
        }
        let size = (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : 0
        self.init(size: size, chunkSize: Self.chunkSize,
                  read: { Glibc.read(descriptor, $0.baseAddress, $0.count) }, close: { _ = Glibc.close(descriptor) })
    }

    /// Whether `path` names a regular file (which can be read twice), not a pipe or a device.
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Bytes in memory, handed out `chunkSize` at a time (tests cut records at every place).
    convenience init(bytes: [UInt8], chunkSize: Int, largestRecord: Int = ImportInput.largestRecord) {
        var offset = 0
        self.init(size: bytes.count, chunkSize: chunkSize, largestRecord: largestRecord, read: { target in
            let n = min(target.count, bytes.count - offset, chunkSize)
            target.copyBytes(from: bytes[offset..<(offset + n)])
            offset += n
            return n
        }, close: {})
    }

    private init(size: Int, chunkSize: Int, largestRecord: Int = ImportInput.largestRecord,
                 read: @escaping (UnsafeMutableRawBufferPointer) -> Int, close: @escaping () -> Void) {
        self.size = size
        self.chunkSize = max(chunkSize, 1)
        self.largestRecord = largestRecord
        self.buffer = [UInt8](repeating: 0, count: self.chunkSize)
        self.read = read
        self.close = close
    }

    deinit { close() }

    /// How many bytes of the file have been consumed.
    var position: Int { discarded + start }

    /// Reads more: the unconsumed bytes move to the front of the window and the rest is filled
    /// (the window doubles when they fill it). False at the end of the file. `line` is the
    /// line of the record being read, for the errors.
    func refill(line: Int) throws(ShellError) -> Bool {
        guard !atEndOfFile else { return false }
        if start > 0 {
            let kept = end - start
            buffer.withUnsafeMutableBufferPointer { window in
                guard let base = window.baseAddress else { return }
                base.update(from: base + start, count: kept)
            }
            discarded += start
            start = 0
            end = kept
        }
        if end == buffer.count {
            guard buffer.count < largestRecord else {
                throw ShellError(line: line, message: "a record longer than \(largestRecord >> 20) MiB (is a quote not closed?)")
            }
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { window in
                read(UnsafeMutableRawBufferPointer(rebasing: window[end...]))
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw ShellError(line: line, message: "reading failed: \(String(cString: strerror(errno)))") }
            if n == 0 { atEndOfFile = true }
            end += n
            return n > 0
        }
    }

    /// Makes `count` unconsumed bytes available, reading as needed; false when the file ends first.
    func ensure(_ count: Int, line: Int) throws(ShellError) -> Bool {
        while end - start < count {
            guard try refill(line: line) else { return false }
        }
        return true
    }

    /// Skips a UTF-8 byte order mark at the start of the file (editors on Windows write one);
    /// every import format reads past it.
    func skipByteOrderMark() throws(ShellError) {
        guard try ensure(3, line: 1) else { return }
        if withWindow({ $0[start] == 0xEF && $0[start + 1] == 0xBB && $0[start + 2] == 0xBF }) { start += 3 }
    }

    /// Runs `body` on the window (`start..<end` are the unconsumed bytes).
    @inline(__always)
    func withWindow<T, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> T) throws(E) -> T {
        try buffer.withUnsafeBufferPointer(body)
    }
}
