import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

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

/// A users store whose `interruptRequested` is the returned flag.
private func storeWithInterruptRequest(in folder: TemporaryFolder) throws -> (Store, Mutexed<Bool>) {
    _ = try makeUserStore(in: folder)
    let requested = Mutexed(false)
    var options = StoreOptions()
    options.interruptRequested = { requested.value }
    return (try Store(path: folder.path("users.sqlite"), options: options), requested)
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
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
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
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
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
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        try holder.commit()
        try waiting.write { ctx in try ctx.create("User", ["name": "after"]) }   // the store is still usable
        #expect(try waiting.read { ctx in try ctx.count("User") } == 1)
    }

    /// `interruptRequested` is asked between the statements of a write: a request that comes
    /// while no statement runs (where `sqlite3_interrupt` is lost) stops the next one, and the
    /// whole write rolls back.
    @Test func anInterruptRequestBetweenStatementsRollsTheWriteBack() throws {
        let folder = try TemporaryFolder()
        let (store, requested) = try storeWithInterruptRequest(in: folder)
        let error = portalError {
            try store.write { ctx in
                for i in 0..<100 {
                    if i == 50 { requested.set(true) }
                    try ctx.insert("User", columns: ["name"], values: [.text("u\(i)")])
                }
            }
        }
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        requested.set(false)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
    }

    /// A loop of a prepared statement's executions asks at every run too; a read does not ask
    /// (the request is about writes), prepared or not.
    @Test func anInterruptRequestStopsALoopOfPreparedExecutionsButNotARead() throws {
        let folder = try TemporaryFolder()
        let (store, requested) = try storeWithInterruptRequest(in: folder)
        var runs = 0
        let error = portalError {
            try store.write { ctx in
                let insert = try ctx.prepare("INSERT INTO User (name) VALUES (?)")
                for i in 0..<100 {
                    if i == 50 { requested.set(true) }
                    try insert.execute([.text("u\(i)")])
                    runs += 1
                }
            }
        }
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        #expect(runs == 50)
        requested.set(true)
        let counted = try store.read { ctx in try ctx.prepare("SELECT count(*) FROM User").scalar() }
        #expect(counted == 0)
        requested.set(false)
    }

    /// A request after the last statement but before the commit rolls the write back too.
    @Test func anInterruptRequestBeforeTheCommitRollsTheWriteBack() throws {
        let folder = try TemporaryFolder()
        let (store, requested) = try storeWithInterruptRequest(in: folder)
        let error = portalError {
            try store.write { ctx in
                try ctx.create("User", ["name": "a"])
                requested.set(true)
            }
        }
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        // The commit of an explicit transaction asks too; the transaction then stays open.
        requested.set(false)
        try store.beginTransaction()
        try store.write { ctx in try ctx.create("User", ["name": "b"]) }
        requested.set(true)
        #expect(portalError { try store.commit() }?.kind == .interrupted)
        try store.rollback()
        requested.set(false)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
    }

    /// A store that is opening behind another connection's exclusive lock stops waiting once
    /// an interrupt is requested (there is no store yet to call `interrupt()` on).
    @Test func anInterruptRequestEndsAWaitWhileOpening() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("users.sqlite")
        let holder = try Connection(path: path, readOnly: false, create: true)
        try holder.execute("CREATE TABLE User (id INTEGER PRIMARY KEY, name TEXT); BEGIN EXCLUSIVE; INSERT INTO User (name) VALUES ('x');")
        var options = StoreOptions(busyTimeout: 60_000)
        options.switchesToWAL = false
        options.interruptRequested = { true }
        let error = portalError { _ = try Store(path: path, options: options) }
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        try holder.execute("ROLLBACK")
    }

    /// Cancelling a task's async read interrupts that read alone: it ends `.interrupted` while
    /// another task's long read on the same store finishes with its answer.
    @Test(.timeLimit(.minutes(1))) func cancellingATaskInterruptsItsReadAlone() async throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let endless = Task {
            try await store.read { ctx in
                try ctx.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
            }
        }
        let finite = Task {
            try await store.read { ctx in
                try ctx.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT count(*) FROM n")
                    .rows.first?.values.first
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        endless.cancel()
        let error = await #expect(throws: PortalError.self) { try await endless.value }
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        #expect(try await finite.value == .integer(3_000_000))
    }

    /// Cancelling a task's async write interrupts it and rolls it back.
    @Test(.timeLimit(.minutes(1))) func cancellingATaskRollsItsWriteBack() async throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let endless = Task {
            try await store.write { ctx in
                _ = try ctx.create("User", ["name": "half"])
                return try ctx.execute("""
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
                    INSERT INTO User (name) SELECT 'u' || i FROM n
                    """)
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        endless.cancel()
        let error = await #expect(throws: PortalError.self) { try await endless.value }
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        #expect(try await store.read { ctx in try ctx.count("User") } == 0)
    }
}
