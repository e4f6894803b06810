import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

@Suite struct RowTests {
    @Test func attributesKeepTheirOrderAndNames() {
        let row = Row(["id": 1, "Name": "Ann", "age": .null])
        #expect(row.names == ["id", "Name", "age"])
        #expect(row.map(\.name) == ["id", "Name", "age"])
        #expect(row.map(\.value) == [1, "Ann", .null])
        #expect(row[1].name == "Name")
        #expect(row["name"] == "Ann")        // case-insensitive fallback, as SQLite
        #expect(row["missing"] == nil)
        #expect(row.description == "[id: integer(1), Name: text(\"Ann\"), age: null]")
    }

    @Test func rowsOfOneQueryShareTheirColumnNames() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (a, b)")
            for i in 0..<3 { try ctx.create("T", ["a": .integer(Int64(i)), "b": "x"]) }
        }
        let rows = try store.read { ctx in try ctx.find("T") }
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.columns === rows[0].columns })
    }

    @Test func equalityAndHashingFollowNamesAndValues() {
        let a = Row(["x": 1, "y": 2])
        let b = Row(["x": 1, "y": 2])
        let c = Row(["x": 1, "z": 2])
        #expect(a == b)
        #expect(a != c)
        #expect(Set([a, b, c]).count == 2)
    }

    @Test func rowsCrossThreads() async throws {
        let store = try Store.inMemory()
        try await store.write { ctx in try ctx.execute("CREATE TABLE T (a); INSERT INTO T VALUES (1), (2)") }
        let rows = try await store.read { ctx in try ctx.find("T") }
        let sum = await Task.detached { rows.compactMap { row -> Int64? in
            if case .integer(let n)? = row["a"] { return n } else { return nil }
        }.reduce(0, +) }.value
        #expect(sum == 3)
    }

    @Test func rowsOfOneFetchKeepEveryKindOfValue() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (i, r, t, b, n)")
            try ctx.execute("INSERT INTO T VALUES (?, ?, ?, ?, ?)", [1, 1.5, "one", .blob([1, 2]), .null])
            try ctx.execute("INSERT INTO T VALUES (?, ?, ?, ?, ?)", [-2, -0.25, "", .blob([]), .null])
            try ctx.execute("INSERT INTO T VALUES (?, ?, ?, ?, ?)", [.null, "x", 3, 4.0, .blob([9])])
        }
        let expected: [[Value]] = [[1, 1.5, "one", .blob([1, 2]), .null], [-2, -0.25, "", .blob([]), .null],
                                   [.null, "x", 3, 4.0, .blob([9])]]
        let rows = try store.read { ctx in try ctx.find("T") }
        #expect(rows.map(\.values) == expected)
        #expect(rows.map { $0.map(\.value) } == expected)
        #expect(rows[2]["t"] == 3 && rows[2].value(at: 1) == "x")
        let queried = try store.read { ctx in try ctx.query("SELECT * FROM T").rows }
        #expect(queried == rows)
        #expect(Set(queried + rows).count == 3)
    }

    /// forEach refills one storage while the caller keeps no row: rows it keeps must not change.
    @Test func streamedRowsKeptByTheCallerStayIntact() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (a, b)")
            for i in 0..<50 { try ctx.insert("T", columns: ["a", "b"], values: [.integer(Int64(i)), .text("t\(i)")]) }
        }
        var kept: [Row] = []
        var seen: [Int64] = []
        try store.read { ctx in
            try ctx.forEach("T", sortedBy: [SortKey("a")]) { row in
                if case .integer(let a)? = row["a"] {
                    seen.append(a)
                    if a % 7 == 0 { kept.append(row) }
                }
            }
        }
        #expect(seen == Array(0..<50))
        #expect(kept.map(\.values) == stride(from: 0, to: 50, by: 7).map { [.integer(Int64($0)), .text("t\($0)")] })
    }

    @Test func settingValuesChangesOnlyThatRow() throws {
        let store = try Store.inMemory()
        try store.write { ctx in try ctx.execute("CREATE TABLE T (a); INSERT INTO T VALUES (1), (2)") }
        let rows = try store.read { ctx in try ctx.find("T") }
        var changed = rows[0]
        changed.values = [5]
        #expect(changed["a"] == 5 && rows[0]["a"] == 1 && rows[1]["a"] == 2)
        #expect(changed.columns === rows[0].columns)
    }
}
