import Foundation
import PortalEngine
import PortalSQLite

// The child process of PortalEngineTests' kill-9 test (`portal-bench --kill-test-writer PATH`),
// not a benchmark: it transfers between the accounts of PATH in an endless loop, pausing in the
// middle of each write so that a SIGKILL most likely lands inside a transaction, and prints the
// sequence number of each committed transfer.
func runKillTestWriterIfAsked() {
    let arguments = CommandLine.arguments
    guard let flag = arguments.firstIndex(of: "--kill-test-writer"), flag + 1 < arguments.count else { return }
    do {
        let store = try Store(path: arguments[flag + 1], options: StoreOptions(create: false))
        var sequence = try store.read { ctx in try ctx.count("Ledger") }
        while true {
            sequence += 1
            let number = sequence
            try store.write { ctx in
                let from = Int64(number % 10) + 1
                let to = Int64((number + 3) % 10) + 1
                try ctx.execute("UPDATE Account SET balance = balance - 7 WHERE id = ?", [.integer(from)])
                usleep(2000)   // the middle of the transaction
                try ctx.execute("UPDATE Account SET balance = balance + 7 WHERE id = ?", [.integer(to)])
                try ctx.create("Ledger", ["id": .integer(Int64(number))])
            }
            print(number)
            fflush(nil)
        }
    } catch {
        FileHandle.standardError.write(Data("kill-test writer: \(error)\n".utf8))
        exit(1)
    }
}
