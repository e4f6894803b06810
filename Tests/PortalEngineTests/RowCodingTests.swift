import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// `RowDecodable` and `RowEncodable`: a hand-written conformance reads and writes every kind of
/// value as the Codable path does (a twin type without the conformance is the second way to
/// compute), the engine prefers it, and bad values or shapes throw `.conversion`.
@Suite(.serialized) struct RowCodingTests {
    enum Mood: String, Codable, Sendable, DatabaseValueConvertible { case calm, wild }
    enum Level: Int64, Codable, Sendable, DatabaseValueConvertible { case low = 1, high = 2 }

    /// Every kind of value, decoded by the Codable path only.
    struct Sample: PortalEntity, Equatable {
        static let entityName = "Sample"
        var id: Int64
        var count: Int
        var ratio: Double
        var name: String
        var done: Bool
        var at: Date
        var uid: UUID
        var payload: Data
        var bytes: [UInt8]
        var mood: Mood
        var level: Level
        var any: Value
        var note: String?
        var score: Double?
        var parent: Int64?
        var when: Date?
        var maybe: Mood?
    }

    /// The same, through a hand-written conformance (counting its uses, to show it is preferred;
    /// the suite is serialized so the counts are its own).
    struct Coded: PortalEntity, Equatable, RowDecodable, RowEncodable {
        static let entityName = "Sample"
        var id: Int64
        var count: Int
        var ratio: Double
        var name: String
        var done: Bool
        var at: Date
        var uid: UUID
        var payload: Data
        var bytes: [UInt8]
        var mood: Mood
        var level: Level
        var any: Value
        var note: String?
        var score: Double?
        var parent: Int64?
        var when: Date?
        var maybe: Mood?

        static let decodedColumns = ["id", "count", "ratio", "name", "done", "at", "uid", "payload", "bytes", "mood",
                                     "level", "any", "note", "score", "parent", "when", "maybe"]
        static let encodedColumns = decodedColumns
        nonisolated(unsafe) static var decodes = 0
        nonisolated(unsafe) static var encodes = 0

        init(row: borrowing RowReader) throws {
            Coded.decodes += 1
            id = try row[0]; count = try row[1]; ratio = try row[2]; name = try row[3]; done = try row[4]
            at = try row[5]; uid = try row[6]; payload = try row[7]; bytes = try row[8]; mood = try row[9]
            level = try row[10]; any = try row[11]; note = try row[12]; score = try row[13]; parent = try row[14]
            when = try row[15]; maybe = try row[16]
        }

        func encode(into row: inout RowWriter) {
            Coded.encodes += 1
            row.append(id); row.append(count); row.append(ratio); row.append(name); row.append(done)
            row.append(at); row.append(uid); row.append(payload); row.append(bytes); row.append(mood)
            row.append(level); row.append(any); row.append(note); row.append(score); row.append(parent)
            row.append(when); row.append(maybe)
        }

        init(_ s: Sample) {
            (id, count, ratio, name, done, at, uid, payload) = (s.id, s.count, s.ratio, s.name, s.done, s.at, s.uid, s.payload)
            (bytes, mood, level, any, note, score, parent, when, maybe) =
                (s.bytes, s.mood, s.level, s.any, s.note, s.score, s.parent, s.when, s.maybe)
        }
    }

    static let createTable = """
        CREATE TABLE Sample (id INTEGER PRIMARY KEY, count INTEGER, ratio REAL, name TEXT, done INTEGER, at TEXT,
                             uid TEXT, payload BLOB, bytes BLOB, mood TEXT, level INTEGER, any, note TEXT, score REAL,
                             parent INTEGER, "when" TEXT, maybe TEXT)
        """

