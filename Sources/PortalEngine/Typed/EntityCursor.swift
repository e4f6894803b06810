import Foundation
import PortalPredicate

extension Portal {
    /// The matching entities as an `AsyncSequence`, read one at a time as the loop asks for
    /// them: `for try await hike in hikes.cursor(where: "km > 10")`. Memory stays bounded
    /// however many rows match.
    public func cursor(where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                       sortedBy: [SortKey] = [], limit: Int? = nil) -> EntityCursor<Entity> {
        EntityCursor(store: store, filter: .text(predicate, arguments.map(\.predicateArgument)),
                     sortedBy: sortedBy, limit: limit)
    }
}

/// A fetch read as the loop asks for each entity: one read transaction, held on a thread of the
/// cursor's own from the first `next()` until the last row, a thrown error, the end of the loop
/// (the iterator is released) or the task's cancellation.
public struct EntityCursor<Entity: PortalEntity>: AsyncSequence, Sendable {
    /// One entity.
    public typealias Element = Entity

    /// Which entities: by predicate text and its arguments, or by a Foundation predicate.
    enum Filter: Sendable {
        case text(String?, [Argument])
        case foundation(PreparedPredicate<Entity>?)
    }

    let store: Store
    let filter: Filter
    let sortedBy: [SortKey]
    let limit: Int?

    /// An iterator with a read of its own.
    public func makeAsyncIterator() -> Iterator {
        let (store, filter, sortedBy, limit) = (store, filter, sortedBy, limit)
        return Iterator(lifetime: CursorLifetime(CursorChannel { channel in
            try store.read { context in
                let fragment = switch filter {
                case .text(let predicate, let arguments):
                    try context.select(Entity.entityName, .typed(Entity.self), predicate,
                                       arguments, sortedBy, limit, nil)
                case .foundation(let predicate):
                    try context.select(Entity.self, matching: predicate, .typed(Entity.self),
                                       sortedBy, limit, nil)
                }
                try context.forEach(Entity.self, fragment) { entity in try channel.hand(entity) }
            }
        }))
    }

    /// Reads the next entity when asked.
    public struct Iterator: AsyncIteratorProtocol {
        let lifetime: CursorLifetime<Entity>

        /// The next entity, or nil after the last one.
        public mutating func next() async throws -> Entity? { try await lifetime.channel.next() }
    }
}

/// Owned by the iterator alone: when the loop ends early and the iterator goes, the producer
/// stops and its read ends (the producing thread itself holds the channel, not this).
final class CursorLifetime<Element: Sendable>: Sendable {
    let channel: CursorChannel<Element>
    init(_ channel: CursorChannel<Element>) { self.channel = channel }
    deinit { channel.stop() }
}

/// Hands entities from the producing thread to the consuming task, one per request: the
/// producer waits for a `next()` before it hands an entity over (it reads at most one ahead).
final class CursorChannel<Element: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var request: CheckedContinuation<Element?, Error>?
    private var started = false
    private var finished = false
    private var stopped = false
    private var failure: Error?
    private let produce: (CursorChannel) throws -> Void

    init(_ produce: @escaping (CursorChannel) throws -> Void) { self.produce = produce }

    func next() async throws -> Element? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, Error>) in
                condition.lock()
                defer { condition.unlock() }
                if finished {
                    if let failure {
                        self.failure = nil
                        continuation.resume(throwing: failure)
                    } else {
                        continuation.resume(returning: nil)
                    }
                    return
                }
                request = continuation
                condition.broadcast()
                if !started {
                    started = true
                    Thread.detachNewThread { self.run() }
                }
            }
        } onCancel: {
            self.stop()
        }
    }

    /// Called by the producer for each entity: waits for a request and answers it.
    func hand(_ element: Element) throws {
        condition.lock()
        defer { condition.unlock() }
        while request == nil && !stopped { condition.wait() }
        guard let request else { throw PortalError(.interrupted, "the cursor was cancelled") }
        self.request = nil
        request.resume(returning: element)
    }

    /// Ends the producer's read at its next entity (cancellation, or the iterator released).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        var error: Error?
        do { try produce(self) } catch let thrown { error = thrown }
        condition.lock()
        defer { condition.unlock() }
        finished = true
        if let request {
            self.request = nil
            if let error { request.resume(throwing: error) } else { request.resume(returning: nil) }
        } else if !stopped {
            failure = error
        }
    }
}
