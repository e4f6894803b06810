import Foundation
import PortalEngine
import Testing
@testable import PortalTUI

/// A source whose page query blocks until it is cancelled, like a scan of a huge table.
final class StuckSource: BrowserDataSource, @unchecked Sendable {
    private let cancelled = NSCondition()
    private var isCancelled = false

    func page(_ request: PageRequest) throws -> [BrowserRow] {
        cancelled.lock()
        defer { cancelled.unlock() }
        while !isCancelled { cancelled.wait() }
        throw BrowserError("interrupted")
    }

    func cancel() {
        cancelled.lock()
        isCancelled = true
        cancelled.broadcast()
        cancelled.unlock()
    }

    func entities() throws -> [BrowserEntity] { [] }
    func count(entity: String, filter: String, budget: Duration?) throws -> RowCount { .exact(0) }
    func validate(entity: String, filter: String) -> BrowserError? { nil }
    func create(entity: String, values: [(String, Value)]) throws -> BrowserRow { throw BrowserError("no") }
    func update(entity: String, id: [Value], column: String, value: Value) throws -> BrowserRow { throw BrowserError("no") }
    func delete(entity: String, id: [Value]) throws { throw BrowserError("no") }
    func restore(entity: String, id: [Value], values: [(String, Value)]) throws -> BrowserRow { throw BrowserError("no") }
    func changeToken() -> UInt64 { 0 }
}

@Suite struct InterruptibleSourceTests {
    @Test func controlCInterruptsASlowPageAndKeepsOtherKeys() throws {
        var keys: [BrowserKey] = [.character("x"), .tick, .down, .control("c")]
        let source = InterruptibleSource(StuckSource()) { keys.isEmpty ? nil : keys.removeFirst() }
        let request = PageRequest(entity: "T", filter: "", sort: nil, anchor: .first, limit: 10)
        #expect(throws: BrowserError("interrupted")) { try source.page(request) }
        #expect(source.takeTypedKeys() == [.character("x"), .down])
        #expect(source.takeTypedKeys().isEmpty)
    }

    @Test func fastPagesPassThrough() throws {
        let source = InterruptibleSource(makeSource()) { nil }
        let rows = try source.page(PageRequest(entity: "Album", filter: "", sort: nil, anchor: .first, limit: 3))
        #expect(rows.map { $0.values[0] } == [1, 2, 3])
    }
}
