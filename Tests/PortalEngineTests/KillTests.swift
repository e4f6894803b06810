import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// A process killed with SIGKILL in the middle of a write leaves the database intact, with that
/// write wholly absent. The child is `portal-bench --kill-test-writer PATH` (a hidden mode of the
/// benchmark binary, built by `swift build`/`swift test`): it loops over transfers that pause
/// mid-transaction and prints each committed sequence number.
@Suite struct KillTests {
    static var portalBench: String {
        if let path = ProcessInfo.processInfo.environment["PORTAL_BENCH_BIN"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/portal-bench").path
    }

    @Test func aWriterKilledMidTransactionLosesOnlyThatTransaction() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.portalBench),
                     "build portal-bench first (swift build): \(Self.portalBench)")
        let folder = try TemporaryFolder()
        let path = folder.path("bank.sqlite")
        do {
            let store = try Store(path: path)
            try store.write { ctx in
                try ctx.execute("""
                    CREATE TABLE Account (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
                    CREATE TABLE Ledger (id INTEGER PRIMARY KEY);
                    """)
                for id in 1...10 { try ctx.create("Account", ["id": .integer(Int64(id)), "balance": 100]) }
            }
            try store.close()
        }

        let child = Process()
        child.executableURL = URL(fileURLWithPath: Self.portalBench)
        child.arguments = ["--kill-test-writer", path]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        // Wait for some committed transfers, then kill the child mid-write.
        var text = ""
        let reader = output.fileHandleForReading
        while text.split(separator: "\n").count < 30 {
            let data = reader.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        #expect(child.terminationReason == .uncaughtSignal)
        let reported = text.split(separator: "\n").compactMap { Int($0) }
        let lastReported = try #require(reported.last)
        #expect(reported == Array(1...lastReported))

        let store = try Store(path: path)
        let check = try store.read { ctx in try ctx.query("PRAGMA integrity_check").rows.first?.values.first }
        #expect(check == "ok")
        let total = try store.read { ctx in try ctx.query("SELECT sum(balance) FROM Account").rows.first?.values.first }
        #expect(total == 1000)
        let ledger = try store.read { ctx in try ctx.query("SELECT count(*), max(id) FROM Ledger").rows.first?.values }
        guard case .integer(let count)? = ledger?.first, case .integer(let maximum)? = ledger?.last else {
            Issue.record("no ledger")
            return
        }
        // Every reported commit is there; at most one more (committed, killed before printing).
        #expect(count == maximum)
        #expect(count >= Int64(lastReported) && count <= Int64(lastReported) + 1)
    }
}
