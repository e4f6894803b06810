import Foundation
import PortalEngine

// A small music schema for Foundation's `#Predicate` on typed portals: entity types whose
// relationships are plain properties, filled by the tests (so that `predicate.evaluate` sees
// them) and never read or written by the engine.

public struct MusicArtist: PortalEntity, Equatable {
    public static let entityName = "Artist"
    public static let idAttribute = "ArtistId"
    public var artistId: Int64
    public var name: String?
    public enum CodingKeys: String, CodingKey { case artistId = "ArtistId", name = "Name" }
}

public struct MusicAlbum: PortalEntity, Equatable {
    public static let entityName = "Album"
    public static let idAttribute = "AlbumId"
    public var albumId: Int64
    public var title: String
    public var artistId: Int64?
    public var released: Date?
    /// The to-one relationship `Artist`.
    public var artist: MusicArtist? = nil
    /// The to-many relationship `tracks`.
    public var tracks: [MusicTrack] = []
    public enum CodingKeys: String, CodingKey {
        case albumId = "AlbumId", title = "Title", artistId = "ArtistId", released = "Released"
    }
}

public enum MediaKind: Int64, Codable, Sendable, CaseIterable { case audio = 1, video = 2, podcast = 3 }

public struct MusicTrack: PortalEntity, Equatable {
    public static let entityName = "Track"
    public static let idAttribute = "TrackId"
    public var trackId: Int64
    public var name: String
    public var albumId: Int64?
    public var milliseconds: Int
    public var composer: String?
    public var unitPrice: Double
    public var explicit: Bool
    /// Stored under another name than the property's: mapped by `predicateKeys`.
    public var kind: MediaKind
    public var added: Date
    public var code: UUID
    /// The to-one relationship `Album`.
    public var album: MusicAlbum? = nil
    /// Computed: no column, refused in a predicate.
    public var seconds: Int { milliseconds / 1000 }
    public enum CodingKeys: String, CodingKey {
        case trackId = "TrackId", name = "Name", albumId = "AlbumId", milliseconds = "Milliseconds",
             composer = "Composer", unitPrice = "UnitPrice", explicit = "Explicit", kind = "MediaKind",
             added = "Added", code = "Code"
    }
    public static var predicateKeys: [PartialKeyPath<MusicTrack>: String] { [\MusicTrack.kind: "MediaKind"] }
}

/// The tables, and random rows for them from `seed`, with each entity's relationships filled.
public struct MusicWorld {
    public var artists: [MusicArtist] = []
    public var albums: [MusicAlbum] = []
    public var tracks: [MusicTrack] = []

    /// The tables on SQLite.
    public static let schema = """
        CREATE TABLE Artist (ArtistId INTEGER PRIMARY KEY, Name TEXT);
        CREATE TABLE Album (AlbumId INTEGER PRIMARY KEY, Title TEXT NOT NULL, ArtistId INTEGER REFERENCES Artist(ArtistId),
                            Released DATETIME);
        CREATE TABLE Track (TrackId INTEGER PRIMARY KEY, Name TEXT NOT NULL, AlbumId INTEGER REFERENCES Album(AlbumId),
                            Milliseconds INTEGER NOT NULL, Composer TEXT, UnitPrice REAL NOT NULL, Explicit BOOLEAN NOT NULL,
                            MediaKind INTEGER NOT NULL, Added DATETIME NOT NULL, Code TEXT NOT NULL);
        """
    /// The tables on PostgreSQL.
    public static let postgresSchema = """
        CREATE TABLE "Artist" ("ArtistId" INTEGER PRIMARY KEY, "Name" TEXT);
        CREATE TABLE "Album" ("AlbumId" INTEGER PRIMARY KEY, "Title" TEXT NOT NULL, "ArtistId" INTEGER REFERENCES "Artist"("ArtistId"),
                              "Released" TIMESTAMP);
        CREATE TABLE "Track" ("TrackId" INTEGER PRIMARY KEY, "Name" TEXT NOT NULL, "AlbumId" INTEGER REFERENCES "Album"("AlbumId"),
                              "Milliseconds" INTEGER NOT NULL, "Composer" TEXT, "UnitPrice" DOUBLE PRECISION NOT NULL,
                              "Explicit" BOOLEAN NOT NULL, "MediaKind" INTEGER NOT NULL, "Added" TIMESTAMP NOT NULL,
                              "Code" TEXT NOT NULL);
        """
    public static let words = ["Love", "love", "Rock", "Blue", "Night", "A", "Co", "Café", "Zebra", "", "night"]

    public init(seed: UInt64) {
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
                                     unitPrice: pick([0.99, 1.99, 0.0]), explicit: chance(40), kind: pick(MediaKind.allCases),
                                     added: Self.day(Int(random.next() % 60)), code: Self.code(id)))
        }
        // Relationships, for Foundation's evaluation, two levels deep as the predicates walk
        // them: an album's artist and tracks (each with its album, whose own tracks are left
        // empty), a track's album with its artist.
        for i in albums.indices { albums[i].artist = artists.first { $0.artistId == albums[i].artistId } }
        for i in tracks.indices { tracks[i].album = albums.first { $0.albumId == tracks[i].albumId } }
        for i in albums.indices { albums[i].tracks = tracks.filter { $0.albumId == albums[i].albumId } }
    }

    /// Midnight of the `n`th day of March 2024 (and on): the dates the corpus's ranges compare with.
    public static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_709_251_200 + Double(n) * 86_400) }

    /// The track's UUID.
    public static func code(_ id: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", id)) ?? UUID()
    }

    /// Creates the tables in `store` and stores the rows.
    public func store(into store: Store, schema: String = Self.schema) throws {
        try store.write { ctx in try ctx.execute(schema) }
        try Portal<MusicArtist>(store).create(artists)
        try Portal<MusicAlbum>(store).create(albums)
        try Portal<MusicTrack>(store).create(tracks)
    }
}
