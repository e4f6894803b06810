import Foundation
import Testing
@testable import PortalEngine
import PortalSQLite

/// A backend without a database: its connections record the transaction control the store asks
/// of them, in order, so that `Store`'s transactions, savepoints and writer gate are tested on
/// their own. A statement runs as a query of no rows.
private final class ControlLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    /// Makes the next `commit` of the writer fail (once).
    var failNextCommit = false
    /// How many connections are inside a write transaction now, and the most there ever were.
    private var writing = 0
    private(set) var mostWritingAtOnce = 0

    func note(_ entry: String) {
        lock.lock()
        defer { lock.unlock() }
        entries.append(entry)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    func startWriting() {
        lock.lock()
        defer { lock.unlock() }
        writing += 1
        mostWritingAtOnce = max(mostWritingAtOnce, writing)
    }

    func stopWriting() {
        lock.lock()
        defer { lock.unlock() }
        writing -= 1
    }

    func takeCommitFailure() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        defer { failNextCommit = false }
        return failNextCommit
    }
}

private final class DoubleStatement: DatabaseStatement {
    let sql: String
    /// What was asked of the statement, in order (`runToEnd`'s default is made of these).
    private(set) var calls: [String] = []
    /// How many rows `step` finds before it says done.
    var rows = 0
    init(_ sql: String) { self.sql = sql }
    func bind(_ values: [Value]) throws { calls.append("bind \(values.count)") }
    func step() throws -> Bool {
        calls.append("step")
        guard rows > 0 else { return false }
        rows -= 1
        return true
    }
    var columnCount: Int { 0 }
    func columnName(_ index: Int) -> String { "" }
    func value(at index: Int32) -> Value { .null }
    func reset() { calls.append("reset") }
    var isReadOnly: Bool { true }
}

private final class DoubleConnection: DatabaseConnection {
    let name: String
    let log: ControlLog
    private(set) var isInTransaction = false
    private var isWriting = false

    init(_ name: String, log: ControlLog) {
        self.name = name
        self.log = log
    }

    func prepare(_ sql: String) throws -> DoubleStatement { DoubleStatement(sql) }
    func execute(_ sql: String) throws { log.note("\(name): \(sql)") }
    func forEachStatement(_ sql: String, _ body: (any DatabaseStatement) throws -> Void) throws {
        try body(DoubleStatement(sql))
    }
    func interrupt() {}

    func begin(_ start: TransactionStart) throws {
        guard !isInTransaction else { throw PortalError(.misuse, "\(name): a transaction is already open") }
        log.note("\(name): begin \(start)")
        isInTransaction = true
        if start == .immediate {
            isWriting = true
            log.startWriting()
        }
    }

    func commit() throws {
        guard isInTransaction else { throw PortalError(.misuse, "\(name): no transaction to commit") }
        if log.takeCommitFailure() {
            log.note("\(name): commit failed")
            throw PortalError(.busy, "the commit failed")
        }
        log.note("\(name): commit")
        end()
    }

    func rollback() throws {
        guard isInTransaction else { throw PortalError(.misuse, "\(name): no transaction to roll back") }
        log.note("\(name): rollback")
        end()
    }

    private func end() {
        isInTransaction = false
        if isWriting {
            isWriting = false
            log.stopWriting()
        }
    }

    func savepoint(_ name: String) throws { log.note("\(self.name): savepoint") }
    func release(savepoint name: String) throws { log.note("\(self.name): release") }
    func rollback(toSavepoint name: String) throws { log.note("\(self.name): rollback to savepoint") }
    var changes: Int { 0 }
    var lastInsertRowid: Int64 { 0 }
    var totalChanges: Int { 0 }
    func close() {}
}

private struct DoubleBackend: DatabaseBackend {
    let log: ControlLog
    var displayName: String { "double" }
    var dialect: any SQLDialect { SQLiteDialect() }

