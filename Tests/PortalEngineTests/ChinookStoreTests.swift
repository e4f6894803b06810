import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The engine on the real Chinook database (opened read-only: the shared file must not change).
@Suite struct ChinookStoreTests {
    @Test func relationshipsSortKeysAndTypedEntitiesOnRealData() throws {
        let store = try Store(path: chinookPath, options: StoreOptions(readOnly: true, create: false))
        #expect(try store.read { ctx in try ctx.count("Track", where: "Album.Artist.Name == %@", ["AC/DC"]) } == 18)
        let longest = try store.read { ctx in
            try ctx.find("Track", where: "Genre.Name == %@", ["Jazz"], sortedBy: [SortKey("Milliseconds", ascending: false)], limit: 3)
        }
        #expect(longest.count == 3)
        let lengths = longest.compactMap { row -> Int64? in
            if case .integer(let ms)? = row["Milliseconds"] { return ms } else { return nil }
        }
        #expect(lengths == lengths.sorted(by: >))
        let byAlbum = try store.read { ctx in
            try ctx.find("Track", where: "Album.Title BEGINSWITH %@", ["Big Ones"], sortedBy: [SortKey("Album.Title"), SortKey("Name")])
        }
        #expect(!byAlbum.isEmpty)

        struct Artist: PortalEntity, Equatable {
            static let entityName = "Artist"
            static let idAttribute = "ArtistId"
            var ArtistId: Int64
            var Name: String?
        }
        let artists = Portal<Artist>(store)
        #expect(try artists.count() == 275)
        #expect(try artists.findFirst(where: "ArtistId == 1") == Artist(ArtistId: 1, Name: "AC/DC"))
        #expect(try artists.count(where: "albums.@count > 5") > 0)
        #expect(portalError { try artists.create([Artist(ArtistId: 999, Name: "x")]) }?.kind == .readOnly)
        try store.close()
    }
}
