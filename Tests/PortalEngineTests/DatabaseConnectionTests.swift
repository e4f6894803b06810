import Testing
import PortalPredicate
@testable import PortalEngine
@testable import PortalSQLite

/// The connection protocol, driven generically (as the engine's other backends will be) on
/// SQLite's connection: transactions, savepoints, changes, last id, statements.
@Suite struct DatabaseConnectionTests {
    /// Inserts `values` through the protocol alone and returns the ids.
    private func insert(_ values: [String], on connection: some DatabaseConnection) throws -> [Int64] {
        var ids: [Int64] = []
        let statement = try connection.prepare("INSERT INTO T (name) VALUES (?)")
        for value in values {
            try statement.bind([.text(value)])
            while try statement.step() {}
            statement.reset()
            #expect(connection.changes == 1)
            ids.append(connection.lastInsertRowid)
        }
        return ids
    }

    private func names(on connection: some DatabaseConnection) throws -> [Value] {
        let statement = try connection.prepare("SELECT name FROM T ORDER BY id")
        defer { statement.reset() }
        #expect(statement.columnCount == 1 && statement.columnName(0) == "name")
        var names: [Value] = []
        while try statement.step() { names.append(statement.value(at: 0)) }
        return names
    }

    @Test func transactionsAndSavepointsThroughTheProtocol() throws {
        let connection = try Connection(path: ":memory:", readOnly: false, create: true)
        try connection.execute("CREATE TABLE T (id INTEGER PRIMARY KEY, name TEXT)")
        try connection.begin(.immediate)
        #expect(connection.isInTransaction)
        #expect(try insert(["a", "b"], on: connection) == [1, 2])
        try connection.savepoint("inner")
        _ = try insert(["c"], on: connection)
        try connection.rollback(toSavepoint: "inner")
        try connection.release(savepoint: "inner")
        try connection.commit()
        #expect(!connection.isInTransaction)
        #expect(try names(on: connection) == ["a", "b"])
        try connection.begin(.deferred)
        _ = try insert(["d"], on: connection)
        try connection.rollback()
        #expect(try names(on: connection) == ["a", "b"])
    }

    /// A run of `InsertField`s reads the text where it is while the statement runs: the row
    /// stored keeps it after the caller's buffer changes, and no binding is left pointing into
    /// the buffer once the run is over (running the statement again inserts NULLs).
    @Test func fieldTextIsReadInPlaceAndNoBindingOutlivesTheRun() throws {
        let connection = try Connection(path: ":memory:", readOnly: false, create: true)
        try connection.execute("CREATE TABLE T (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        let statement = try connection.prepare("INSERT INTO T (name, score) VALUES (?, ?)")
        var buffer = Array("Zürich12.5".utf8)
        try buffer.withUnsafeBufferPointer { bytes in
            try statement.runToEnd(binding: [.text(UnsafeBufferPointer(rebasing: bytes[..<7])),
                                             .text(UnsafeBufferPointer(rebasing: bytes[7...]))])
        }
        for index in buffer.indices { buffer[index] = UInt8(ascii: "x") }
        while try statement.step() {}
        statement.reset()
        let rows = try connection.prepare("SELECT name, score FROM T ORDER BY id")
        defer { rows.reset() }
        var stored: [[Value]] = []
        while try rows.step() { stored.append([rows.value(at: 0), rows.value(at: 1)]) }
        #expect(stored == [[.text("Zürich"), .real(12.5)], [.null, .null]])
    }
}
