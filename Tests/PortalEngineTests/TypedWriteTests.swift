import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// Typed writes inside any write (`ctx.insert/update/upsert/delete` of one entity), mixed with
/// other statements of the same transaction, and rolled back with it.
@Suite struct TypedWriteTests {
    struct Note: PortalEntity, Equatable {
        static let entityName = "Note"
        var id: Int64?
        var title: String
        var stars: Int = 0
    }

    func store(_ folder: TemporaryFolder) throws -> Store {
        let store = try Store(path: folder.path("notes.sqlite"))
        try store.write { ctx in
            try ctx.execute("CREATE TABLE Note (id INTEGER PRIMARY KEY, title TEXT NOT NULL, stars INTEGER DEFAULT 0)")
        }
        return store
    }

    @Test func insertReturnsTheStoredEntityWithItsNewId() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let (first, second) = try store.write { ctx in
            (try ctx.insert(Note(id: nil, title: "a")), try ctx.insert(Note(id: nil, title: "b", stars: 3)))
        }
        #expect(first == Note(id: 1, title: "a", stars: 0))
        #expect(second == Note(id: 2, title: "b", stars: 3))
        #expect(try Portal<Note>(store).findAll(sortedBy: [SortKey("id")]) == [first, second])
    }

    @Test func updateUpsertAndDeleteOneEntity() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        try store.write { ctx in
            var note = try ctx.insert(Note(id: nil, title: "draft"))
            note.title = "final"
            try ctx.update(note)
            #expect(try ctx.count("Note", where: "title == 'final'") == 1)
            let upserted = try ctx.upsert(Note(id: 7, title: "seven", stars: 1))
            #expect(upserted == Note(id: 7, title: "seven", stars: 1))
            #expect(try ctx.upsert(Note(id: 7, title: "seven again", stars: 2)).title == "seven again")
            #expect(try ctx.delete(note))
            #expect(try !ctx.delete(note))   // gone already
        }
        #expect(try Portal<Note>(store).findAll() == [Note(id: 7, title: "seven again", stars: 2)])
    }

    @Test func updateOfAMissingEntityIsRowNotFoundAndRollsBackTheWrite() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let error = portalError {
            try store.write { ctx in
                _ = try ctx.insert(Note(id: nil, title: "kept only if all goes well"))
                try ctx.update(Note(id: 42, title: "nobody"))
            }
        }
        #expect(error?.kind == .rowNotFound)
        #expect(try Portal<Note>(store).count() == 0)
    }
}

/// A typed fetch from raw SQL: any `Decodable` whose properties are the columns' names.
@Suite struct RawSQLFetchTests {
    struct Tally: Decodable, Equatable {
        var title: String
        var total: Int
    }

    @Test func rawSQLDecodesIntoAStructByColumnName() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("t.sqlite"))
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (title TEXT, n INTEGER); INSERT INTO T VALUES ('a', 1), ('a', 2), ('b', 5)")
        }
        let tallies = try store.read { ctx in
            try ctx.fetch(Tally.self, sql: "SELECT title, sum(n) AS total FROM T WHERE n > ? GROUP BY title ORDER BY title",
                          arguments: [.integer(0)])
        }
        #expect(tallies == [Tally(title: "a", total: 3), Tally(title: "b", total: 5)])
        let refused = portalError { try store.read { ctx in try ctx.fetch(Tally.self, sql: "DELETE FROM T RETURNING title, n AS total") } }
        #expect(refused?.kind == .writeInRead)
        let mismatch = portalError { try store.read { ctx in try ctx.fetch(Tally.self, sql: "SELECT title FROM T") } }
        #expect(mismatch?.kind == .conversion)
    }
}
