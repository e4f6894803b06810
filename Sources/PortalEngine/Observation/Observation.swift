import Foundation

/// Keeps an observation alive: it stops when the token is cancelled or deinitialized.
public final class ObservationToken: Sendable {
    private let cancellation: @Sendable () -> Void
    // NSLock rather than Synchronization.Mutex: ThreadSanitizer cannot see Mutex's futex.
    private let lock = NSLock()
    nonisolated(unsafe) private var cancelled = false

    init(_ cancellation: @escaping @Sendable () -> Void) { self.cancellation = cancellation }

    /// Stops the observation; calling it again does nothing.
    public func cancel() {
        let wasCancelled = lock.withLock {
            defer { cancelled = true }
            return cancelled
        }
        if !wasCancelled { cancellation() }
    }

    deinit { cancel() }
}

extension Store {
    /// Calls `onChange` with the rows of `entity` matching the predicate: once at the start, then
    /// after every commit of this store that touched the entity, and whenever another connection
    /// or process commits a change to the result (noticed by polling `PRAGMA data_version` every
    /// 200 ms). Commits that come faster than the query re-runs are coalesced into one call with
    /// the latest rows. Callbacks run on a private serial queue. Keep the token: observation
    /// stops when it is cancelled or released.
    public func observe(_ entity: String, where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                        onError: (@Sendable (Error) -> Void)? = nil,
                        _ onChange: @escaping @Sendable ([Row]) -> Void) -> ObservationToken {
        let query = ObservedQuery(entity: entity, predicate: predicate, arguments: arguments.map(\.predicateArgument))
        return observation.add(query, onChange: onChange, onError: onError ?? { _ in })
    }

    /// The same as an `AsyncSequence`: each element is the current result. It ends with an
    /// error when the query fails.
    public func observe(_ entity: String, where predicate: String? = nil,
                        _ arguments: [any ArgumentConvertible] = []) -> AsyncThrowingStream<[Row], Error> {
        let query = ObservedQuery(entity: entity, predicate: predicate, arguments: arguments.map(\.predicateArgument))
        return AsyncThrowingStream { continuation in
            let token = observation.add(query, onChange: { continuation.yield($0) },
                                        onError: { continuation.finish(throwing: $0) })
            continuation.onTermination = { _ in token.cancel() }
        }
    }
}

struct ObservedQuery: Sendable {
    let entity: String
    let predicate: String?
    let arguments: [Argument]
}

/// The observers of one store, refreshed on a serial queue after commits and when the polled
/// `PRAGMA data_version` changes.
final class ObservationCenter: @unchecked Sendable {
    private final class Observer: @unchecked Sendable {
        let query: ObservedQuery
        let onChange: @Sendable ([Row]) -> Void
        let onError: @Sendable (Error) -> Void
        /// Only touched on the queue.
        var lastRows: [Row]?
        var isScheduled = false
        var mustDeliver = false

        init(query: ObservedQuery, onChange: @escaping @Sendable ([Row]) -> Void, onError: @escaping @Sendable (Error) -> Void) {
            self.query = query
            self.onChange = onChange
            self.onError = onError
        }
    }

    static let pollInterval: DispatchTimeInterval = .milliseconds(200)

    private let lock = NSLock()
    private var observers: [Int: Observer] = [:]
    private var nextID = 0
    private var isStopped = false
    private weak var store: Store?
    private let queue = DispatchQueue(label: "portal.observation")
    /// Polling state, only touched on the queue.
    private var timer: DispatchSourceTimer?
    private var pollConnection: (any DatabaseConnection)?
    private var lastDataVersion: Value?
    /// The backend polled (set on the queue with the poll connection).
    private var backend: (any DatabaseBackend)?

    func attach(_ store: Store) { self.store = store }