    func connect(readOnly: Bool) throws -> any DatabaseConnection {
        DoubleConnection(readOnly ? "reader" : "writer", log: log)
    }
    func schemaVersion(on connection: any DatabaseConnection) throws -> Value {
        log.note("\((connection as? DoubleConnection)?.name ?? "?"): schema version")
        return .integer(1)
    }
    func schema(on connection: any DatabaseConnection) throws -> Schema { Schema(entities: []) }
    func changeMarker(on connection: any DatabaseConnection) throws -> Value { .integer(0) }
    func listing(_ listing: CatalogListing) -> String { "" }
}

/// The same as a server: it says so (`DatabaseBackend.server`), without a cast.
private struct DoubleServer: DatabaseServer {
    let log: ControlLog
    var displayName: String { "double server" }
    var dialect: any SQLDialect { SQLiteDialect() }

    func connect(readOnly: Bool) throws -> any DatabaseConnection {
        DoubleConnection(readOnly ? "reader" : "writer", log: log)
    }
    func schemaFingerprint(on connection: any DatabaseConnection) throws -> String { "1" }
    func schema(on connection: any DatabaseConnection) throws -> Schema { Schema(entities: []) }
    func changeMarker(on connection: any DatabaseConnection) throws -> Value { .integer(0) }
    func listing(_ listing: CatalogListing) -> String { "" }
}

private struct Refused: Error {}

@Suite struct StoreTransactionLogicTests {
    private let log = ControlLog()

    private func store(readOnly: Bool = false) throws -> Store {
        try Store(backend: DoubleBackend(log: log), options: StoreOptions(readOnly: readOnly))
    }

    @Test func aServerSaysItIsOneAndAFileBackendThatItIsNot() throws {
        #expect(DoubleBackend(log: log).server == nil)
        #expect(DoubleServer(log: log).server?.displayName == "double server")
        #expect(try store().server == nil)
        #expect(try Store(backend: DoubleServer(log: log)).server?.displayName == "double server")
    }

    /// A statement that has no run of its own binds, steps to the end and resets.
    @Test func aRunToTheEndIsBindStepsAndReset() throws {
        let statement = DoubleStatement("INSERT")
        statement.rows = 2
        try statement.runToEnd(binding: [.integer(1), .integer(2)])
        #expect(statement.calls == ["bind 2", "step", "step", "step", "reset"])
        try statement.runToEnd(binding: [InsertField.value(.integer(1)), .text(UnsafeBufferPointer(start: nil, count: 0))])
        #expect(statement.calls.suffix(3) == ["bind 2", "step", "reset"])
    }

