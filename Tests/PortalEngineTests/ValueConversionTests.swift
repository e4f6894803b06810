import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The one value conversion (`DatabaseValueConvertible`): typed entities store dates, UUIDs,
/// decimals, URLs, enums, booleans and data by its rules, read them back, and a stored date is
/// found by the predicate language's date comparisons.
@Suite struct ValueConversionTests {
    enum Mood: String, Codable, Sendable, DatabaseValueConvertible { case calm, wild }

    struct Event: PortalEntity, Equatable {
        static let entityName = "Event"
        var id: Int64
        var at: Date
        var uid: UUID
        var price: Decimal
        var link: URL?
        var mood: Mood
        var done: Bool
        var payload: Data
    }

    func store() throws -> (Store, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("events.sqlite"))
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE Event (id INTEGER PRIMARY KEY, at TEXT, uid TEXT, price TEXT, link TEXT, mood TEXT,
                                    done INTEGER, payload BLOB)
                """)
        }
        return (store, folder)
    }

    /// 2024-03-01 12:00:00 UTC and 2022-06-01 08:30:15.25 UTC.
    let march2024 = Date(timeIntervalSince1970: 1_709_294_400)
    let june2022 = Date(timeIntervalSince1970: 1_654_072_215.25)

    func events() -> [Event] {
        [Event(id: 1, at: march2024, uid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID(),
               price: Decimal(string: "19.99") ?? 0, link: URL(string: "https://example.org/a?b=1"), mood: .wild,
               done: true, payload: Data([0, 1, 255])),
         Event(id: 2, at: june2022, uid: UUID(uuidString: "00000000-0000-4000-8000-000000000002") ?? UUID(), price: Decimal(string: "0.1") ?? 0, link: nil, mood: .calm,
               done: false, payload: Data())]
    }

    @Test func typedValuesRoundTripAndAreStoredByTheRules() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        let portal = Portal<Event>(store)
        try portal.create(events())
        #expect(try portal.findAll(sortedBy: [SortKey("id")]) == events())
        let stored = try store.read { ctx in
            try ctx.query("SELECT at, typeof(at), uid, price, mood, done, typeof(payload) FROM Event WHERE id = 1").rows[0].values
        }
        #expect(stored == [.text("2024-03-01 12:00:00"), .text("text"), .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"),
                           .text("19.99"), .text("wild"), .integer(1), .text("blob")])
        let fraction = try store.read { ctx in try ctx.query("SELECT at FROM Event WHERE id = 2").rows[0].values[0] }
        #expect(fraction == .text("2022-06-01 08:30:15.250"))
    }

    /// The defect: a 2024 date stored through `Portal<T>` was 725760000 (seconds since 2001) and
    /// `at < CAST("2023-01-01", "NSDate")` matched it.
    @Test func aStoredDateComparesWithCastAndNow() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        let portal = Portal<Event>(store)
        try portal.create(events())
        #expect(try portal.findAll(where: #"at < CAST("2023-01-01", "NSDate")"#).map(\.id) == [2])
        #expect(try portal.findAll(where: #"at > CAST("2023-01-01", "NSDate")"#).map(\.id) == [1])
        #expect(try portal.count(where: #"at == CAST("2024-03-01 12:00:00", "NSDate")"#) == 1)
        #expect(try portal.count(where: "at < now()") == 2)
        #expect(try portal.count(where: "at > now()") == 0)
    }

    /// The values a typed write stores are `%@` arguments by the same rule: a date, a UUID, a
    /// decimal, a URL, data and an enum each find the row they were written in.
    @Test func typedValuesAreArgumentsByTheSameRule() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        let portal = Portal<Event>(store)
        try portal.create(events())
        let first = events()[0]
        #expect(try portal.findAll(where: "at > %@", [Date(timeIntervalSince1970: 1_700_000_000)]).map(\.id) == [1])
        #expect(try portal.findAll(where: "at == %@", [june2022]).map(\.id) == [2])
        #expect(try portal.findAll(where: "uid == %@", [first.uid]).map(\.id) == [1])
        #expect(try portal.findAll(where: "price == %@", [first.price]).map(\.id) == [1])
        #expect(try portal.findAll(where: "link == %@", [first.link]).map(\.id) == [1])
        #expect(try portal.findAll(where: "payload == %@", [first.payload]).map(\.id) == [1])
        #expect(try portal.findAll(where: "mood IN %@", [[Mood.calm]]).map(\.id) == [2])
        #expect(try store.read { ctx in try ctx.count("Event", where: "at < %@ AND done == %@", [march2024, false]) } == 1)
    }

    /// A column that holds dates as Unix seconds (another program's convention) reads as dates.
    @Test func datesStoredAsUnixSecondsRead() throws {
        #expect(Date(databaseValue: .integer(1_709_294_400)) == march2024)
        #expect(Date(databaseValue: .real(1_654_072_215.25)) == june2022)
        #expect(Date(databaseValue: .text("2024-03-01T12:00:00Z")) == march2024)
        #expect(Date(databaseValue: .text("not a date")) == nil)
        #expect(UUID(databaseValue: .blob(Array(repeating: 0xAB, count: 16)))?.uuidString == "ABABABAB-ABAB-ABAB-ABAB-ABABABABABAB")
        #expect(Bool(databaseValue: .text("TRUE")) == true)
        #expect(Mood(databaseValue: .text("sad")) == nil)
    }

    /// A value the conversion cannot read is a conversion error naming the attribute, not a crash.
    @Test func anUnreadableValueIsAConversionError() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        try store.write { ctx in
            try ctx.execute("INSERT INTO Event VALUES (1, 'yesterday-ish', 'x', '1', NULL, 'calm', 1, x'00')")
        }
        #expect(portalError { try Portal<Event>(store).findAll() }?.kind == .conversion)
    }
}