    func add(_ query: ObservedQuery, onChange: @escaping @Sendable ([Row]) -> Void,
             onError: @escaping @Sendable (Error) -> Void) -> ObservationToken {
        let observer = Observer(query: query, onChange: onChange, onError: onError)
        lock.lock()
        let id = nextID
        nextID += 1
        observers[id] = observer
        let stopped = isStopped
        lock.unlock()
        if !stopped {
            schedule(observer, deliver: true)
            queue.async { self.startPolling() }
        }
        return ObservationToken { [weak self] in self?.remove(id) }
    }

    private func remove(_ id: Int) {
        lock.lock()
        observers[id] = nil
        let isEmpty = observers.isEmpty
        lock.unlock()
        if isEmpty { queue.async { self.stopPolling() } }
    }

    private var currentObservers: [Observer] {
        lock.lock()
        defer { lock.unlock() }
        return isStopped ? [] : Array(observers.values)
    }

    /// After a commit of the store's writer: observers of a touched entity are called whatever
    /// their result; the others only if their result changed (a view or a relationship may
    /// depend on the touched tables).
    func didCommit(_ changes: Changes) {
        guard !changes.isEmpty else { return }
        for observer in currentObservers {
            schedule(observer, deliver: changes.touches(observer.query.entity))
        }
    }

    private func schedule(_ observer: Observer, deliver: Bool) {
        queue.async {
            observer.mustDeliver = observer.mustDeliver || deliver
            guard !observer.isScheduled else { return }
            observer.isScheduled = true
            self.queue.async { self.refresh(observer) }
        }
    }

    private func refresh(_ observer: Observer) {
        observer.isScheduled = false
        let deliver = observer.mustDeliver
        observer.mustDeliver = false
        guard let store, isRegistered(observer) else { return }
        do {
            let query = observer.query
            let rows = try store.read { context in
                try context.find(query.entity, where: query.predicate, arguments: query.arguments)
            }
            if deliver || rows != observer.lastRows {
                observer.lastRows = rows
                observer.onChange(rows)
            }
        } catch {
            observer.onError(error)
        }
    }

    private func isRegistered(_ observer: Observer) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return !isStopped && observers.values.contains { $0 === observer }
    }

    // MARK: Polling for other processes' commits (on the queue)

    private func startPolling() {
        guard timer == nil, let store, !store.isInMemory, !currentObservers.isEmpty else { return }
        guard let connection = try? store.backend.connect(readOnly: true) else { return }
        backend = store.backend
        pollConnection = connection
        lastDataVersion = dataVersion()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.pollInterval, repeating: Self.pollInterval)
        timer.setEventHandler { [weak self] in self?.poll() }
        timer.resume()
        self.timer = timer
    }

    private func stopPolling() {
        guard currentObservers.isEmpty else { return }
        timer?.cancel()
        timer = nil
        pollConnection?.close()
        pollConnection = nil
    }

    /// SQLite's `PRAGMA data_version` (it changes when another connection commits), or the
    /// server's count of change notifications, or its change marker.
    private func dataVersion() -> Value? {
        guard let pollConnection else { return nil }
        guard let backend else { return nil }
        return backend.notifiedChangeMarker() ?? (try? backend.changeMarker(on: pollConnection))
    }

    private func poll() {
        guard let version = dataVersion(), version != lastDataVersion else { return }
        lastDataVersion = version
        for observer in currentObservers { schedule(observer, deliver: false) }
    }

    /// Stops every observation for good (the store is closing).
    func stop() {
        lock.lock()
        isStopped = true
        observers.removeAll()
        // No observer ever added: nothing was ever polled, and no worker thread need start
        // only to find that out (a one-command run would start one as it exits).
        let everObserved = nextID > 0
        lock.unlock()
        guard everObserved else { return }
        // Asynchronously: the store may be deinitialized on this very queue.
        queue.async {
            self.timer?.cancel()
            self.timer = nil
            self.pollConnection?.close()
            self.pollConnection = nil
        }
    }
}
