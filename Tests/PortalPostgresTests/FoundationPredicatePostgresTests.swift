import Foundation
import Testing
import PortalEngine
import PortalPostgres
import FoundationOracle

/// Foundation's `predicate.evaluate` as the oracle of `#Predicate` on PostgreSQL, as on SQLite.
@Suite struct FoundationPredicatePostgresTests {
    @Test func randomPredicatesOnPostgres() throws {
        var databases: [ScratchDatabase] = []
        let failures = try FoundationPredicateOracle.run(on: {
            let db = try ScratchDatabase()
            databases.append(db)
            return try Store(url: "dbname=\(db.name)")
        }, schema: MusicWorld.postgresSchema, seeds: 1...4, count: 60)
        #expect(failures.isEmpty, "\(failures.count) differ, first: \(failures.prefix(5).joined(separator: "\n"))")
    }
}

extension FoundationPredicatePostgresTests {
    @Test func corpusOnPostgres() throws {
        var databases: [ScratchDatabase] = []
        let (refused, failures) = try FoundationPredicateOracle.runCorpus(on: {
            let db = try ScratchDatabase()
            databases.append(db)
            return try Store(url: "dbname=\(db.name)")
        }, schema: MusicWorld.postgresSchema, seeds: 1...2)
        // The four SQLite refuses too (FoundationPredicateCorpusTests): a translation error, before any SQL.
        #expect(refused.count == 4 && refused.keys.allSatisfy { $0.hasPrefix("gahntpo/SnippetBox-SwiftData, ") }, "\(refused)")
        #expect(failures.isEmpty, "\(failures.count) differ:\n\(failures.prefix(8).joined(separator: "\n"))")
    }
}
