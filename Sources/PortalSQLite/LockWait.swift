import CSQLite
import Foundation
import PortalEngine

/// How a connection waits for another connection's lock: in short sleeps up to the busy
/// timeout, like `sqlite3_busy_timeout`, but cut short by `interrupt()`. (SQLite's own
/// `sqlite3_interrupt` stops running statements, not a wait for a lock, so Ctrl-C during a write
/// that waits behind another process would otherwise go unheard until the timeout.)
final class LockWait: @unchecked Sendable {
    private let timeout: UInt64   // nanoseconds
    private let lock = NSLock()
    /// How many times `interrupt()` was called (any thread, under `lock`).
    private var interrupts: UInt64 = 0
    // The wait in progress (the connection's thread only).
    private var started: UInt64 = 0
    private var interruptsAtStart: UInt64 = 0
    private var endedByInterrupt = false
    /// The store's interrupt request (`StoreOptions.interruptRequested`), asked at each retry.
    private let interruptRequested: (@Sendable () -> Bool)?

    /// The longest single sleep, so that an interrupt is noticed at once.
    private static let slice: UInt64 = 10_000_000

    init(timeoutMilliseconds: Int32, interruptRequested: (@Sendable () -> Bool)? = nil) {
        timeout = UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        self.interruptRequested = interruptRequested
    }

    /// Installs the wait as the connection's busy handler. The connection keeps `self` alive.
    func install(on db: OpaquePointer) {
        sqlite3_busy_handler(db, { context, count in
            guard let context else { return 0 }
            return Unmanaged<LockWait>.fromOpaque(context).takeUnretainedValue().shouldRetry(count) ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Ends the wait in progress, if any, and any that starts before it notices (thread-safe).
    func interrupt() {
        lock.lock()
        interrupts &+= 1
        lock.unlock()
    }

    /// True (once) when the last wait ended because of `interrupt()` rather than the timeout.
    func takeInterruption() -> Bool {
        defer { endedByInterrupt = false }
        return endedByInterrupt
    }

    private var interruptCount: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return interrupts
    }

    /// SQLite's question: the lock is still taken after `count` retries; try again?
    private func shouldRetry(_ count: Int32) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if count == 0 {
            LockWaits.began()
            started = now
            interruptsAtStart = interruptCount
            endedByInterrupt = false
        }
        if (count > 0 && interruptCount != interruptsAtStart) || interruptRequested?() == true {
            endedByInterrupt = true
            return false
        }
        let waited = now - started
        guard waited < timeout else { return false }
        // 1 ms at first, then longer, as SQLite's default handler does, but never past the slice.
        let pause = min(UInt64(1_000_000) << min(UInt64(count), 4), Self.slice, timeout - waited)
        usleep(useconds_t(pause / 1000))
        return true
    }
}

/// How many waits for another connection's lock have begun in this process. A program that
/// runs a write on another thread watches it to say at once that the write waits for a lock
/// (the browser's `waiting for a lock…`).
public enum LockWaits {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var begun: UInt64 = 0

    /// The number of waits begun so far.
    public static var count: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return begun
    }

    static func began() {
        lock.lock()
        begun &+= 1
        lock.unlock()
    }
}
