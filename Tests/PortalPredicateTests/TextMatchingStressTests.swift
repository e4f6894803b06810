import Testing
import PortalPredicate

/// The regex cache is shared by every thread that evaluates or runs SQL: hammer it from many
/// tasks at once (run under ThreadSanitizer by `make test`'s Stress filter).
@Suite struct TextMatchingStressTests {
    @Test func regexCacheIsThreadSafe() async throws {
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var hits = 0
                    for i in 0..<300 {
                        // Many distinct patterns, so the cache also fills and clears concurrently.
                        let pattern = "item-\((i * 7 + task) % 400)-.*"
                        if try TextMatching.matches("item-\((i * 7 + task) % 400)-x", regex: pattern) { hits += 1 }
                        if try TextMatching.matches("other", regex: pattern) { hits += 1000 }
                    }
                    return hits
                }
            }
            var all: [Int] = []
            for try await r in group { all.append(r) }
            return all
        }
        #expect(results == Array(repeating: 300, count: 8))
    }
}
