import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// `ctx.prepare(sql)`: one statement run again and again with new arguments, from the
/// connection's statement cache, refused outside its context. The second way to compute is the
/// same SQL through `ctx.query`.
@Suite struct PreparedStatementTests {
    struct User: PortalEntity, Equatable {
        static let entityName = "User"
        var id: Int64
        var name: String
        var age: Int?
    }

    func store(_ folder: TemporaryFolder) throws -> Store {
        let store = try makeUserStore(in: folder)
        try store.write { ctx in
            for i in 1...50 { try ctx.execute("INSERT INTO User VALUES (?, ?, ?)", [.integer(Int64(i)), .text("u\(i)"), .integer(Int64(i % 7))]) }
        }
        return store
    }

    @Test func oneStatementRunsWithNewArgumentsAsTheSameSQLRunAfresh() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        try store.read { ctx in
            let byAge = try ctx.prepare("SELECT * FROM User WHERE age = ? ORDER BY id")
            #expect(byAge.columns == ["id", "name", "age"])
            for age in 0..<8 {
                let rows = try byAge.rows([.integer(Int64(age))])
                let afresh = try ctx.query("SELECT * FROM User WHERE age = ? ORDER BY id", [.integer(Int64(age))]).rows
                #expect(rows.map(\.values) == afresh.map(\.values))
                let ids = try byAge.fetch(User.self, [.integer(Int64(age))]).map { Value.integer($0.id) }
                #expect(ids == afresh.map { $0.values[0] })
                var streamed = 0
                try byAge.forEach([.integer(Int64(age))]) { _ in streamed += 1 }
                #expect(streamed == afresh.count)
            }
            let named = try ctx.prepare("SELECT count(*) FROM User WHERE age >= $low AND age < :high")
            #expect(try named.rows(named: ["low": .integer(2), "high": .integer(4)])[0].values
                    == ctx.query("SELECT count(*) FROM User WHERE age >= 2 AND age < 4").rows[0].values)
            let highest = try ctx.prepare("SELECT max(id) FROM User").scalar()
            #expect(highest == .integer(50))
        }
    }

    /// A run binds its own arguments only: a parameter it leaves out is NULL, whatever the run
    /// before (or another user of the cached statement) bound; a loop of prepared inserts writes
    /// what `ctx.insert` writes.
    @Test func aRunStartsFromItsOwnArguments() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let rows = try store.write { ctx in
            let insert = try ctx.prepare("INSERT INTO User (id, name, age) VALUES (?, ?, ?)")
            #expect(try insert.execute([.integer(1), .text("a"), .integer(30)]) == 1)
            #expect(try insert.execute([.integer(2), .text("b")]) == 1)
            let other = try ctx.prepare("INSERT INTO User (id, name, age) VALUES (?, ?, ?)")
            #expect(try other.execute([.integer(3), .text("c"), .integer(31)]) == 1)
            #expect(try insert.execute([.integer(4), .text("d")]) == 1)
            for id in 5...20 { try insert.execute([.integer(Int64(id)), .text("p\(id)"), .integer(Int64(id % 3))]) }
            for id in 21...36 {
                try ctx.insert("User", columns: ["id", "name", "age"], values: [.integer(Int64(id)), .text("q\(id - 16)"), .integer(Int64((id - 16) % 3))])
            }
            return try ctx.query("SELECT id, name, age FROM User ORDER BY id").rows.map(\.values)
        }
        #expect(rows.prefix(4).map { $0[2] } == [.integer(30), .null, .integer(31), .null])
        #expect(rows[4..<20].map { $0[2] } == rows[20..<36].map { $0[2] })
        #expect(rows[4..<20].map { $0[1].textValue?.dropFirst() } == rows[20..<36].map { $0[1].textValue?.dropFirst() })
    }

    @Test func theConnectionCachesTheStatement() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        try store.write { ctx in
            let first = try ctx.prepare("SELECT name FROM User WHERE id = ?")
            let again = try ctx.prepare("SELECT name FROM User WHERE id = ?")
            #expect(first.statement === again.statement)
            // Interleaved uses each start from their own arguments.
            #expect(try first.scalar([.integer(1)]) == .text("u1"))
            #expect(try again.scalar([.integer(2)]) == .text("u2"))
            #expect(try first.scalar([.integer(3)]) == .text("u3"))
        }
    }

    @Test func writesRunInAWriteAndAreRefusedInARead() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let changed = try store.write { ctx in
            let older = try ctx.prepare("UPDATE User SET age = age + 1 WHERE age = ?")
            return try older.execute([.integer(0)]) + older.execute([.integer(6)])
        }
        #expect(changed == 7 + 7)
        let newborns = try store.read { ctx in try ctx.count("User", where: "age == 0") }
        #expect(newborns == 0)
        let refused = portalError { try store.read { ctx in try ctx.prepare("DELETE FROM User") } }
        #expect(refused?.kind == .writeInRead)
        let users = try store.read { ctx in try ctx.count("User") }
        #expect(users == 50)
    }

    /// Observers hear a commit whose rows a prepared statement wrote, however many runs it made,
    /// and a later create in the same write finds the table as the statement left it.
    @Test func observersHearAPreparedWriteAndCreateFollowsIt() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let seen = Mutexed<[Int]>([])
        let token = store.observe("User") { rows in seen.mutate { $0.append(rows.count) } }
        #expect(eventually { seen.value == [50] })
        let created = try store.write { ctx in
            let insert = try ctx.prepare("INSERT INTO User (name, age) VALUES (?, ?)")
            for i in 0..<3 { try insert.execute([.text("p\(i)"), .integer(1)]) }
            let created = try ctx.create("User", ["name": "after", "age": 2])
            try insert.execute([.text("p3"), .integer(1)])
            return created
        }
        #expect(created["id"] == .integer(54))
        #expect(eventually { seen.value.last == 55 })
        withExtendedLifetime(token) {}
    }

    /// Which prepared writes change rows only (noted once): INSERT, REPLACE, UPDATE, DELETE and
    /// WITH before one, but none naming SQLite's own tables; anything else is noted at every run.
    @Test func writesThatChangeRowsOnly() {
        for sql in ["INSERT INTO t VALUES (1)", " -- c\n replace into t values (1)", "update t set a = 1", "DELETE FROM t",
                    "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x"] {
            #expect(SQLStatements.changesRowsOnly(sql), "\(sql)")
        }
        for sql in ["ALTER TABLE t ADD COLUMN b", "CREATE TABLE u (a)", "DROP TABLE t", "PRAGMA user_version = 3",
                    "UPDATE sqlite_schema SET sql = '' WHERE name = 't'", "delete from SQLITE_SEQUENCE", "VACUUM"] {
            #expect(!SQLStatements.changesRowsOnly(sql), "\(sql)")
        }
    }

    @Test func usedOutsideItsContextItThrows() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let kept = try store.read { ctx in try ctx.prepare("SELECT * FROM User WHERE id = ?") }
        let error = portalError { try kept.rows([.integer(1)]) }
        #expect(error?.kind == .misuse)
        let again = portalError { try kept.execute() }
        #expect(again?.kind == .misuse)
    }

    @Test func badSQLAndSeveralStatementsAreErrors() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        try store.read { ctx in
            // (Each closure outside #expect: closures inside a macro expansion have been seen to
            // collide with a neighbour's and run its body.)
            let unknown = portalError { try ctx.prepare("SELECT * FROM Usr") }
            #expect(unknown?.kind == .database)
            #expect(unknown?.message.contains("Usr") == true)
            let several = portalError { try ctx.prepare("SELECT 1; SELECT 2") }
            #expect(several?.kind == .misuse)
            #expect(several?.message.contains("one SQL statement") == true)
            let one = try ctx.prepare("SELECT 1 ;  \n").scalar()
            #expect(one == .integer(1))
            let missing = portalError { try ctx.prepare("SELECT $x").rows(named: [:]) }
            #expect(missing?.message.contains("$x") == true)
        }
    }

    @Test func aLoopInsideALoopGetsItsOwnStatementAndReenteringOneThrows() throws {
        let store = try Store.inMemory()
        try store.write { ctx in try ctx.execute("CREATE TABLE N (n INTEGER); INSERT INTO N VALUES (1), (2), (3)") }
        let pairs = try store.read { ctx -> [[Value]] in
            let outer = try ctx.prepare("SELECT n FROM N WHERE n >= ? ORDER BY n")
            let inner = try ctx.prepare("SELECT n FROM N WHERE n >= ? ORDER BY n")
            var pairs: [[Value]] = []
            try outer.forEach([.integer(2)]) { a in
                try inner.forEach([.integer(3)]) { b in pairs.append([a[0].value, b[0].value]) }
            }
            var reentered: PortalError?
            do {
                try outer.forEach([.integer(1)]) { _ in _ = try outer.rows([.integer(1)]) }
            } catch let error as PortalError {
                reentered = error
            }
            #expect(reentered?.kind == .misuse)
            return pairs
        }
        #expect(pairs == [[2, 3], [3, 3]])
    }

    /// A write whose connection statement is still running its rows (an INSERT … RETURNING read
    /// in a loop) runs on a statement of its own, from then on, and says what each run changed.
    @Test func anExecutionWhileTheSameTextRunsGetsItsOwnStatementAndItsCounts() throws {
        let store = try Store.inMemory()
        let sql = "INSERT INTO N VALUES (?) RETURNING n"
        let counts = try store.write { ctx -> [Int] in
            try ctx.execute("CREATE TABLE N (n INTEGER)")
            let outer = try ctx.prepare(sql)
            let inner = try ctx.prepare(sql)
            var counts: [Int] = []
            try outer.forEach([.integer(1)]) { row in
                #expect(row[0].value == .integer(1))
                counts.append(try inner.execute([.integer(2)]))
            }
            counts.append(try inner.execute([.integer(3)]))
            counts.append(try outer.execute([.integer(4)]))
            return counts
        }
        #expect(counts == [1, 1, 1])
        let stored = try store.read { ctx in try ctx.query("SELECT n FROM N ORDER BY n").rows.map { $0[0].value } }
        #expect(stored == [.integer(1), .integer(2), .integer(3), .integer(4)])
    }

    /// Every run binds its arguments afresh: a run with fewer arguments than parameters leaves
    /// the rest NULL, not the values of the run before.
    @Test func anExecutionWithFewerArgumentsBindsTheRestAsNull() throws {
        let store = try Store.inMemory()
        let rows = try store.write { ctx -> [[Value]] in
            try ctx.execute("CREATE TABLE P (a INTEGER, b INTEGER)")
            let insert = try ctx.prepare("INSERT INTO P VALUES (?, ?)")
            try insert.execute([.integer(1), .integer(2)])
            try insert.execute([.integer(3)])
            try insert.execute([.integer(5), .integer(6)])
            return try ctx.query("SELECT a, b FROM P ORDER BY a").rows.map(\.values)
        }
        #expect(rows == [[.integer(1), .integer(2)], [.integer(3), .null], [.integer(5), .integer(6)]])
    }
}
