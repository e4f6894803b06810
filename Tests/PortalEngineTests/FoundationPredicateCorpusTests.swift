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
        #expect(PredicateCorpus.tracks(CorpusValues(milliseconds: 0)).count + PredicateCorpus.albums(CorpusValues(milliseconds: 0)).count == 221)
        // Four are refused, all from one file of examples of SwiftData predicates: three read an
        // enum attribute's rawValue, one a title an extension of the enum computes; to the
        // translator both are computed properties of a value, which no column holds.
        let sources = refused.keys.sorted()
        #expect(sources.count == 4 && sources.allSatisfy { $0.hasPrefix("gahntpo/SnippetBox-SwiftData, ") }, "\(refused)")
        #expect(sources.filter { $0.contains(".rawValue ==") }.count == 3, "\(refused)")
        #expect(refused.values.allSatisfy { $0.contains("\\MediaKind.<computed") && $0.contains("on a value has no translation") },
                "\(refused)")
        #expect(failures.isEmpty, "\(failures.count) differ:\n\(failures.prefix(8).joined(separator: "\n"))")
    }
}
