import class Foundation.NSCondition
import class Foundation.FileManager
import struct Foundation.Date
import struct Foundation.URL
import struct Foundation.UUID
import Testing
@testable import PortalShell
import PortalEngine

/// The shell's writes go through its engine store's write context: an observer of the store
/// (which hears of a commit from the write context that made it) sees each one, and the user's
/// `begin … commit` is the store's explicit transaction.
@Suite struct WriteContextTests {
    /// The row counts an observer was called with, and a way to wait for a given one.
    final class Seen: @unchecked Sendable {
        private let condition = NSCondition()
        private var counts: [Int] = []

        func add(_ count: Int) {
            condition.lock()
            counts.append(count)
            condition.broadcast()
            condition.unlock()
        }

        /// True once `count` was seen (false after 20 s without it: a hang, not a timing claim).
        func wait(for count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            condition.lock()
            defer { condition.unlock() }
            while !counts.contains(count) {
                if !condition.wait(until: deadline) { return counts.contains(count) }
            }
            return true
        }
    }

    private func session(in folder: URL) throws -> (ShellDatabase, Executor, OutputStream) {
        let path = folder.appendingPathComponent("genres.sqlite").path
        let database = try ShellDatabase(path: path, readOnly: false, create: true, busyTimeout: 1000)
        let errors = OutputStream()
        let executor = Executor(database: database, options: OutputOptions(format: .csv, header: false),
                                standardOutput: OutputStream(), errors: errors, busyTimeout: 1000)
        return (database, executor, errors)
    }

    @Test func anObserverOfTheSessionsStoreSeesEachShellWrite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (database, executor, errors) = try session(in: folder)
        defer { database.close() }
        #expect(executor.run("sql CREATE TABLE Genre (GenreId INTEGER PRIMARY KEY, Name TEXT NOT NULL)"))

        let seen = Seen()
        let token = database.store.observe("Genre") { rows in seen.add(rows.count) }
        defer { token.cancel() }
        #expect(seen.wait(for: 0))

        #expect(executor.run("create Genre set Name = 'Rock'"))
        #expect(seen.wait(for: 1))

        #expect(executor.run("begin"))
        #expect(database.store.isInTransaction)
        #expect(executor.run("create Genre set Name = 'Jazz'; update Genre set Name = 'Blues' where Name == 'Rock'"))
        #expect(executor.run("commit"))
        #expect(!database.store.isInTransaction)
        #expect(seen.wait(for: 2))

        #expect(executor.run("sql INSERT INTO Genre (Name) VALUES ('a'), ('b')"))
        #expect(seen.wait(for: 4))
        #expect(executor.run("delete Genre where Name == 'Jazz'"))
        #expect(seen.wait(for: 3))
        let csv = folder.appendingPathComponent("more.csv")
        try "Name\nPop\nFolk\n".write(to: csv, atomically: true, encoding: .utf8)
        #expect(executor.run("import Genre from \(csv.path)"))
        #expect(seen.wait(for: 5))
        #expect(try database.store.read { try $0.count("Genre", where: "Name == 'Blues'") } == 1)
        #expect(!errors.text.contains("error"))
    }
}
