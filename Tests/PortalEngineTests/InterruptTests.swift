import Foundation
import Testing
@testable import PortalEngine

@Suite struct InterruptTests {
    /// Ctrl-C in the shell: `interrupt()` from another thread stops a running statement with
    /// `.interrupted`, and the store stays usable.
    @Test func interruptStopsARunningQuery() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let finished = Mutexed(false)
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Keep interrupting until the query has ended (it may not have started yet).
            while !finished.value {
                store.interrupt()
                Thread.sleep(forTimeInterval: 0.01)
            }
            stopped.signal()
        }
        let error = portalError {
            try store.read { ctx in
                try ctx.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
            }
        }
        finished.set(true)
        stopped.wait()   // no interrupt may land on the statements below
        #expect(error?.kind == .interrupted)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
    }

    @Test func anInterruptedWriteIsRolledBack() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let finished = Mutexed(false)
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !finished.value {
                store.interrupt()
                Thread.sleep(forTimeInterval: 0.01)
            }
            stopped.signal()
        }
        let error = portalError {
            try store.write { ctx in
                try ctx.create("User", ["name": "half"])
                try ctx.execute("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                    INSERT INTO User (name) SELECT 'u' || i FROM n
                    """)
            }
        }
        finished.set(true)
        stopped.wait()   // no interrupt may land on the statements below
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
        let finished = Mutexed(false)
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !finished.value {
                waiting.interrupt()
                Thread.sleep(forTimeInterval: 0.02)
            }
            stopped.signal()
        }
        let error = portalError { try waiting.write { ctx in try ctx.create("User", ["name": "late"]) } }
        finished.set(true)
        stopped.wait()
        #expect(error?.kind == .interrupted)
        try holder.commit()
        try waiting.write { ctx in try ctx.create("User", ["name": "after"]) }   // the store is still usable
        #expect(try waiting.read { ctx in try ctx.count("User") } == 1)
    }
}
