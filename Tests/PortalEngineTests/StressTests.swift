import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// 8 threads transfer money between accounts and read the books at once (run under
/// ThreadSanitizer by `make test`): every read sees the same total, and no write is lost.
@Suite struct StressTests {
    static let accounts = 16
    static let initialBalance: Int64 = 1000
    static let threads = 8
    static let operationsPerThread = 60

    @Test func concurrentTransfersKeepTheTotalAndLoseNothing() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("bank.sqlite"))
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE Account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
                CREATE TABLE Ledger (id INTEGER PRIMARY KEY, thread INTEGER, source INTEGER, target INTEGER, amount INTEGER);
                """)
            for id in 1...Self.accounts {
                try ctx.create("Account", ["id": .integer(Int64(id)), "balance": .integer(Self.initialBalance)])
            }
        }
        let total = Int64(Self.accounts) * Self.initialBalance
        let badReads = Mutexed<[Int64]>([])
        let failures = Mutexed<[String]>([])
        let committed = Mutexed(0)
        let group = DispatchGroup()
        for thread in 0..<Self.threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var random = SeededRandom(seed: UInt64(thread + 1))
                for step in 0..<Self.operationsPerThread {
                    do {
                        if step % 2 == 0 {
                            try Self.transfer(store, thread: thread, random: &random)
                            committed.mutate { $0 += 1 }
                        } else {
                            let seen = try Self.readTotal(store)
                            if seen != total { badReads.mutate { $0.append(seen) } }
                        }
                    } catch {
                        failures.mutate { $0.append("\(error)") }
                    }
                }
            }
        }
        group.wait()
        #expect(failures.value == [])
        #expect(badReads.value == [])
        #expect(try Self.readTotal(store) == total)
        #expect(try store.read { ctx in try ctx.count("Ledger") } == committed.value)
        #expect(committed.value == Self.threads * Self.operationsPerThread / 2)
    }

    /// Moves a random amount between two random accounts, through a nested write for the
    /// ledger entry, sometimes through the typed portal.
    static func transfer(_ store: Store, thread: Int, random: inout SeededRandom) throws {
        let source = Int64(random.next() % UInt64(accounts)) + 1
        let target = (source % Int64(accounts)) + 1
        let amount = Int64(random.next() % 50) + 1
        try store.write { ctx in
            try ctx.update("Account", set: ["balance": .integer(try balance(ctx, source) - amount)], where: "id == %@", [source])
            try ctx.update("Account", set: ["balance": .integer(try balance(ctx, target) + amount)], where: "id == %@", [target])
            try store.write { inner in
                try inner.create("Ledger", ["thread": .integer(Int64(thread)), "source": .integer(source),
                                            "target": .integer(target), "amount": .integer(amount)])
            }
        }
    }

    static func balance(_ ctx: ReadContext, _ id: Int64) throws -> Int64 {
        guard case .integer(let balance)? = try ctx.first("Account", where: "id == %@", [id])?["balance"] else {
            throw PortalError(.rowNotFound, "no account \(id)")
        }
        return balance
    }

    /// The total, summed row by row over two queries of one read (both must agree).
    static func readTotal(_ store: Store) throws -> Int64 {
        try store.read { ctx in
            let rows = try ctx.find("Account")
            let sum = rows.reduce(Int64(0)) { total, row in
                if case .integer(let b)? = row["balance"] { return total + b }
                return total
            }
            guard case .integer(let aggregate)? = try ctx.query("SELECT sum(balance) FROM Account").rows.first?.values.first,
                  aggregate == sum else { return -1 }
            return sum
        }
    }
}
