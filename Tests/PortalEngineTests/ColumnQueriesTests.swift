import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// `ColumnQueries` on an entity mapped onto a shared Core Data-style table (attribute `title` in
/// column ZTITLE, the entity's rows told apart by Z_ENT): statements name storage columns, keep
/// to the entity's rows, and page the frequency table by key. The oracle is Swift over the rows.
@Suite struct ColumnQueriesTests {
    static func title(_ name: String, _ column: String, _ type: String) -> AttributeDescription {
        AttributeDescription(name: name, declaredType: type, isNullable: true, defaultValue: nil, primaryKeyPosition: nil,
                             column: column)
    }

    static let checklist = EntityDescription(
        name: "Checklist", kind: .table, attributes: [title("title", "ZTITLE", "VARCHAR"), title("items", "ZITEMS", "INTEGER")],
        primaryKey: ["Z_PK"], hasRowid: true, relationships: [], indexes: [], table: "ZNOTE",
        discriminator: .init(column: "Z_ENT", values: [3]))

    /// 400 rows, about half of them the entity's (Z_ENT 3).
    static func rows() -> [(entity: Int64, title: String?, items: Int64?)] {
        var state: UInt64 = 7
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let titles = ["plan", "budget", "it's", "", "a \"quote\""]
        return (0..<400).map { _ in
            (next() % 2 == 0 ? 2 : 3, next() % 6 == 0 ? nil : titles[Int(next() % 5) % Int(1 + next() % 5)],
             next() % 5 == 0 ? nil : Int64(next() % 30))
        }
    }