    func store() throws -> (Store, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("samples.sqlite"))
        try store.write { ctx in try ctx.execute(Self.createTable) }
        return (store, folder)
    }

    static let samples: [Sample] = [
        Sample(id: 1, count: -7, ratio: 2.5, name: "été", done: true, at: Date(timeIntervalSince1970: 1_709_294_400),
               uid: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), payload: Data([0, 255, 7]),
               bytes: [9, 8], mood: .wild, level: .high, any: .real(1.5), note: "n", score: 0.25, parent: 3,
               when: Date(timeIntervalSince1970: 1_654_072_215.25), maybe: .calm),
        Sample(id: 2, count: Int.max, ratio: -0.0, name: "", done: false, at: Date(timeIntervalSince1970: 0),
               uid: UUID(uuid: (0, 0, 0, 0, 0, 0, 64, 0, 128, 0, 0, 0, 0, 0, 0, 2)), payload: Data(), bytes: [],
               mood: .calm, level: .low, any: .text("x"), note: nil, score: nil, parent: nil, when: nil, maybe: nil),
    ]

    @Test func everyKindOfValueDecodesAsTheCodablePathDecodesIt() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        try Portal<Sample>(store).create(Self.samples)   // written by Codable
        let before = Coded.decodes
        let coded = try Portal<Coded>(store).findAll(sortedBy: [SortKey("id")])
        #expect(Coded.decodes - before == 2, "the conformance is what the fetch used")
        let codable = try Portal<Sample>(store).findAll(sortedBy: [SortKey("id")])
        #expect(codable == Self.samples)
        #expect(coded == codable.map(Coded.init))
        // The other typed reads prefer it too: the cursor, raw SQL, a single insert's stored entity.
        var streamed: [Coded] = []
        try store.read { ctx in try ctx.forEach(Coded.self, sortedBy: [SortKey("id")]) { streamed.append($0) } }
        #expect(streamed == coded)
        let raw = try store.read { ctx in try ctx.fetch(Coded.self, sql: "SELECT * FROM Sample ORDER BY id") }
        #expect(raw == coded)
        #expect(Coded.decodes - before == 6)
    }

    @Test func theAsyncCursorDecodesThroughTheConformance() async throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        try Portal<Sample>(store).create(Self.samples)
        let before = Coded.decodes
        var streamed: [Coded] = []
        for try await coded in Portal<Coded>(store).cursor(sortedBy: [SortKey("id")]) { streamed.append(coded) }
        #expect(streamed == Self.samples.map(Coded.init))
        #expect(Coded.decodes - before == 2)
    }

    @Test(.timeLimit(.minutes(1))) func typedObservationDecodesThroughTheConformance() async throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        try Portal<Sample>(store).create(Self.samples)
        let before = Coded.decodes
        var iterator = Portal<Coded>(store).observe(where: "id == %@", [2]).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first == [Coded(Self.samples[1])])
        #expect(Coded.decodes - before == 1)
    }

    @Test func everyKindOfValueEncodesAsTheCodablePathEncodesIt() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        let before = Coded.encodes
        try Portal<Coded>(store).create(Self.samples.map(Coded.init))
        #expect(Coded.encodes - before == 2)
        let byConformance = try store.read { ctx in try ctx.query("SELECT * FROM Sample ORDER BY id").rows.map(\.values) }
        _ = try Portal<Coded>(store).deleteAll()
        try Portal<Sample>(store).create(Self.samples)
        let byCodable = try store.read { ctx in try ctx.query("SELECT * FROM Sample ORDER BY id").rows.map(\.values) }
        #expect(byConformance == byCodable)
        #expect(byConformance.count == 2)
        // Single-entity writes go through it as well, and the stored entity comes back through it.
        var changed = Coded(Self.samples[1])
        changed.note = "now set"
        try store.write { ctx in try ctx.update(changed) }
        #expect(try Portal<Sample>(store).findFirst(where: "id == 2")?.note == "now set")
        changed.id = 3
        let inserted = try store.write { ctx in try ctx.insert(changed) }
        #expect(inserted == changed)
        #expect(Coded.encodes - before == 4)
    }

    /// A value that does not convert, or a column the result lacks, throws `.conversion` naming
    /// the attribute; a missing column leaves an optional nil.
    @Test func badValuesAndMissingColumnsThrowNamingTheAttribute() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        try Portal<Sample>(store).create(Self.samples)
        let columns = Coded.decodedColumns.map { $0 == "count" ? "'abc' AS count" : "\"\($0)\"" }.joined(separator: ", ")
        let error = portalError { try store.read { ctx in try ctx.fetch(Coded.self, sql: "SELECT \(columns) FROM Sample") } }
        #expect(error?.kind == .conversion)
        #expect(error?.attribute == "count")
        let badMood = Coded.decodedColumns.map { $0 == "mood" ? "'angry' AS mood" : "\"\($0)\"" }.joined(separator: ", ")
        let moodError = portalError { try store.read { ctx in try ctx.fetch(Coded.self, sql: "SELECT \(badMood) FROM Sample") } }
        #expect(moodError?.kind == .conversion)
        #expect(moodError?.attribute == "mood")
        #expect(moodError?.message.contains("angry") == true)
        let missing = portalError { try store.read { ctx in try ctx.fetch(Coded.self, sql: "SELECT id FROM Sample") } }
        #expect(missing?.kind == .conversion)
        #expect(missing?.attribute == "count")
        #expect(missing?.message.contains("no column 'count'") == true)
        let nullInNonOptional = Coded.decodedColumns.map { $0 == "name" ? "NULL AS name" : "\"\($0)\"" }.joined(separator: ", ")
        let nullError = portalError {
            try store.read { ctx in try ctx.fetch(Coded.self, sql: "SELECT \(nullInNonOptional) FROM Sample") }
        }
        #expect(nullError?.attribute == "name")
    }

    /// (Without `borrowing`: a conformance that takes the reader as owned works too.)
    struct Partial: PortalEntity, Equatable, RowDecodable {
        static let entityName = "Sample"
        var id: Int64
        var note: String?
        static let decodedColumns = ["id", "note"]
        init(row: RowReader) throws { (id, note) = (try row[0], try row[1]) }
        init(id: Int64, note: String?) { (self.id, self.note) = (id, note) }
    }

    @Test func anOptionalWhoseColumnIsMissingIsNil() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        try Portal<Sample>(store).create(Self.samples)
        let rows = try store.read { ctx in try ctx.fetch(Partial.self, sql: "SELECT id FROM Sample ORDER BY id") }
        #expect(rows == [Partial(id: 1, note: nil), Partial(id: 2, note: nil)])
    }

    struct Untyped: PortalEntity, Equatable, RowDecodable {
        static let entityName = "Sample"
        var maybe: Value?
        var always: Value
        static let decodedColumns = ["maybe", "always"]
        init(row: borrowing RowReader) throws { (maybe, always) = (try row[0], try row[1]) }
    }

    /// As with Codable, NULL in a `Value?` is nil and in a `Value` is `.null`.
    @Test func nullInAnOptionalValueIsNil() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        let rows = try store.read { ctx in try ctx.fetch(Untyped.self, sql: "SELECT NULL AS maybe, NULL AS always") }
        let codable = try store.read { ctx in
            try ctx.query("SELECT NULL AS maybe, NULL AS always").rows[0].decode(as: Untyped.self)
        }
        #expect(rows.first?.maybe == nil)
        #expect(rows.first?.always == .null)
        #expect(rows.first == codable)
    }

    struct Short: PortalEntity, RowEncodable {
        static let entityName = "Sample"
        var id: Int64
        static let encodedColumns = ["id", "name"]
        func encode(into row: inout RowWriter) { row.append(id) }
    }

    @Test func anEncoderThatWritesTooFewValuesIsRefused() throws {
        let (store, folder) = try store()
        defer { withExtendedLifetime(folder) {} }
        let error = portalError { try Portal<Short>(store).create([Short(id: 1)]) }
        #expect(error?.kind == .conversion)
        #expect(error?.message.contains("wrote 1 values for 2 columns") == true)
        #expect(try Portal<Sample>(store).count() == 0)
    }
}
