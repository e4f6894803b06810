import Foundation

/// Who may run on the writer connection now.
///
/// - One thread at a time runs on it, re-entrantly (a write nested in a write, or a read inside
///   a write, runs on the same connection instead of deadlocking).
/// - While an explicit transaction is open, the writer is *leased* to it: the transaction's
///   handle may be used from any thread (one at a time), and so may the thread that began it
///   (its `Store.read`/`write` calls run inside the transaction); every other thread's write
///   waits until the transaction ends.
final class WriterGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var owner: pthread_t?
    private var depth = 0
    /// The thread that began the open explicit transaction, while one is open.
    private var leaseHome: pthread_t?
    private var leased = false

    /// Waits for the gate on behalf of the calling thread; returns true when the thread already
    /// held it (a nested entry). While the writer is leased, only the transaction's home thread
    /// gets in.
    @discardableResult
    func enter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let me = pthread_self()
        if let owner, pthread_equal(owner, me) != 0 {
            depth += 1
            return true
        }
        while owner != nil || (leased && !isHome(me)) { condition.wait() }
        owner = me
        depth = 1
        return false
    }

    /// Waits for the gate on behalf of the open transaction (any thread may run on it).
    func enterLeased() {
        condition.lock()
        defer { condition.unlock() }
        let me = pthread_self()
        if let owner, pthread_equal(owner, me) != 0 {
            depth += 1
            return
        }
        while owner != nil { condition.wait() }
        owner = me
        depth = 1
    }

    func leave() {
        condition.lock()
        defer { condition.unlock() }
        depth -= 1
        if depth == 0 {
            owner = nil
            condition.broadcast()
        }
    }

    /// Leases the writer to a transaction begun by the calling thread (which holds the gate).
    func lease() {
        condition.lock()
        defer { condition.unlock() }
        leased = true
        leaseHome = pthread_self()
    }

    /// Ends the lease: other threads' writes may go on.
    func endLease() {
        condition.lock()
        defer { condition.unlock() }
        leased = false
        leaseHome = nil
        condition.broadcast()
    }

    /// True when the calling thread holds the gate.
    var isHeldByCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let owner else { return false }
        return pthread_equal(owner, pthread_self()) != 0
    }

    /// True when the calling thread may act on the open transaction without its handle: it
    /// began it, or it is running on the writer now.
    var mayUseLeaseFromCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        let me = pthread_self()
        if let owner, pthread_equal(owner, me) != 0 { return true }
        return leased && isHome(me)
    }

    private func isHome(_ thread: pthread_t) -> Bool {
        guard let leaseHome else { return false }
        return pthread_equal(leaseHome, thread) != 0
    }
}
