import Foundation
import Testing
@testable import ReadmeExample
import PortalEngine
import PortalSQLite

@Suite struct ReadmeExampleTests {
    @Test func theReadmeExampleRunsAndAnswersCorrectly() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("hikes.sqlite")
        let first = try hikeReport(try Store(path: path))
        // [cd]: "Côte" and "Cotswold" both begin with "co" ignoring case and diacritics; "Lac Blanc" is short.
        #expect(first.longTrails == ["Cotswold Way", "Côte Sauvage"])
        #expect(first.withNotes == 2)
        // A second run finds the migration applied and the hikes upserted, not duplicated.
        let second = try hikeReport(try Store(path: path))
        #expect(second.longTrails == first.longTrails)
        #expect(second.withNotes == 2)
        // #Predicate: "Côte" does not start with "Co" (Swift compares characters as they are).
        let typed = try await typedHikeReport(try Store(path: path), startingWith: "Co")
        #expect(typed.longTrails == ["Cotswold Way"])
        #expect(typed.withNotes == 2)
        #expect(typed.shortTrails == ["Lac Blanc"])
    }
}
