import Foundation
import PortalEngine
import PortalSQLite
import Testing
@testable import PortalTUI

/// Paging visits every row exactly once whatever the table's key: a declared key that is NULL
/// in every row (SQLite allows it outside INTEGER PRIMARY KEY), ties in the sort column, a
/// WITHOUT ROWID key; and a row found by such a key can be edited and deleted.
@Suite struct RowKeyPagingTests {
    let directory: URL
    let store: Store

    /// `usage` as PROJ's proj.db declares it: a TEXT key that no row fills, and a column of
    /// many ties (`authority`) with NULLs among them.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rowkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try Store(path: directory.appendingPathComponent("keys.sqlite").path, options: StoreOptions(create: true))
        try store.write { context in
            try context.execute("CREATE TABLE usage (auth_name TEXT, code TEXT, authority TEXT, CONSTRAINT pk PRIMARY KEY (auth_name, code))")
            try context.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
                INSERT INTO usage (auth_name, code, authority)
                SELECT NULL, NULL, CASE WHEN i % 7 = 0 THEN NULL WHEN i % 3 = 0 THEN 'ESRI' ELSE 'EPSG' END FROM n
                """)
            try context.execute("CREATE TABLE pair (a TEXT NOT NULL, b INTEGER NOT NULL, v TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID")
            try context.execute("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
                INSERT INTO pair SELECT 'k' || (i % 4), i, CASE WHEN i % 2 = 0 THEN 'same' END FROM n
                """)
        }
    }

    /// Every row of `entity`, page after page of `limit` forwards (or backwards from the end).
    func pages(_ source: EngineDataSource, _ entity: String, sort: BrowserSort?, backwards: Bool = false,
               limit: Int = 7) throws -> [BrowserRow] {
        var seen: [BrowserRow] = []
        var page = try source.page(PageRequest(entity: entity, filter: "", sort: sort, anchor: backwards ? .last : .first, limit: limit))
        while !page.isEmpty && seen.count <= 1_000 {
            seen = backwards ? page + seen : seen + page
            let edge = backwards ? page[0] : page[page.count - 1]
            page = try source.page(PageRequest(entity: entity, filter: "", sort: sort,
                                               anchor: backwards ? .before(edge) : .after(edge), limit: limit))
        }
        return seen
    }

    @Test(arguments: [nil, BrowserSort(column: "authority", direction: .ascending),
                      BrowserSort(column: "authority", direction: .descending)])
    func aTableWhoseKeyIsNullInEveryRowIsPagedWhole(sort: BrowserSort?) throws {
        let source = EngineDataSource(store: store)
        for backwards in [false, true] {
            let rows = try pages(source, "usage", sort: sort, backwards: backwards)
            #expect(rows.count == 300)
            #expect(Set(rows.map(\.id)).count == 300)
            if let sort {
                let authorities = rows.map { $0.values[2] }
                let expected = ([Value.null] * 42 + [.text("EPSG")] * 172 + [.text("ESRI")] * 86)
                #expect(authorities == (sort.direction == .ascending ? expected : expected.reversed()))
            }
        }
    }

    @Test func aWithoutRowidTableIsPagedByItsKey() throws {
        let source = EngineDataSource(store: store)
        let rows = try pages(source, "pair", sort: BrowserSort(column: "v", direction: .ascending))
        #expect(rows.count == 100)
        #expect(Set(rows.map(\.id)).count == 100)
        #expect(rows.first?.id.count == 2)
    }

    @Test func aRowOfANullKeyedTableCanBeEditedAndDeleted() throws {
        let source = EngineDataSource(store: store)
        let first = try #require(try source.page(PageRequest(entity: "usage", filter: "", sort: nil, anchor: .first, limit: 2)))
        let edited = try source.update(entity: "usage", id: first[1].id, column: "authority", value: .text("IGNF"))
        #expect(edited.values[2] == .text("IGNF"))
        try source.delete(entity: "usage", id: first[0].id)
        let counts = try store.read { try $0.query("SELECT count(*), sum(authority = 'IGNF') FROM usage").rows[0].values }
        #expect(counts == [.integer(299), .integer(1)])
    }
}

private func * (value: [Value], times: Int) -> [Value] {
    Array(repeating: value, count: times).flatMap { $0 }
}
