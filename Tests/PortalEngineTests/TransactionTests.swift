import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

private struct Abort: Error {}

@Suite struct TransactionTests {
    @Test func aThrownErrorRollsBackTheWholeWrite() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        #expect(throws: Abort.self) {
            try store.write { ctx in
                try ctx.create("User", ["name": "A"])
                throw Abort()
            }
        }
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
    }

    @Test func aConstraintViolationRollsBackAndIsTypedWithContext() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let error = portalError {
            try store.write { ctx in
                try ctx.create("User", ["name": "A", "age": 1])
                try ctx.create("User", ["age": 2])
            }
        }
        #expect(error?.kind == .constraint(.notNull))
        #expect(error?.entity == "User")
        #expect(error?.attribute == "name")
        #expect(error?.sqliteCode == 1299)
        #expect(error?.sqliteMessage == "NOT NULL constraint failed: User.name")
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
    }

    @Test func aNestedWriteIsASavepoint() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in
            try ctx.create("User", ["name": "outer"])
            // The inner write fails: only its own changes go.
            #expect(throws: Abort.self) {
                try store.write { inner in
                    try inner.create("User", ["name": "inner-failed"])
                    throw Abort()
                }
            }
            try store.write { inner in try inner.create("User", ["name": "inner-kept"]) }
            // A read inside the write sees the uncommitted rows.
            #expect(try store.read { r in try r.count("User") } == 2)
        }
        let names = try store.read { ctx in try ctx.find("User", sortedBy: [SortKey("name")]).compactMap { $0["name"] } }
        #expect(names == ["inner-kept", "outer"])
    }

    @Test func typedPortalCallsInsideAWriteJoinIt() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        #expect(throws: Abort.self) {
            try store.write { _ in
                try Portal<User>(store).create([User(id: 1, name: "A", age: nil)])
                throw Abort()
            }
        }
        #expect(try Portal<User>(store).count() == 0)
    }

    @Test func explicitTransactionsSpanCallsAndReadsSeeTheirWrites() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let other = try Store(path: folder.path("users.sqlite"))
        try store.beginTransaction()
        #expect(store.isInTransaction)
        try store.write { ctx in try ctx.create("User", ["name": "pending"]) }
        #expect(try store.read { ctx in try ctx.count("User") } == 1)
        #expect(try other.read { ctx in try ctx.count("User") } == 0)
        try store.rollback()
        #expect(!store.isInTransaction)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)

        try store.beginTransaction()
        #expect(portalError { try store.beginTransaction() }?.kind == .misuse)
        try store.write { ctx in try ctx.create("User", ["name": "kept"]) }
        try store.commit()
        #expect(try other.read { ctx in try ctx.count("User") } == 1)
        #expect(portalError { try store.commit() }?.kind == .misuse)
    }

    @Test func asyncAndCompletionWrites() async throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let row = try await store.write { ctx in try ctx.create("User", ["name": "async"]) }
        #expect(row["name"] == "async")
        let count: Int = try await withCheckedThrowingContinuation { continuation in
            store.write({ ctx in try ctx.create("User", ["name": "callback"]); return try ctx.count("User") },
                        completion: { continuation.resume(with: $0) })
        }
        #expect(count == 2)
        await #expect(throws: PortalError.self) {
            try await store.write { ctx in try ctx.create("User", ["name": "async"]) }
        }
    }

    @Test func aContextUsedAfterItsClosureThrowsMisuse() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let escapedRead = try store.read { ctx in ctx }
        let escapedWrite = try store.write { ctx in ctx }
        #expect(portalError { _ = try escapedRead.count("User") }?.kind == .misuse)
        #expect(portalError { _ = try escapedRead.query("SELECT 1") }?.kind == .misuse)
        #expect(portalError { _ = try escapedWrite.create("User", ["name": "late"]) }?.kind == .misuse)
        #expect(portalError { try escapedWrite.execute("DELETE FROM User") }?.kind == .misuse)
    }

    @Test func aReadCannotWrite() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let error = portalError { _ = try store.read { ctx in try ctx.query("INSERT INTO User (name) VALUES ('x')") } }
        #expect(error?.kind == .writeInRead)
        let memory = try Store.inMemory()
        try memory.write { ctx in try ctx.execute("CREATE TABLE T (a)") }
        #expect(portalError { _ = try memory.read { ctx in try ctx.query("INSERT INTO T VALUES (1)") } }?.kind == .writeInRead)
    }

    @Test func aReadSeesOneCommittedState() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in try ctx.create("User", ["name": "first"]) }
        try store.read { ctx in
            #expect(try ctx.count("User") == 1)
            // A commit made meanwhile (by the writer, which a read never blocks) stays invisible.
            try store.writeOnAnotherThread { w in try w.create("User", ["name": "second"]) }
            #expect(try ctx.count("User") == 1)
        }
        #expect(try store.read { ctx in try ctx.count("User") } == 2)
    }

    @Test func aReadNestedInAReadSharesItsSnapshotAndConnection() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("nested.sqlite"), options: StoreOptions(maximumReaders: 1))
        try store.write { ctx in try ctx.execute("CREATE TABLE T (a); INSERT INTO T VALUES (1)") }
        try store.read { outer in
            #expect(try outer.count("T") == 1)   // the snapshot starts at the first read
            try store.writeOnAnotherThread { w in try w.execute("INSERT INTO T VALUES (2)") }
            // With one reader allowed, a second connection would wait forever.
            let inner = try store.read { ctx in try ctx.count("T") }
            #expect(inner == 1)
            #expect(try outer.count("T") == 1)
        }
        #expect(try store.read { ctx in try ctx.count("T") } == 2)
    }

    @Test func closeCheckpointsAndRefusesFurtherUse() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in try ctx.create("User", ["name": "A"]) }
        try store.close()
        let walSize = (try? FileManager.default.attributesOfItem(atPath: folder.path("users.sqlite-wal"))[.size] as? Int) ?? 0
        #expect(walSize == 0)
        #expect(portalError { _ = try store.read { ctx in try ctx.count("User") } }?.kind == .misuse)
        #expect(portalError { try store.write { ctx in _ = try ctx.count("User") } }?.kind == .misuse)
        let reopened = try Store(path: folder.path("users.sqlite"))
        #expect(try reopened.read { ctx in try ctx.count("User") } == 1)
    }
}

