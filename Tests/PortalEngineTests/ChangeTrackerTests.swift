import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The writer's row-change reports: SQLite's update and rollback hooks call the store's
/// `ChangeTracker` directly, for every row written and every rollback.
@Suite struct ChangeTrackerTests {
    private func writer(_ folder: TemporaryFolder) throws -> any DatabaseConnection {
        let backend = try SQLiteBackend(path: folder.path("tracked.sqlite"))
        let connection = try backend.connect(readOnly: false)
        try connection.execute("CREATE TABLE Item (n INTEGER); CREATE TABLE Other (n INTEGER)")
        return connection
    }

    @Test func theRowsOfACommittedWriteNameTheirTables() throws {
        let folder = try TemporaryFolder()
        let connection = try writer(folder)
        defer { connection.close() }
        let tracker = ChangeTracker()
        try #require(connection as? any LocalDatabaseConnection).observeChanges(tracker)
        tracker.begin()
        try connection.begin(.immediate)
        try connection.run("INSERT INTO Item VALUES (1), (2)")
        try connection.run("INSERT INTO \"Other\" VALUES (3)")
        try connection.run("INSERT INTO Item VALUES (4)")
        try connection.commit()
        let changes = tracker.take()
        #expect(changes.entities == ["item", "other"])
        #expect(!changes.unknown)
        // Taken: the next transaction starts from nothing.
        #expect(tracker.take().isEmpty)
    }

    @Test func aRollbackForgetsWhatTheTransactionWrote() throws {
        let folder = try TemporaryFolder()
        let connection = try writer(folder)
        defer { connection.close() }
        let tracker = ChangeTracker()
        try #require(connection as? any LocalDatabaseConnection).observeChanges(tracker)
        tracker.begin()
        try connection.begin(.immediate)
        try connection.run("INSERT INTO Item VALUES (1)")
        try connection.rollback()
        #expect(tracker.take().isEmpty)
        // The same table written after the rollback is reported again (the name is not
        // remembered across the rollback).
        try connection.begin(.immediate)
        try connection.run("INSERT INTO Item VALUES (2)")
        try connection.commit()
        #expect(tracker.take().entities == ["item"])
    }

    @Test func observersHearInsertsByColumnsAndNotARolledBackWrite() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let seen = Mutexed<[Int]>([])
        let token = store.observe("User") { rows in seen.mutate { $0.append(rows.count) } }
        #expect(eventually { seen.value == [0] })
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.write { ctx in
                try ctx.insert("User", columns: ["name", "age"], values: [.text("gone"), .integer(1)])
                throw Refused()
            }
        }
        try store.write { ctx in
            for i in 0..<3 { try ctx.insert("User", columns: ["name", "age"], values: [.text("u\(i)"), .integer(1)]) }
        }
        #expect(eventually { seen.value.last == 3 })
        #expect(!seen.value.contains(1))
        withExtendedLifetime(token) {}
    }
}
