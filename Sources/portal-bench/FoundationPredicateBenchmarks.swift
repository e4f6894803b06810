import CSQLite
import Foundation
import PortalEngine
import PortalSQLite

// predicate.translate: translate Foundation #Predicate values (the examples of
// predicate.compile, as SwiftData code writes them) into the engine's tree and compile them
// against the Chinook schema, against sqlite3_prepare_v2 (+ finalize) of the SQL they produce,
// the two alternating, in the thread's CPU time. Goal: ratio ≤ 1.0.
// predicate.typed_fetch: a typed fetch through a #Predicate against the same fetch through the
// equivalent predicate text. Goal: ratio ≤ 1.05.

private struct BenchArtist: PortalEntity {
    static let entityName = "Artist"
    static let idAttribute = "ArtistId"
    var artistId: Int64
    var name: String?
    var albums: [BenchAlbum] = []
    enum CodingKeys: String, CodingKey { case artistId = "ArtistId", name = "Name" }
}

private struct BenchAlbum: PortalEntity {
    static let entityName = "Album"
    static let idAttribute = "AlbumId"
    var albumId: Int64
    var title: String
    var artistId: Int64
    var artist: BenchArtist? = nil
    var tracks: [BenchTrack] = []
    enum CodingKeys: String, CodingKey { case albumId = "AlbumId", title = "Title", artistId = "ArtistId" }
}

private struct BenchTrack: PortalEntity {
    static let entityName = "Track"
    static let idAttribute = "TrackId"
    var trackId: Int64
    var name: String
    var albumId: Int64?
    var genreId: Int64?
    var composer: String?
    var milliseconds: Int64
    var unitPrice: Double
    var album: BenchAlbum? = nil
    enum CodingKeys: String, CodingKey {
        case trackId = "TrackId", name = "Name", albumId = "AlbumId", genreId = "GenreId", composer = "Composer",
             milliseconds = "Milliseconds", unitPrice = "UnitPrice"
    }
}

/// The examples, each translated and compiled to a SELECT.
private func translatedStatements(_ schema: Schema) throws -> [String] {
    let prefix = "Antônio", title = "Rock", least: Int64 = 1_000_000, genres: [Int64] = [1, 3]
    func statement<T: PortalEntity>(_ predicate: Predicate<T>) throws -> String {
        guard let entity = schema.entity(named: T.entityName) else { throw PredicateBenchError("no \(T.entityName)") }
        let filter = try FoundationPredicates.filter(predicate, entity: entity, schema: schema, alias: "t0", dialect: .sqlite)
        return "SELECT t0.* FROM \"\(entity.name)\" AS t0 WHERE " + filter.condition.sql
    }
    return [
        try statement(#Predicate<BenchTrack> { $0.composer?.starts(with: prefix) == true }),
        try statement(#Predicate<BenchTrack> { $0.album?.artist?.name == "Antonio Carlos Jobim" }),
        try statement(#Predicate<BenchArtist> { $0.albums.count > 10 }),
        try statement(#Predicate<BenchAlbum> { $0.tracks.contains { $0.milliseconds > least } }),
        try statement(#Predicate<BenchAlbum> { $0.tracks.allSatisfy { $0.unitPrice == 0.99 } }),
        try statement(#Predicate<BenchAlbum> { $0.tracks.filter { $0.milliseconds > 300_000 }.count >= 2 }),
        try statement(#Predicate<BenchTrack> { $0.name.contains(title) && !genres.contains($0.genreId ?? 0) }),
        try statement(#Predicate<BenchTrack> { ($0.composer ?? "") == "AC/DC" || $0.milliseconds / 1000 > 300 }),
    ]
}

func foundationPredicateBenchmarks() throws -> [Figure] {
    try withChinook { db, schema, path in try translationFigures(db, schema, path) }
}

private func translationFigures(_ db: OpaquePointer, _ schema: Schema, _ path: String) throws -> [Figure] {
    let statements = try translatedStatements(schema)
    let rounds = 200
    let (ours, baseline) = try pairedMedians(cpu: true, ours: {
        for _ in 0..<rounds { _ = try translatedStatements(schema) }
    }, baseline: { try prepareEach(statements, rounds: rounds, on: db) })

    let store = try Store(path: path, options: StoreOptions(readOnly: true))
    let tracks = Portal<BenchTrack>(store)
    let fetches = 50
    let (typed, text) = try pairedMedians(ours: {
        for _ in 0..<fetches { _ = try tracks.findAll(where: #Predicate { $0.milliseconds > 200_000 }) }
    }, baseline: {
        for _ in 0..<fetches { _ = try tracks.findAll(where: "Milliseconds > %@", [200_000]) }
    })
    return [
        Figure(name: "predicate.translate", oursMilliseconds: ours, baselineMilliseconds: baseline,
               notes: ["examples": "\(statements.count)", "rounds": "\(rounds)", "goal": "<=1.0", "clock": "thread-cpu"]),
        Figure(name: "predicate.typed_fetch", oursMilliseconds: typed, baselineMilliseconds: text,
               notes: ["fetches": "\(fetches)", "goal": "<=1.05", "baseline": "the same fetch by predicate text"]),
    ]
}
