import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite
import FoundationOracle

@Suite struct FoundationPredicateDifferentialTests {
    @Test func randomPredicatesOnSQLite() throws {
        let folder = try TemporaryFolder()
        var file = 0
        let failures = try FoundationPredicateOracle.run(on: {
            file += 1
            return try Store(path: folder.path("music\(file).sqlite"))
        }, seeds: 1...8, count: 60)
        #expect(failures.isEmpty, "\(failures.count) differ, first: \(failures.prefix(5).joined(separator: "\n"))")
    }
}
