import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

struct User: PortalEntity, Equatable {
    static let entityName = "User"
    static let idAttribute = "id"
    var id: Int64
    var name: String
    var age: Int?
}

struct Gadget: PortalEntity, Equatable {
    enum Kind: String, Codable { case phone, watch }
    static let entityName = "Gadget"
    var id: Int64?
    var kind: Kind
    var price: Double
    var inStock: Bool
    var photo: [UInt8]
}

@Suite struct TypedPortalTests {
    @Test func roundTripThroughEveryOperation() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let users = Portal<User>(store)
        try users.create([User(id: 1, name: "Bruce", age: 42), User(id: 2, name: "Ann", age: nil)])
        #expect(try users.count() == 2)
        #expect(try users.count(where: "age > %@", [30]) == 1)
        #expect(try users.findAll(sortedBy: [SortKey("name")]) == [User(id: 2, name: "Ann", age: nil), User(id: 1, name: "Bruce", age: 42)])
        #expect(try users.findFirst(where: "name == %@", ["Bruce"]) == User(id: 1, name: "Bruce", age: 42))

        try users.update([User(id: 1, name: "Bruce", age: nil)])
        #expect(try users.findFirst(where: "id == 1")?.age == nil)   // nil clears the attribute

        try users.upsert([User(id: 2, name: "Ann", age: 7), User(id: 3, name: "Cy", age: 3)])
        #expect(try users.findAll(where: "age != nil", [], sortedBy: [SortKey("id")], limit: nil).map(\.age) == [7, 3])

        #expect(try users.deleteAll(where: "age < %@", [5]) == 1)
        #expect(try users.findAll().map(\.id).sorted() == [1, 2])
    }

    @Test func updatingAMissingEntityThrowsAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let users = Portal<User>(store)
        try users.create([User(id: 1, name: "A", age: 1)])
        let error = portalError { try users.update([User(id: 1, name: "A", age: 2), User(id: 9, name: "Z", age: 1)]) }
        #expect(error?.kind == .rowNotFound)
        #expect(try users.findFirst()?.age == 1)
    }

    @Test func enumsDoublesBoolsAndBlobsRoundTrip() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE Gadget (id INTEGER PRIMARY KEY, kind TEXT, price REAL, inStock INTEGER, photo BLOB)")
        }
        let gadgets = Portal<Gadget>(store)
        try gadgets.create([Gadget(id: nil, kind: .watch, price: 9.5, inStock: true, photo: [1, 2, 3])])
        let stored = try #require(try gadgets.findFirst())
        #expect(stored == Gadget(id: 1, kind: .watch, price: 9.5, inStock: true, photo: [1, 2, 3]))
        let raw = try store.read { ctx in try ctx.first("Gadget") }
        #expect(raw?["kind"] == "watch")
        #expect(raw?["inStock"] == 1)
    }

    @Test func aValueOfTheWrongTypeIsAConversionErrorNamingTheAttribute() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in try ctx.execute("INSERT INTO User (id, name, age) VALUES (1, 'A', 'old')") }
        let error = portalError { _ = try Portal<User>(store).findAll() }
        #expect(error?.kind == .conversion)
        #expect(error?.attribute == "age")
        #expect(error?.entity == "User")
    }

    @Test func rowsDecodeByName() throws {
        let row = Row(["name": "Bruce", "id": 4, "age": .null])
        let user: User = try row.decode()
        #expect(user == User(id: 4, name: "Bruce", age: nil))
    }

    /// Enough rows to fill several of the chunks the decoded entities are collected in; text
    /// fields are moved, not lost.
    @Test func manyRowsDecodeInOrderWithTheirText() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let all = (1...5000).map { User(id: Int64($0), name: "user \($0)", age: $0 % 3 == 0 ? nil : $0) }
        try Portal<User>(store).create(all)
        #expect(try Portal<User>(store).findAll(sortedBy: [SortKey("id")]) == all)
        #expect(try Portal<User>(store).findAll(where: "id > 5000") == [])
    }

    @Test func anIdStoredAsRealOrTextDecodesOnlyWhenExact() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in try ctx.execute("CREATE TABLE Loose (id, name, age)") }
        struct Loose: PortalEntity, Equatable {
            static let entityName = "Loose"
            static let idAttribute = "id"
            var id: Int64
            var name: String
        }
        try store.write { ctx in try ctx.execute("INSERT INTO Loose VALUES (2.0, 'two', 1)") }
        #expect(try Portal<Loose>(store).findAll() == [Loose(id: 2, name: "two")])
        try store.write { ctx in try ctx.execute("INSERT INTO Loose VALUES (2.5, 'half', 1)") }
        let inexact = portalError { _ = try Portal<Loose>(store).findAll() }
        #expect(inexact?.kind == .conversion && inexact?.attribute == "id")
        try store.write { ctx in try ctx.execute("DELETE FROM Loose WHERE id = 2.5; INSERT INTO Loose VALUES ('x', 'text', 1)") }
        let text = portalError { _ = try Portal<Loose>(store).findAll() }
        #expect(text?.kind == .conversion && text?.attribute == "id")
    }

    @Test func aMissingColumnIsAConversionErrorNamingIt() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in try ctx.execute("CREATE TABLE Thin (name)"); try ctx.execute("INSERT INTO Thin VALUES ('a')") }
        struct Thin: PortalEntity {
            static let entityName = "Thin"
            static let idAttribute = "id"
            var id: Int64
            var name: String
        }
        let error = portalError { _ = try Portal<Thin>(store).findAll() }
        #expect(error?.kind == .conversion && error?.attribute == "id")
    }
}
