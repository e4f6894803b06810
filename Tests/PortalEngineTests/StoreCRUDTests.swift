import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

@Suite struct StoreCRUDTests {
    @Test func createReturnsTheStoredRowWithItsID() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let row = try store.write { ctx in try ctx.create("User", ["name": "Bruce", "age": 42]) }
        #expect(row["id"] == .integer(1))
        #expect(row["name"] == "Bruce")
        #expect(row["AGE"] == 42)
        #expect(row.names == ["id", "name", "age"])
        let rows = try store.read { ctx in try ctx.find("User") }
        #expect(rows == [row])
        #expect(try store.read { ctx in try ctx.count("User") } == 1)
    }

    @Test func updateAndDeleteWithoutPredicateCountRows() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in
            try ctx.create("User", ["name": "A", "age": 1])
            try ctx.create("User", ["name": "B", "age": 2])
        }
        #expect(try store.write { ctx in try ctx.update("User", set: ["age": 7]) } == 2)
        #expect(try store.read { ctx in try ctx.find("User").map { $0["age"] } } == [7, 7])
        #expect(try store.write { ctx in try ctx.delete("User") } == 2)
        #expect(try store.read { ctx in try ctx.count("User") } == 0)
    }

    @Test func rawQueryReturnsColumnNamesEvenWithoutRows() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let result = try store.read { ctx in try ctx.query("SELECT id, name AS who FROM User") }
        #expect(result.columns == ["id", "who"])
        #expect(result.rows.isEmpty)
        let sum = try store.read { ctx in try ctx.query("SELECT ? + ?", [2, 3]) }
        #expect(sum.rows.first?[0].value == .integer(5))
    }

    @Test func valuesOfEveryStorageClassRoundTrip() throws {
        let store = try Store.inMemory()
        try store.write { ctx in try ctx.execute("CREATE TABLE T (a, b, c, d, e)") }
        let values: [String: Value] = ["a": .null, "b": 42, "c": 2.5, "d": "héllo ✓", "e": .blob([0, 1, 255])]
        let created = try store.write { ctx in try ctx.create("T", values) }
        for (name, value) in values { #expect(created[name] == value) }
        let empty = try store.write { ctx in try ctx.create("T", ["d": "", "e": .blob([])]) }
        #expect(empty["d"] == "")
        #expect(empty["e"] == .blob([]))
    }

    @Test func streamingVisitsEveryRowInOrder() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE N (n INTEGER)")
            for i in 0..<1000 { try ctx.insert("N", columns: ["n"], values: [.integer(Int64(i))]) }
        }
        var seen: [Int64] = []
        let columns = try store.read { ctx in
            try ctx.stream("SELECT n FROM N ORDER BY n") { row in
                if case .integer(let n) = row.values[0] { seen.append(n) }
            }
        }
        #expect(columns == ["n"])
        #expect(seen == Array(0..<1000))
    }

    @Test func findWithLimitAndOffsetNeedsNoPredicate() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE N (n INTEGER)")
            for i in 0..<10 { try ctx.insert("N", columns: ["n"], values: [.integer(Int64(i))]) }
        }
        let rows = try store.read { ctx in try ctx.find("N", limit: 3, offset: 2) }
        #expect(rows.map { $0["n"] } == [2, 3, 4])
        #expect(try store.read { ctx in try ctx.count("N") } == 10)
    }

    @Test func unknownEntityIsATypedError() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let error = portalError { _ = try store.read { ctx in try ctx.find("Usr") } }
        #expect(error?.kind == .unknownEntity)
        #expect(error?.entity == "Usr")
        let insertError = portalError { try store.write { ctx in _ = try ctx.create("User", ["nmae": "x"]) } }
        #expect(insertError?.kind == .unknownAttribute)
        #expect(insertError?.attribute == "nmae")
    }

    /// Bulk inserts reuse one statement: mixed values bind in order, and a statement reused with
    /// other columns or more values than columns is a clear error, not a wrong row.
    @Test func repeatedInsertsBindEveryValueInOrder() throws {
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (a, b, c)")
            try ctx.insert("T", columns: ["a", "b", "c"], values: [1, "x", .null])
            try ctx.insert("T", columns: ["a", "b", "c"], values: [2.5, .blob([7]), 3])
            try ctx.insert("T", columns: ["c", "a"], values: [9, 8])
        }
        let rows = try store.read { ctx in try ctx.query("SELECT a, b, c FROM T ORDER BY rowid").rows }
        #expect(rows.map(\.values) == [[1, "x", .null], [2.5, .blob([7]), 3], [8, .null, 9]])
        let error = portalError { try store.write { ctx in try ctx.insert("T", columns: ["a"], values: [1, 2]) } }
        #expect(error != nil)
        #expect(try store.read { ctx in try ctx.count("T") } == 3)
    }

    /// Every kind of value binds at every position of a reused insert and of a prepared
    /// statement, each row's kinds unlike the last one's (integers take the binding loop's own
    /// path, the others another), and a bind refused mid-row names the database's reason.
    @Test func everyKindOfValueBindsAtEveryPosition() throws {
        let kinds: [Value] = [7, 2.5, "text", "", .blob([1, 0, 2]), .blob([]), .null, .decimal(ExactDecimal("12.50")!), -1]
        // Each row shifts the kinds by one place: every kind comes at every column.
        let rows: [[Value]] = kinds.indices.map { shift in (0..<4).map { kinds[(shift + $0) % kinds.count] } }
        let store = try Store.inMemory()
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (a, b, c, d); CREATE TABLE P (a, b, c, d)")
            for row in rows { try ctx.insert("T", columns: ["a", "b", "c", "d"], values: row) }
            let insert = try ctx.prepare("INSERT INTO P VALUES (?, ?, ?, ?)")
            for row in rows { #expect(try insert.execute(row) == 1) }
        }
        // A decimal is stored as its nearest double (SQLite has no decimal).
        let stored = rows.map { $0.map { $0.approximated } }
        for table in ["T", "P"] {
            let read = try store.read { ctx in try ctx.query("SELECT a, b, c, d FROM \(table) ORDER BY rowid").rows }
            #expect(read.map(\.values) == stored, "\(table)")
        }
        let error = portalError {
            try store.write { ctx in
                let insert = try ctx.prepare("INSERT INTO P VALUES (?, ?, ?, ?)")
                try insert.execute([1, "two", 3.0, .null, 5])
            }
        }
        #expect(error?.message.contains("column index out of range") == true, "\(String(describing: error))")
        #expect(try store.read { ctx in try ctx.count("P") } == rows.count)
    }

    /// A row refused while a bulk insert reuses its statement fails with the entity named, and
    /// the statement is left ready: the next insert of the same write goes in.
    @Test func aRefusedRowOfABulkInsertNamesItsEntity() throws {
        let store = try Store.inMemory()
        try store.write { ctx in try ctx.execute("CREATE TABLE U (a UNIQUE)") }
        try store.write { ctx in
            try ctx.insert("U", columns: ["a"], values: [1])
            let error = portalError { try ctx.insert("U", columns: ["a"], values: [1]) }
            #expect(error?.kind == .constraint(.unique))
            #expect(error?.entity == "U")
            try ctx.insert("U", columns: ["a"], values: [2])
        }
        #expect(try store.read { ctx in try ctx.count("U") } == 2)
    }
}
