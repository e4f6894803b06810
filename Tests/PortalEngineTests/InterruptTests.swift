import Foundation
import Testing
@testable import PortalEngine

/// The error `body` ends with while another thread keeps calling `store.interrupt()` (the
/// statement may not have started when the first interrupt lands); no interrupt is left to land
/// on what the caller runs after.
private func errorWhileInterrupting<T>(_ store: Store, _ body: () throws -> T) -> PortalError? {
    let finished = Mutexed(false)
    let stopped = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        while !finished.value {
            store.interrupt()
            Thread.sleep(forTimeInterval: 0.01)
        }
        stopped.signal()
    }
    let error = portalError(body)
    finished.set(true)
    stopped.wait()
    return error
}

@Suite struct InterruptTests {
    /// Ctrl-C in the shell: `interrupt()` from another thread stops a running statement with
    /// `.interrupted`, and the store stays usable.
    @Test func interruptStopsARunningQuery() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let error = errorWhileInterrupting(store) {
            try store.read { ctx in
                try ctx.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
            }
        }
        #expect(error?.kind == .interrupted)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
    }

    @Test func anInterruptedWriteIsRolledBack() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let error = errorWhileInterrupting(store) {
            try store.write { ctx in
                try ctx.create("User", ["name": "half"])
                try ctx.execute("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                    INSERT INTO User (name) SELECT 'u' || i FROM n
                    """)
            }
        }
        #expect(error?.kind == .interrupted)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
        try store.write { ctx in try ctx.create("User", ["name": "after"]) }
    }

    /// A write waiting for another connection's lock hears the interrupt at once instead of
    /// waiting out its busy timeout (a minute here: without the interrupt it would end `.busy`).
    @Test func anInterruptEndsAWaitForAnotherConnectionsLock() throws {
        let folder = try TemporaryFolder()
        _ = try makeUserStore(in: folder)
        let holder = try Store(path: folder.path("users.sqlite"))
        let waiting = try Store(path: folder.path("users.sqlite"), options: StoreOptions(busyTimeout: 60_000))
        try holder.beginTransaction()   // BEGIN IMMEDIATE: holds the write lock
        let error = errorWhileInterrupting(waiting) { try waiting.write { ctx in try ctx.create("User", ["name": "late"]) } }
        #expect(error?.kind == .interrupted)
        try holder.commit()
        try waiting.write { ctx in try ctx.create("User", ["name": "after"]) }   // the store is still usable
        #expect(try waiting.read { ctx in try ctx.count("User") } == 1)
    }
}
