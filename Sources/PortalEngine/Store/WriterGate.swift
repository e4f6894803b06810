import Foundation

/// The writer's lock: one thread at a time, re-entrant for the thread that holds it (so a write
/// nested in a write, or a read inside a write, runs on the same connection instead of
/// deadlocking). Unlike `NSRecursiveLock` it can tell whether the current thread holds it.
final class WriterGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var owner: pthread_t?
    private var depth = 0

    /// Waits for the gate; returns true when the current thread already held it (a nested entry).
    @discardableResult
    func enter() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let me = pthread_self()
        if let owner, pthread_equal(owner, me) != 0 {
            depth += 1
            return true
        }
        while owner != nil { condition.wait() }
        owner = me
        depth = 1
        return false
    }

    func leave() {
        condition.lock()
        defer { condition.unlock() }
        depth -= 1
        if depth == 0 {
            owner = nil
            condition.signal()
        }
    }

    /// True when the calling thread holds the gate.
    var isHeldByCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let owner else { return false }
        return pthread_equal(owner, pthread_self()) != 0
    }
}