    @Test func aWriteIsOneImmediateTransactionAndAReadADeferredOneOnAReader() throws {
        let store = try store()
        try store.write { _ in log.note("body") }
        try store.read { _ in log.note("read body") }
        #expect(log.all == ["writer: begin immediate", "body", "writer: commit",
                            "reader: begin deferred", "read body", "reader: commit"])
    }

    /// A read on a reader asks the schema's version once, however often it and the reads nested
    /// in it look at the schema (its snapshot keeps the schema as it was); the next read asks
    /// again. The writer, which may change the schema, asks each time.
    @Test func aReadAsksTheSchemaVersionOnce() throws {
        let store = try store()
        try store.read { context in
            _ = try context.schemaVersion
            _ = try context.schema
            try store.read { _ = try $0.schema }
            _ = try store.schema
            _ = try context.schemaVersion
        }
        try store.read { _ = try $0.schema }
        try store.write { context in
            _ = try context.schema
            _ = try context.schemaVersion
        }
        #expect(log.all == ["reader: begin deferred", "reader: schema version", "reader: commit",
                            "reader: begin deferred", "reader: schema version", "reader: commit",
                            "writer: begin immediate", "writer: schema version", "writer: schema version", "writer: commit"])
    }

    @Test func aThrownErrorRollsTheWriteBackAndIsRethrown() throws {
        let store = try store()
        #expect(throws: Refused.self) { try store.write { _ in throw Refused() } }
        #expect(log.all == ["writer: begin immediate", "writer: rollback"])
    }

    @Test func nestedWritesAreSavepointsAndAFailedOneRollsBackToItsOwn() throws {
        let store = try store()
        try store.write { _ in
            try store.write { _ in log.note("inner") }
            #expect(throws: Refused.self) { try store.write { _ in throw Refused() } }
            log.note("outer goes on")
        }
        #expect(log.all == ["writer: begin immediate",
                            "writer: savepoint", "inner", "writer: release",
                            "writer: savepoint", "writer: rollback to savepoint", "writer: release",
                            "outer goes on", "writer: commit"])
    }

    @Test func aReadInsideAWriteRunsOnTheWriterInItsTransaction() throws {
        let store = try store()
        try store.write { _ in try store.read { _ in log.note("read") } }
        #expect(log.all == ["writer: begin immediate", "read", "writer: commit"])
    }

    @Test func aReadOnAnotherThreadDuringAWriteRunsOnAReaderWithoutWaiting() throws {
        let store = try store()
        let log = self.log
        let entered = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let writeDone = DispatchSemaphore(value: 0)
        Thread {
            try? store.write { _ in
                entered.signal()
                // The read finishes while this write is open: it never waited for the writer.
                let finished = readDone.wait(timeout: .now() + 10) == .success
                log.note(finished ? "read finished during the write" : "read waited")
            }
            writeDone.signal()
        }.start()
        entered.wait()
        try store.read { _ in log.note("read") }
        readDone.signal()
        writeDone.wait()
        #expect(log.all == ["writer: begin immediate", "reader: begin deferred", "read", "reader: commit",
                            "read finished during the write", "writer: commit"])
    }

    @Test func theWriterGateLetsOneWriteRunAtATime() throws {
        let store = try store()
        // Threads of their own, writing synchronously (async writes take turns on the store's queue anyway).
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20 { try? store.write { _ in Thread.sleep(forTimeInterval: 0.0001) } }
        }
        #expect(log.mostWritingAtOnce == 1)
        // Strictly begin, commit, begin, commit…: no write began inside another.
        let oneWrite = ["writer: begin immediate", "writer: commit"]
        #expect(log.all == Array(repeating: oneWrite, count: 8 * 20).flatMap { $0 })
    }

    @Test func aFailedCommitOfAWriteRollsBackAndThrows() throws {
        let store = try store()
        log.failNextCommit = true
        #expect(throws: PortalError.self) { try store.write { _ in log.note("body") } }
        #expect(log.all == ["writer: begin immediate", "body", "writer: commit failed", "writer: rollback"])
        try store.write { _ in }
        #expect(log.all.suffix(2) == ["writer: begin immediate", "writer: commit"])
    }

    @Test func aFailedCommitOfAnExplicitTransactionLeavesItOpen() throws {
        let store = try store()
        let transaction = try store.beginTransaction()
        try store.write { _ in log.note("inside") }
        log.failNextCommit = true
        #expect(throws: PortalError.self) { try store.commit() }
        #expect(store.openTransaction === transaction)
        try store.commit()
        #expect(store.openTransaction == nil)
        #expect(log.all == ["writer: begin immediate", "writer: savepoint", "inside", "writer: release",
                            "writer: commit failed", "writer: commit"])
    }

    @Test func anExplicitTransactionMakesOtherThreadsWritesWait() async throws {
        let store = try store()
        let log = self.log
        let transaction = try store.beginTransaction()
        let other = Task.detached { try await store.write { _ in log.note("other thread's write") } }
        try await Task.sleep(nanoseconds: 50_000_000)
        log.note("still open")
        // Through the handle: after the sleep this task may go on on another thread than the one that began it.
        try transaction.rollback()
        try await other.value
        #expect(log.all == ["writer: begin immediate", "still open", "writer: rollback",
                            "writer: begin immediate", "other thread's write", "writer: commit"])
    }

    @Test func aReadOnlyStoreOpensNoWriterAndRefusesWrites() throws {
        let store = try store(readOnly: true)
        #expect(throws: PortalError.self) { try store.write { _ in } }
        #expect(throws: PortalError.self) { try store.beginTransaction() }
        try store.read { _ in }
        #expect(log.all == ["reader: begin deferred", "reader: commit"])
    }
}
