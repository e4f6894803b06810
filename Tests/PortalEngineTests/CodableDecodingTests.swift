import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// Codable decoding of fetched rows (types with no `RowDecodable` conformance). Each key's column
/// is found once per fetch and kept for the following rows, so these check the keys that lookup
/// has to tell apart, over several rows.
@Suite struct CodableDecodingTests {
    /// Cases named otherwise than their columns, and in another order.
    struct Renamed: Decodable, Equatable {
        var first: Int64
        var second: String
        enum CodingKeys: String, CodingKey {
            case first = "b"
            case second = "a"
        }
    }

    /// One property: a key type of one case, which takes no bytes.
    struct Lone: Decodable, Equatable {
        var b: Int64
    }

    /// A key that is not a one-byte value: it holds its name.
    struct NamedKey: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    struct ByName: Decodable, Equatable {
        var a: String
        var b: Int64
        init(a: String, b: Int64) {
            self.a = a
            self.b = b
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: NamedKey.self)
            b = try container.decode(Int64.self, forKey: NamedKey("b"))
            a = try container.decode(String.self, forKey: NamedKey("a"))
        }
    }

    /// A subclass decodes its own keys, then its superclass the superclass's: two key types
    /// alternate in every row, each case 0 naming another column.
    class Base: Decodable {
        let a: String
        private enum CodingKeys: CodingKey { case a }
        required init(from decoder: any Decoder) throws {
            a = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .a)
        }
    }

    final class Derived: Base {
        let b: Int64
        let c: Double
        private enum CodingKeys: CodingKey { case b, c }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            b = try container.decode(Int64.self, forKey: .b)
            c = try container.decode(Double.self, forKey: .c)
            try super.init(from: decoder)
        }
    }

    /// A column the rows lack, as an optional (nil) on every row.
    struct WithMissing: Decodable, Equatable {
        var b: Int64
        var absent: Int64?
        var a: String
    }

    private func store(rows: Int) throws -> Store {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (a TEXT, b INTEGER, c REAL)")
            for i in 1...rows { try ctx.execute("INSERT INTO T VALUES ('x\(i)', \(i), \(i).5)") }
        }
        return store
    }

    @Test func everyKindOfKeyFindsItsColumnOnEveryRow() throws {
        let store = try store(rows: 3)
        try store.write { ctx in
            #expect(try ctx.fetch(Renamed.self, sql: "SELECT * FROM T") == (1...3).map { Renamed(first: Int64($0), second: "x\($0)") })
            #expect(try ctx.fetch(Lone.self, sql: "SELECT c, a, b FROM T") == (1...3).map { Lone(b: Int64($0)) })
            #expect(try ctx.fetch(ByName.self, sql: "SELECT * FROM T") == (1...3).map { ByName(a: "x\($0)", b: Int64($0)) })
            let derived = try ctx.fetch(Derived.self, sql: "SELECT * FROM T")
            #expect(derived.map(\.a) == ["x1", "x2", "x3"])
            #expect(derived.map(\.b) == [1, 2, 3])
            #expect(derived.map(\.c) == [1.5, 2.5, 3.5])
            #expect(try ctx.fetch(WithMissing.self, sql: "SELECT * FROM T") == (1...3).map { WithMissing(b: Int64($0), absent: nil, a: "x\($0)") })
        }
    }

    /// A later row whose value does not convert fails as the first row would, naming the
    /// attribute, though its column was found on an earlier row.
    @Test func aBadValueOnALaterRowIsAConversionErrorNamingTheAttribute() throws {
        let store = try store(rows: 3)
        for (value, expected) in [("NULL", "b"), ("'text'", "b"), ("2.5", "b")] {
            try store.write { ctx in
                try ctx.execute("UPDATE T SET b = \(value) WHERE a = 'x3'")
                let error = portalError { _ = try ctx.fetch(Renamed.self, sql: "SELECT * FROM T ORDER BY a") }
                #expect(error?.kind == .conversion)
                #expect(error?.attribute == expected)
            }
        }
        try store.write { ctx in
            let missing = portalError { _ = try ctx.fetch(Renamed.self, sql: "SELECT a FROM T") }
            #expect(missing?.kind == .conversion && missing?.attribute == "b")
        }
    }

    /// Rows whose integer column holds something else on some rows (a whole REAL, a NULL for an
    /// optional) take the converting path on those rows only: the rows around them still read
    /// their column from the table found on the first row.
    @Test func rowsOfOtherTypesBetweenIntegersConvertAndTheNextRowsReadAsBefore() throws {
        struct Mixed: Decodable, Equatable {
            var b: Int64
            var c: Int64?
        }
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE M (b, c)")
            try ctx.execute("INSERT INTO M VALUES (1, 10), (2.0, NULL), (3, 30.0), (4, 40)")
            #expect(try ctx.fetch(Mixed.self, sql: "SELECT * FROM M ORDER BY rowid")
                    == [Mixed(b: 1, c: 10), Mixed(b: 2, c: nil), Mixed(b: 3, c: 30), Mixed(b: 4, c: 40)])
        }
    }

    /// A failure after several chunks of entities were collected lets them all go (each holds
    /// text), and the next fetch decodes as before.
    @Test func aFailureAfterManyRowsThrowsAndTheNextFetchDecodes() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let all = (1...5000).map { User(id: Int64($0), name: "user \($0)", age: $0) }
        try Portal<User>(store).create(all)
        try store.write { ctx in try ctx.execute("UPDATE User SET age = 'old' WHERE id = 4500") }
        let error = portalError { _ = try Portal<User>(store).findAll(sortedBy: [SortKey("id")]) }
        #expect(error?.kind == .conversion && error?.attribute == "age")
        try store.write { ctx in try ctx.execute("UPDATE User SET age = 4500 WHERE id = 4500") }
        #expect(try Portal<User>(store).findAll(sortedBy: [SortKey("id")]) == all)
    }
}
