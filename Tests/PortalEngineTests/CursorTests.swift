import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// Cursors: typed entities streamed one at a time, in a closure (inside a read) or as an
/// `AsyncSequence` with a read of its own.
@Suite struct CursorTests {
    struct Item: PortalEntity, Equatable {
        static let entityName = "Item"
        var id: Int64
        var n: Int
    }

    static func store(rows: Int, in folder: TemporaryFolder) throws -> Store {
        let store = try Store(path: folder.path("items.sqlite"))
        try store.write { ctx in
            try ctx.execute("CREATE TABLE Item (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
            for i in 1...rows { try ctx.insert("Item", columns: ["id", "n"], values: [.integer(Int64(i)), .integer(Int64(i % 10))]) }
        }
        return store
    }

    @Test func theClosureFormStreamsEveryMatch() throws {
        let folder = try TemporaryFolder()
        let store = try Self.store(rows: 1_000, in: folder)
        var seen: [Int64] = []
        try store.read { ctx in
            try ctx.forEach(Item.self, where: "n == %@", [3], sortedBy: [SortKey("id")]) { seen.append($0.id) }
        }
        #expect(seen == Array(stride(from: 3, through: 993, by: 10)))
        // A context kept past its read cannot stream.
        let escaped = try store.read { ctx in ctx }
        #expect(portalError { try escaped.forEach(Item.self) { _ in } }?.kind == .misuse)
    }

    @Test func theAsyncFormReadsAsTheLoopAsks() async throws {
        let folder = try TemporaryFolder()
        let store = try Self.store(rows: 500, in: folder)
        var total = 0
        for try await item in Portal<Item>(store).cursor(where: "n >= 5", sortedBy: [SortKey("id")]) {
            total += item.n
        }
        #expect(total == 50 * (5 + 6 + 7 + 8 + 9))
        // An empty result ends at once; an error reaches the loop.
        var none = 0
        for try await _ in Portal<Item>(store).cursor(where: "n > 100") { none += 1 }
        #expect(none == 0)
        await #expect(throws: PortalError.self) {
            for try await _ in Portal<Item>(store).cursor(where: "nope > 1") {}
        }
    }

    /// Leaving the loop early ends the cursor's read: a write that needs the file to itself (a
    /// rollback-journal database would wait for the reader) is not held back for ever.
    @Test(.timeLimit(.minutes(1))) func leavingTheLoopEarlyEndsTheRead() async throws {
        let folder = try TemporaryFolder()
        let store = try Self.store(rows: 100, in: folder)
        var first: Item?
        for try await item in Portal<Item>(store).cursor(sortedBy: [SortKey("id")]) {
            first = item
            break
        }
        #expect(first?.id == 1)
        // The cursor's thread ends its read soon after; a store close then finds no reader.
        try await Task.sleep(for: .milliseconds(100))
        try await store.write { ctx in _ = try ctx.execute("DELETE FROM Item") }
        #expect(try await store.read { ctx in try ctx.count("Item") } == 0)
    }
}

/// Under ThreadSanitizer (`make test` runs the Stress suites there): cursors and async reads
/// while writes commit.
@Suite struct CursorStressTests {
    // The limit catches a deadlock, not slowness: alone it takes a fraction of a second, but in
    // the full run on two cores the end-to-end tests that wait on processes hold the threads its
    // tasks need for minutes.
    @Test(.timeLimit(.minutes(10))) func cursorsAndAsyncReadsDuringWrites() async throws {
        let folder = try TemporaryFolder()
        let store = try CursorTests.store(rows: 300, in: folder)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var seen = 0
                    for _ in 0..<5 {
                        var previous: Int64 = 0
                        for try await item in Portal<CursorTests.Item>(store).cursor(sortedBy: [SortKey("id")]) {
                            #expect(item.id > previous)   // one consistent, ordered snapshot
                            previous = item.id
                            seen += 1
                        }
                        #expect(try await store.read { ctx in try ctx.count("Item") } >= 300)
                    }
                    return seen
                }
            }
            group.addTask {
                for i in 0..<50 {
                    try await store.write { ctx in
                        _ = try ctx.insert(CursorTests.Item(id: Int64(10_000 + i), n: i))
                    }
                }
                return 0
            }
            var total = 0
            for try await seen in group { total += seen }
            #expect(total >= 4 * 5 * 300)
        }
    }
}