    func withStore<T>(_ body: (Store, [(entity: Int64, title: String?, items: Int64?)]) throws -> T) throws -> T {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("notes.sqlite"))
        defer { try? store.close() }
        let rows = Self.rows()
        try store.write { context in
            _ = try context.execute("CREATE TABLE ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZTITLE VARCHAR, ZITEMS INTEGER)")
            for row in rows {
                _ = try context.execute("INSERT INTO ZNOTE (Z_ENT, ZTITLE, ZITEMS) VALUES (?, ?, ?)",
                                        [.integer(row.entity), row.title.map(Value.text) ?? .null, row.items.map(Value.integer) ?? .null])
            }
        }
        return try body(store, rows)
    }

    func run(_ store: Store, _ select: Select) throws -> [[Value]] {
        let sql = select.rendered(in: store.dialect)
        return try store.read { try $0.query(sql.sql, sql.bindings).rows.map(\.values) }
    }

    /// Each value and its count, most frequent first, then NULL, then by value.
    static func expected(_ values: [Value]) -> [[Value]] {
        var counts: [Value: Int] = [:]
        for v in values { counts[v, default: 0] += 1 }
        return counts.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            switch (a.key, b.key) {
            case (.null, _): return true
            case (_, .null): return false
            case (.text(let x), .text(let y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            case (.integer(let x), .integer(let y)): return x < y
            default: return false
            }
        }.map { [$0.key, .integer(Int64($0.value))] }
    }

    @Test(arguments: ["title", "items"])
    func pagesForwardAndBackwardMakeTheWholeTable(attributeName: String) throws {
        try withStore { store, rows in
            let attribute = try #require(Self.checklist.attribute(named: attributeName))
            let own = rows.filter { $0.entity == 3 }
            let values: [Value] = own.map { attributeName == "title" ? ($0.title.map(Value.text) ?? .null) : ($0.items.map(Value.integer) ?? .null) }
            let expected = Self.expected(values)
            func page(_ anchor: ColumnQueries.FrequencyAnchor) throws -> [[Value]] {
                let rows = try run(store, ColumnQueries.frequencies(Self.checklist, attribute, condition: nil, anchor: anchor, limit: 4, dialect: .sqlite))
                return anchor.isBackward ? rows.reversed() : rows
            }
            func count(_ row: [Value]) -> Int { if case .integer(let n) = row[1] { return Int(n) } else { return -1 } }
            var forward = try page(.first)
            while let last = forward.last {
                let next = try page(.after(last[0], count: count(last)))
                if next.isEmpty { break }
                forward += next
            }
            #expect(forward == expected)
            var backward = try page(.last)
            while let first = backward.first {
                let previous = try page(.before(first[0], count: count(first)))
                if previous.isEmpty { break }
                backward = previous + backward
            }
            #expect(backward == expected)
            let distinct = try run(store, ColumnQueries.distinctCount(Self.checklist, attribute, condition: nil, limit: nil, dialect: .sqlite))
            #expect(distinct == [[.integer(Int64(expected.count))]])
            let limited = try run(store, ColumnQueries.distinctCount(Self.checklist, attribute, condition: nil, limit: 2, dialect: .sqlite))
            #expect(limited == [[.integer(2)]])
        }
    }

    @Test func summaryHistogramAndShortestKeepToTheEntityAndTheCondition() throws {
        try withStore { store, rows in
            let items = try #require(Self.checklist.attribute(named: "items"))
            let title = try #require(Self.checklist.attribute(named: "title"))
            let condition = "t0.\"ZITEMS\" >= " + SQLFragment.bound(.integer(5))
            let own = rows.filter { $0.entity == 3 && ($0.items ?? -1) >= 5 }
            let numbers = own.compactMap(\.items)
            let summary = try run(store, ColumnQueries.summary(Self.checklist, items, condition: condition, dates: false,
                                                               dialect: store.dialect))
            let average = Double(numbers.reduce(0, +)) / Double(numbers.count)
            #expect(summary.first?[0...4] == [.integer(Int64(own.count)), .integer(Int64(numbers.count)),
                                              .integer(Int64(Set(numbers).count)), .integer(numbers.min() ?? -1),
                                              .integer(numbers.max() ?? -1)])
            if case .real(let a)? = summary.first?[5] { #expect(abs(a - average) < 1e-9) } else { Issue.record("no average") }
            // Bins of width 5 from 5: (bin, count) for the bins that hold any value.
            let bins = try run(store, ColumnQueries.histogram(Self.checklist, items, condition: condition, dates: false,
                                                              lower: 5, width: 5, bins: 5, dialect: store.dialect))
            var counts: [Int64: Int64] = [:]
            for n in numbers { counts[min((n - 5) / 5, 4), default: 0] += 1 }
            #expect(bins == counts.sorted { $0.key < $1.key }.map { [.integer($0.key), .integer($0.value)] })
            let titles = own.compactMap(\.title)
            let shortest = try run(store, ColumnQueries.shortest(Self.checklist, title, condition: condition, longest: false, dialect: .sqlite))
            #expect(shortest == [[.text(titles.min { ($0.count, $0) < ($1.count, $1) } ?? "-")]])
        }
    }

    /// Dates as ISO text and as Unix seconds (both the engine's conventions) are the same day
    /// numbers; text that is no date is none.
    @Test func datesByTextAndBySecondsAreTheSameDays() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE E (id INTEGER PRIMARY KEY, at DATETIME);"
                + "INSERT INTO E (at) VALUES ('2021-01-01 00:00:00'), (1609459200), (1609502400.0), ('soon')")
        }
        let entity = try #require(try store.read { try $0.schema }.entity(named: "E"))
        let at = try #require(entity.attribute(named: "at"))
        let summary = try run(store, ColumnQueries.summary(entity, at, condition: nil, dates: true, dialect: store.dialect))
        #expect(summary.first?[6...7] == [.real(2_459_215.5), .real(2_459_216.0)])
    }

    @Test func uniqueColumnsAreTheIntegerKeyAndNotNullUniqueOnes() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        defer { try? store.close() }
        try store.write {
            _ = try $0.execute("CREATE TABLE Tagged (code TEXT UNIQUE, label TEXT PRIMARY KEY NOT NULL, "
                               + "kind TEXT NOT NULL, live INTEGER NOT NULL)")
            // Unique among live rows only: retired rows repeat kinds.
            _ = try $0.execute("CREATE UNIQUE INDEX live_kind ON Tagged (kind) WHERE live")
            _ = try $0.execute("INSERT INTO Tagged VALUES ('a', 'x', 'k', 1), ('b', 'y', 'k', 0), ('c', 'z', 'k', 0)")
        }
        let user = try store.read { try $0.entity(named: "User") }
        let tagged = try store.read { try $0.entity(named: "Tagged") }
        func unique(_ entity: EntityDescription, _ name: String) throws -> Bool {
            ColumnQueries.isUnique(entity, try #require(entity.attribute(named: name)))
        }
        #expect(try unique(user, "id") && unique(user, "name") && !unique(user, "age"))
        // A UNIQUE column may hold many NULLs; a NOT NULL primary key may not.
        #expect(try !unique(tagged, "code") && unique(tagged, "label"))
        #expect(try !unique(tagged, "kind"))
        let kind = try #require(tagged.attribute(named: "kind"))
        let page = try run(store, ColumnQueries.frequencies(tagged, kind, condition: nil, anchor: .first, limit: 10, dialect: .sqlite))
        #expect(page == [["k", 3]])
    }
}