/// Transactions as handles: any thread or task may run on the transaction `beginTransaction()`
/// returned, and sees its uncommitted changes; other threads' writes wait for it.
@Suite struct TransactionHandleTests {
    @Test func anotherThreadReadsAndWritesInsideTheTransaction() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let transaction = try store.beginTransaction()
        try transaction.write { ctx in try ctx.create("User", ["name": "in the transaction"]) }
        let seen = Mutexed(-1)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // A worker thread (the browser's) runs on the handle: it sees the uncommitted row
            // and its own write joins the transaction.
            let count = try? transaction.read { ctx in try ctx.count("User") }
            seen.set(count ?? -2)
            _ = try? transaction.write { ctx in try ctx.create("User", ["name": "from a worker"]) }
            done.signal()
        }
        done.wait()
        #expect(seen.value == 1)
        // A plain read of the store sees the last committed state.
        let committed = Mutexed(-1)
        let read = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            committed.set((try? store.read { ctx in try ctx.count("User") }) ?? -2)
            read.signal()
        }
        read.wait()
        #expect(committed.value == 0)
        try transaction.rollback()
        #expect(!transaction.isOpen)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
        #expect(portalError { try transaction.read { ctx in try ctx.count("User") } }?.kind == .misuse)
    }

    @Test func anotherThreadsWriteWaitsForTheCommit() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let transaction = try store.beginTransaction()
        let finished = Mutexed(false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? store.write { ctx in try ctx.create("User", ["name": "waited"]) }
            finished.set(true)
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!finished.value)   // held back by the open transaction, not failed
        try transaction.write { ctx in try ctx.create("User", ["name": "first"]) }
        try transaction.commit()
        done.wait()
        #expect(try store.read { ctx in try ctx.count("User") } == 2)
    }

    @Test func aTaskRunsOnTheTransaction() async throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let transaction = try store.beginTransaction()
        try await Task.detached {
            try transaction.write { ctx in _ = try ctx.create("User", ["name": "from a task"]) }
        }.value
        #expect(try transaction.read { ctx in try ctx.count("User") } == 1)
        try transaction.commit()
        #expect(try await store.read { ctx in try ctx.count("User") } == 1)
    }
}

extension Store {
    /// Runs a write on another thread and waits for it (for tests of isolation).
    func writeOnAnotherThread(_ body: @escaping @Sendable (WriteContext) throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutexed<Error?>(nil)
        Thread.detachNewThread {
            do { try self.write(body) } catch { failure.set(error) }
            done.signal()
        }
        done.wait()
        if let error = failure.value { throw error }
    }
}

/// A value guarded by a lock, for tests that collect results from several threads.
final class Mutexed<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func set(_ value: T) { lock.withLock { stored = value } }
    func mutate(_ body: (inout T) -> Void) { lock.withLock { body(&stored) } }
}
