import Foundation
@testable import PortalEngine

/// Foundation is the oracle: the rows the SQL of a translated predicate returns are those for
/// which `predicate.evaluate(row)` is true.
public enum FoundationPredicateOracle {
    /// The ids Foundation's evaluation keeps and the ids the store returns, for tracks.
    public static func compare(_ predicate: Predicate<MusicTrack>, _ world: MusicWorld, _ store: Store) throws -> (swift: [Int64], sql: [Int64]) {
        let swift = try world.tracks.filter { try predicate.evaluate($0) }.map(\.trackId)
        let sql = try Portal<MusicTrack>(store).findAll(where: predicate, sortedBy: [SortDescriptor(\.trackId)]).map(\.trackId)
        return (swift, sql)
    }

    public static func compare(_ predicate: Predicate<MusicAlbum>, _ world: MusicWorld, _ store: Store) throws -> (swift: [Int64], sql: [Int64]) {
        let swift = try world.albums.filter { try predicate.evaluate($0) }.map(\.albumId)
        let sql = try Portal<MusicAlbum>(store).findAll(where: predicate, sortedBy: [SortDescriptor(\.albumId)]).map(\.albumId)
        return (swift, sql)
    }

    /// Runs `count` random predicates of each root over the data of each seed.
    public static func run(on makeStore: () throws -> Store, schema: String = MusicWorld.schema, seeds: ClosedRange<UInt64>,
                           count: Int) throws -> [String] {
        var failures: [String] = []
        for seed in seeds {
            let world = MusicWorld(seed: seed)
            let store = try makeStore()
            try world.store(into: store, schema: schema)
            var generator = FoundationPredicateGenerator(seed: seed &* 7919)
            for _ in 0..<count {
                let tracks = generator.trackPredicate()
                let (swift, sql) = try compare(tracks, world, store)
                if swift != sql {
                    failures.append("seed \(seed): \(try FoundationPredicates.tree(tracks)): Foundation \(swift), SQL \(sql)")
                }
                let albums = generator.albumPredicate()
                let (swiftAlbums, sqlAlbums) = try compare(albums, world, store)
                if swiftAlbums != sqlAlbums {
                    failures.append("seed \(seed): \(try FoundationPredicates.tree(albums)): Foundation \(swiftAlbums), SQL \(sqlAlbums)")
                }
            }
        }
        return failures
    }

    /// Runs every closure of the corpus over the data of each seed: the refused ones by source
    /// (with the error), and the accepted ones whose rows differ from Foundation's.
    public static func runCorpus(on makeStore: () throws -> Store, schema: String = MusicWorld.schema,
                                 seeds: ClosedRange<UInt64>) throws -> (refused: [String: String], failures: [String]) {
        var refused: [String: String] = [:]
        var failures: [String] = []
        for seed in seeds {
            let world = MusicWorld(seed: seed)
            let store = try makeStore()
            try world.store(into: store, schema: schema)
            let values = CorpusValues(milliseconds: world.tracks[4].milliseconds)
            for (source, predicate) in PredicateCorpus.tracks(values) {
                do {
                    let (swift, sql) = try compare(predicate, world, store)
                    if swift != sql { failures.append("seed \(seed) \(source): Foundation \(swift), SQL \(sql)") }
                } catch let error as PortalError where error.kind == .predicate {
                    refused[source] = error.message
                }
            }
            for (source, predicate) in PredicateCorpus.albums(values) {
                do {
                    let (swift, sql) = try compare(predicate, world, store)
                    if swift != sql { failures.append("seed \(seed) \(source): Foundation \(swift), SQL \(sql)") }
                } catch let error as PortalError where error.kind == .predicate {
                    refused[source] = error.message
                }
            }
        }
        return (refused, failures)
    }
}
