import CSQLite
import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// Waits (up to a generous limit, so a loaded machine does not fail the test) until `condition` holds.
func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}

@Suite struct ObservationTests {
    @Test func observersSeeThisStoresCommits() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let seen = Mutexed<[[Value?]]>([])
        let token = store.observe("User") { rows in seen.mutate { $0.append(rows.map { $0["name"] }) } }
        #expect(eventually { seen.value == [[]] })   // the initial result
        try store.write { ctx in try ctx.create("User", ["name": "A"]) }
        #expect(eventually { seen.value.last == ["A"] })
        // A commit that touches the entity is reported even when the result looks the same.
        try store.write { ctx in try ctx.update("User", set: ["name": "A"]) }
        #expect(eventually { seen.value.count == 3 })
        // A rolled-back write is not.
        _ = portalError { try store.write { ctx in try ctx.create("User", ["name": "B"]); try ctx.create("User", ["name": "B"]) } }
        try store.write { ctx in try ctx.create("User", ["name": "C"]) }
        #expect(eventually { seen.value.last == ["A", "C"] })
        #expect(!seen.value.contains { $0.contains("B") })
        token.cancel()
        let count = seen.value.count
        try store.write { ctx in try ctx.create("User", ["name": "D"]) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(seen.value.count == count)
    }

    @Test func filteredObservation() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let seen = Mutexed<[[Value?]]>([])
        let token = store.observe("User", where: "age > %@", [30]) { rows in seen.mutate { $0.append(rows.map { $0["name"] }) } }
        try store.write { ctx in
            try ctx.create("User", ["name": "young", "age": 20])
            try ctx.create("User", ["name": "old", "age": 40])
        }
        #expect(eventually { seen.value.last == ["old"] })
        withExtendedLifetime(token) {}
    }

    @Test func observersSeeAnotherConnectionsCommits() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let seen = Mutexed<[[Value?]]>([])
        let token = store.observe("User") { rows in seen.mutate { $0.append(rows.map { $0["name"] }) } }
        #expect(eventually { seen.value == [[]] })
        // A plain SQLite connection, as another process would have: only PRAGMA data_version tells.
        var db: OpaquePointer?
        #expect(sqlite3_open(folder.path("users.sqlite"), &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "INSERT INTO User (name) VALUES ('outsider')", nil, nil, nil) == SQLITE_OK)
        #expect(eventually { seen.value.last == ["outsider"] })
        withExtendedLifetime(token) {}
    }

    @Test func observersSeeAnotherProcesssCommits() throws {
        let sqlite3 = "/usr/bin/sqlite3"
        try #require(FileManager.default.isExecutableFile(atPath: sqlite3), "the sqlite3 shell is needed (make deps)")
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let seen = Mutexed<[[Value?]]>([])
        let token = store.observe("User") { rows in seen.mutate { $0.append(rows.map { $0["name"] }) } }
        #expect(eventually { seen.value == [[]] })
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sqlite3)
        process.arguments = [folder.path("users.sqlite"), "INSERT INTO User (name) VALUES ('process')"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(eventually { seen.value.last == ["process"] })
        withExtendedLifetime(token) {}
    }

    @Test func releasingTheTokenStopsTheObservation() throws {
        let store = try Store.inMemory()
        try store.write { ctx in try ctx.execute("CREATE TABLE T (a)") }
        let calls = Mutexed(0)
        var token: ObservationToken? = store.observe("T") { _ in calls.mutate { $0 += 1 } }
        #expect(eventually { calls.value == 1 })
        #expect(token != nil)
        token = nil
        try store.write { ctx in try ctx.create("T", ["a": 1]) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(calls.value == 1)
    }

    @Test func theAsyncSequenceForm() async throws {
        let store = try Store.inMemory()
        try await store.write { ctx in try ctx.execute("CREATE TABLE T (a)") }
        var iterator = store.observe("T").makeAsyncIterator()
        #expect(try await iterator.next()?.count == 0)
        try await store.write { ctx in try ctx.create("T", ["a": 1]) }
        #expect(try await iterator.next()?.count == 1)
    }

    @Test func aFailingQueryReportsItsError() throws {
        let store = try Store.inMemory()
        let failure = Mutexed<PortalError?>(nil)
        let token = store.observe("Nothing", onError: { error in failure.set(error as? PortalError) }) { _ in }
        #expect(eventually { failure.value != nil })
        #expect(failure.value?.kind == .unknownEntity)
        withExtendedLifetime(token) {}
    }
}
