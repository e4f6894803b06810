#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered byte sink over a file descriptor: renderers append bytes, and the buffer goes out
/// with one `write(2)` per 64 KiB, so streaming a million rows costs a few thousand system calls.
public final class OutputStream {
    /// Where bytes go; nil for an in-memory stream (tests, `generate swift` into a string).
    public let fileDescriptor: Int32?
    /// What an in-memory stream has received.
    public private(set) var collected: [UInt8] = []
    // Unchecked: one renderer on one thread writes here; the dynamic exclusivity checks cost a
    // third of a CSV export.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private let capacity: Int
    private let ownsDescriptor: Bool
    /// The first write error (`ENOSPC`, `EPIPE`, …); later writes are dropped.
    public private(set) var writeError: Int32?

    /// An in-memory stream.
    public convenience init() { self.init(fileDescriptor: nil) }

    public init(fileDescriptor: Int32?, capacity: Int = 1 << 16, ownsDescriptor: Bool = false) {
        self.fileDescriptor = fileDescriptor
        self.capacity = capacity
        self.ownsDescriptor = ownsDescriptor
        buffer.reserveCapacity(capacity)
    }


    /// True when the descriptor is a terminal.
    public var isTerminal: Bool { fileDescriptor.map { isatty($0) == 1 } ?? false }

    /// What an in-memory stream has received, as text.
    public var text: String {
        flush()
        return String(decoding: collected, as: UTF8.self)
    }

    @inline(__always)
    public func write(_ byte: UInt8) {
        buffer.append(byte)
        if buffer.count >= capacity { flush() }
    }

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= capacity { flush() }
    }

    @inline(__always)
    public func write(bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    /// An integer in decimal, without building a string.
    public func write(integer value: Int64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { write(45) }
            write(bytes: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    public func write<S: Sequence>(bytes: S) where S.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { flush() }
    }

    /// Writes everything buffered; returns false when the descriptor refused it.
    @discardableResult
    public func flush() -> Bool {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard writeError == nil else { return false }
        flushedCount += buffer.count
        guard let fileDescriptor else {
            collected.append(contentsOf: buffer)
            return true
        }
        guard !isClosed else { return false }
        var offset = 0
        let total = buffer.count
        while offset < total {
            let written = buffer.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fileDescriptor, base + offset, total - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                writeError = errno
                return false
            }
            offset += written
        }
        return true
    }

    /// Drops what is buffered and not yet written (the output of a command that failed).
    public func discardBuffered() {
        buffer.removeAll(keepingCapacity: true)
    }

    /// How many bytes have left the buffer since the stream was made.
    public private(set) var flushedCount = 0

    /// The write error, cleared: the next write tries again (one failed command, then the next).
    public func takeWriteError() -> Int32? {
        defer { writeError = nil }
        return writeError
    }

    /// Flushes and, for a file opened by `output PATH`, closes it.
    public func close() -> Int32? {
        flush()
        if ownsDescriptor, !isClosed, let fileDescriptor, Glibc.close(fileDescriptor) != 0, writeError == nil { writeError = errno }
        isClosed = true
        return writeError
    }

    /// Set by `close`: the descriptor number may already belong to another file (a database's).
    private var isClosed = false

    deinit {
        guard !isClosed else { return }
        flush()
        if ownsDescriptor, let fileDescriptor { _ = Glibc.close(fileDescriptor) }
    }
}

