import Foundation
import PortalEngine

// A small music schema for Foundation's `#Predicate` on typed portals: entity types whose
// relationships are plain properties, filled by the tests (so that `predicate.evaluate` sees
// them) and never read or written by the engine.

struct MusicArtist: PortalEntity, Equatable {
    static let entityName = "Artist"
    static let idAttribute = "ArtistId"
    var artistId: Int64
    var name: String?
    enum CodingKeys: String, CodingKey { case artistId = "ArtistId", name = "Name" }
}

struct MusicAlbum: PortalEntity, Equatable {
    static let entityName = "Album"
    static let idAttribute = "AlbumId"
    var albumId: Int64
    var title: String
    var artistId: Int64?
    var released: Date?
    /// The to-one relationship `Artist`.
    var artist: MusicArtist? = nil
    /// The to-many relationship `tracks`.
    var tracks: [MusicTrack] = []
    enum CodingKeys: String, CodingKey {
        case albumId = "AlbumId", title = "Title", artistId = "ArtistId", released = "Released"
    }
}

enum MediaKind: Int64, Codable, Sendable, CaseIterable { case audio = 1, video = 2, podcast = 3 }

struct MusicTrack: PortalEntity, Equatable {
    static let entityName = "Track"
    static let idAttribute = "TrackId"
    var trackId: Int64
    var name: String
    var albumId: Int64?
    var milliseconds: Int
    var composer: String?
    var unitPrice: Double
    var explicit: Bool
    /// Stored under another name than the property's: mapped by `predicateKeys`.
    var kind: MediaKind
    /// The to-one relationship `Album`.
    var album: MusicAlbum? = nil
    /// Computed: no column, refused in a predicate.
    var seconds: Int { milliseconds / 1000 }
    enum CodingKeys: String, CodingKey {
        case trackId = "TrackId", name = "Name", albumId = "AlbumId", milliseconds = "Milliseconds",
             composer = "Composer", unitPrice = "UnitPrice", explicit = "Explicit", kind = "MediaKind"
    }
    static var predicateKeys: [PartialKeyPath<MusicTrack>: String] { [\MusicTrack.kind: "MediaKind"] }
}

/// The tables, and random rows for them from `seed`, with each entity's relationships filled.
struct MusicWorld {
    var artists: [MusicArtist] = []
    var albums: [MusicAlbum] = []
    var tracks: [MusicTrack] = []

    static let schema = """
        CREATE TABLE Artist (ArtistId INTEGER PRIMARY KEY, Name TEXT);
        CREATE TABLE Album (AlbumId INTEGER PRIMARY KEY, Title TEXT NOT NULL, ArtistId INTEGER REFERENCES Artist(ArtistId),
                            Released DATETIME);
        CREATE TABLE Track (TrackId INTEGER PRIMARY KEY, Name TEXT NOT NULL, AlbumId INTEGER REFERENCES Album(AlbumId),
                            Milliseconds INTEGER NOT NULL, Composer TEXT, UnitPrice REAL NOT NULL, Explicit BOOLEAN NOT NULL,
                            MediaKind INTEGER NOT NULL);
        """
    static let words = ["Love", "love", "Rock", "Blue", "Night", "A", "Co", "Café", "Zebra", "", "night"]

    init(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        func text() -> String { (0..<Int(random.next() % 3)).map { _ in pick(Self.words) }.joined(separator: " ") }
        for id in 1...5 { artists.append(MusicArtist(artistId: Int64(id), name: chance(20) ? nil : text())) }
        for id in 1...8 {
            let released = chance(30) ? nil : Date(timeIntervalSince1970: Double(900_000_000 + Int(random.next() % 600_000_000)))
            albums.append(MusicAlbum(albumId: Int64(id), title: text(), artistId: chance(15) ? nil : Int64(1 + random.next() % 5),
                                     released: released.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded()) }))
        }
        for id in 1...40 {
            tracks.append(MusicTrack(trackId: Int64(id), name: text(), albumId: chance(10) ? nil : Int64(1 + random.next() % 8),
                                     milliseconds: Int(random.next() % 600_000), composer: chance(30) ? nil : text(),
                                     unitPrice: pick([0.99, 1.99, 0.0]), explicit: chance(40), kind: pick(MediaKind.allCases)))
        }
        // Relationships, for Foundation's evaluation: an album's artist and tracks (those
        // without their album, which the predicates never walk back through), a track's album.
        for i in albums.indices {
            albums[i].artist = artists.first { $0.artistId == albums[i].artistId }
            albums[i].tracks = tracks.filter { $0.albumId == albums[i].albumId }
        }
        for i in tracks.indices { tracks[i].album = albums.first { $0.albumId == tracks[i].albumId } }
    }

    /// Creates the tables in `store` and stores the rows.
    func store(into store: Store) throws {
        try store.write { ctx in try ctx.execute(Self.schema) }
        try Portal<MusicArtist>(store).create(artists)
        try Portal<MusicAlbum>(store).create(albums)
        try Portal<MusicTrack>(store).create(tracks)
    }
}
