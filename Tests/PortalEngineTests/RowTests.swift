import Foundation
import Testing
@testable import PortalEngine

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
        try store.write { ctx in try ctx.execute("CREATE TABLE T (a); INSERT INTO T VALUES (1), (2)") }
        let rows = try store.read { ctx in try ctx.find("T") }
        let sum = await Task.detached { rows.compactMap { row -> Int64? in
            if case .integer(let n)? = row["a"] { return n } else { return nil }
        }.reduce(0, +) }.value
        #expect(sum == 3)
    }
}
