import Foundation
import PortalEngine
import PortalSQLite

/// Wraps the data source for the interactive runner: a page query runs on its own thread while
/// the main thread keeps reading keys, so Ctrl-C can interrupt a slow one (a filter that scans a
/// huge table). Keys typed meanwhile are kept and replayed afterwards.
final class InterruptibleSource: BrowserDataSource, @unchecked Sendable {
    private let base: any BrowserDataSource
    /// Reads one key without waiting long (main thread only); nil when none came.
    private let poll: () -> BrowserKey?
    /// Keys typed while a query ran, oldest first (main thread only).
    private(set) var typedMeanwhile: [BrowserKey] = []
    /// Told (on the main thread, once per call) that a call is slow or waits for another
    /// process's lock, so that the screen can say so while it runs.
    var onBusy: ((BrowserBusy) -> Void)?
    /// How long a query may run before the screen says it is working.
    static let patience: UInt64 = 100_000_000

    init(_ base: any BrowserDataSource, poll: @escaping () -> BrowserKey?) {
        self.base = base
        self.poll = poll
    }

    func takeTypedKeys() -> [BrowserKey] {
        defer { typedMeanwhile = [] }
        return typedMeanwhile
    }

    func page(_ request: PageRequest) throws -> [BrowserRow] {
        let base = self.base
        return try interruptible { try base.page(request) }
    }

    /// Runs `body` on another thread; Ctrl-C meanwhile interrupts it through the source.
    private func interruptible<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let started = DispatchTime.now().uptimeNanoseconds
        let waitsBefore = LockWaits.count
        var said: BrowserBusy?
        let thread = Thread { outcome.finish(Result { try body() }) }
        thread.start()
        while true {
            if let result = outcome.wait(milliseconds: 20) { return try result.get() }
            if said != .waitingForLock, LockWaits.count != waitsBefore {
                said = .waitingForLock
                onBusy?(.waitingForLock)
            } else if said == nil, DispatchTime.now().uptimeNanoseconds - started >= Self.patience {
                said = .working
                onBusy?(.working)
            }
            guard let key = poll() else { continue }
            if key == .control("c") {
                base.cancel()
            } else if key != .tick {
                typedMeanwhile.append(key)
            }
        }
    }

    func entities() throws -> [BrowserEntity] { try base.entities() }
    func count(entity: String, filter: String, budget: Duration?) throws -> RowCount {
        try base.count(entity: entity, filter: filter, budget: budget)
    }
    func validate(entity: String, filter: String) -> BrowserError? { base.validate(entity: entity, filter: filter) }
    // A frequency page groups every row of a column without an index: it runs as a page does.
    func frequencies(_ request: FrequencyRequest) throws -> [FrequencyRow] {
        let base = self.base
        return try interruptible { try base.frequencies(request) }
    }
    func countValues(entity: String, filter: String, column: String, budget: Duration?) throws -> RowCount {
        try base.countValues(entity: entity, filter: filter, column: column, budget: budget)
    }
    func statistics(entity: String, filter: String, column: String) throws -> ColumnSummary {
        try base.statistics(entity: entity, filter: filter, column: column)
    }
    // A write may wait for another process's lock (up to the busy timeout): Ctrl-C ends the
    // wait, and the write then changes nothing.
    func create(entity: String, values: [(String, Value)]) throws -> BrowserRow {
        let base = self.base
        return try interruptible { try base.create(entity: entity, values: values) }
    }
    func update(entity: String, id: [Value], column: String, value: Value) throws -> BrowserRow {
        let base = self.base
        return try interruptible { try base.update(entity: entity, id: id, column: column, value: value) }
    }
    func delete(entity: String, id: [Value]) throws {
        let base = self.base
        try interruptible { try base.delete(entity: entity, id: id) }
    }
    func restore(entity: String, id: [Value], values: [(String, Value)]) throws -> BrowserRow {
        let base = self.base
        return try interruptible { try base.restore(entity: entity, id: id, values: values) }
    }
    func changeToken() -> UInt64 { base.changeToken() }
    func cancel() { base.cancel() }
}

/// A result handed from a worker thread to a waiting one.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<T, any Error>?

    func finish(_ result: Result<T, any Error>) {
        condition.lock()
        self.result = result
        condition.signal()
        condition.unlock()
    }

    func wait(milliseconds: Int) -> Result<T, any Error>? {
        condition.lock()
        defer { condition.unlock() }
        if result == nil { _ = condition.wait(until: Date().addingTimeInterval(Double(milliseconds) / 1000)) }
        return result
    }
}
