import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// Streaming refills one row storage whenever the caller kept no reference to the last row. Rows
/// handed to other threads (and dropped there, at any moment) must never see it refilled: run
/// under ThreadSanitizer by `make test`.
@Suite struct StreamStressTests {
    @Test func streamedRowsHandedToOtherThreadsKeepTheirValues() throws {
        let store = try Store.inMemory()
        let count = 2000
        try store.write { ctx in
            try ctx.execute("CREATE TABLE T (a INTEGER, b TEXT)")
            for i in 0..<count { try ctx.insert("T", columns: ["a", "b"], values: [.integer(Int64(i)), .text("row \(i)")]) }
        }
        let mismatches = Mutexed(0)
        let checked = Mutexed(0)
        let group = DispatchGroup()
        let queue = DispatchQueue(label: "stream-stress", attributes: .concurrent)
        try store.read { ctx in
            try ctx.forEach("T", sortedBy: [SortKey("a")]) { row in
                guard case .integer(let a)? = row["a"] else { return }
                // Every other row escapes to another thread; the rest are dropped at once.
                guard a % 2 == 0 else { return }
                queue.async(group: group) {
                    usleep(UInt32(a % 3))
                    if row.values != [.integer(a), .text("row \(a)")] { mismatches.mutate { $0 += 1 } }
                    checked.mutate { $0 += 1 }
                }
            }
        }
        group.wait()
        #expect(checked.value == count / 2)
        #expect(mismatches.value == 0)
    }
}
