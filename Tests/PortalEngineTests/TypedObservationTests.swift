import Foundation
import Testing
@testable import PortalEngine

/// `Portal<T>.observe`: the matching entities, typed, now and after each commit that changed them.
@Suite struct TypedObservationTests {
    @Test(.timeLimit(.minutes(1))) func theTypedSequenceFollowsCommits() async throws {
        let folder = try TemporaryFolder()
        let store = try CursorTests.store(rows: 3, in: folder)
        let items = Portal<CursorTests.Item>(store)
        var iterator = items.observe(where: "n >= %@", [2]).makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.id) == [2, 3])
        try await store.write { ctx in _ = try ctx.insert(CursorTests.Item(id: 4, n: 7)) }
        #expect(try await iterator.next()?.map(\.id) == [2, 3, 4])
    }

    @Test(.timeLimit(.minutes(1))) func aRowThatCannotBeDecodedEndsItWithAConversionError() async throws {
        let folder = try TemporaryFolder()
        let store = try CursorTests.store(rows: 1, in: folder)
        try await store.write { ctx in _ = try ctx.execute("UPDATE Item SET n = 'not a number'") }
        var iterator = Portal<CursorTests.Item>(store).observe().makeAsyncIterator()
        let error = await #expect(throws: PortalError.self) { _ = try await iterator.next() }
        #expect(error?.kind == .conversion)
    }
}
