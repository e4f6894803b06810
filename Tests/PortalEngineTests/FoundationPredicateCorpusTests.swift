import Foundation
import Testing
import PortalEngine
import PortalSQLite
import FoundationOracle

/// The corpus of #Predicate closures from public SwiftData code (FoundationOracle's
/// PredicateCorpus.swift): each is translated, and returns from the store exactly the rows
/// Foundation's evaluation keeps.
@Suite struct FoundationPredicateCorpusTests {
    @Test func everyClosureIsAcceptedAndAgreesWithFoundation() throws {
        let folder = try TemporaryFolder()
        var file = 0
        let (refused, failures) = try FoundationPredicateOracle.runCorpus(on: {
            file += 1
            return try Store(path: folder.path("corpus\(file).sqlite"))
        }, seeds: 1...5)
        #expect(PredicateCorpus.tracks(CorpusValues(milliseconds: 0)).count + PredicateCorpus.albums(CorpusValues(milliseconds: 0)).count == 201)
        // One is refused: a computed property of an attribute's value (the original reads a
        // month number from a date by an extension of its own).
        #expect(refused.keys.map { String($0.prefix(11)) } == ["24377266417"], "\(refused)")
        #expect(refused.values.allSatisfy { $0.contains("<computed") && $0.contains("on a value has no translation") }, "\(refused)")
        #expect(failures.isEmpty, "\(failures.count) differ:\n\(failures.prefix(8).joined(separator: "\n"))")
    }
}
