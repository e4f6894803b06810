import class Foundation.FileManager
import struct Foundation.URL
import struct Foundation.UUID
import Testing
@testable import PortalShell
import PortalEngine
import PortalTUI

/// A command's failure is one `ShellError`: the engine's error it reports kept whole (its kind,
/// the database's code, the predicate error), and where — a range of the command, or a line of
/// the file being imported — with the exit status its reason gives.
@Suite struct ErrorWrappingTests {
    /// A session on a new file with one table, and the folder to remove.
    private func session() throws -> (ShellDatabase, Executor, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = try ShellDatabase(path: folder.appendingPathComponent("genres.sqlite").path, readOnly: false,
                                         create: true, busyTimeout: 1000)
        let executor = Executor(database: database, options: OutputOptions(format: .csv, header: false),
                                standardOutput: OutputStream(), errors: OutputStream(), busyTimeout: 1000)
        #expect(executor.run("sql CREATE TABLE Genre (GenreId INTEGER PRIMARY KEY, Name TEXT NOT NULL)"))
        return (database, executor, folder)
    }

    /// Where `word` starts in `text`, as a range of characters.
    private func range(of word: String, in text: String) -> Range<Int>? {
        guard let found = text.range(of: word) else { return nil }
        let start = text.distance(from: text.startIndex, to: found.lowerBound)
        return start..<(start + word.count)
    }

    /// The failure of `command`, which must fail.
    private func failure(_ command: String, in executor: Executor) throws -> ShellError {
        #expect(!executor.run(command))
        return try #require(executor.lastError)
    }

    @Test func aConstraintErrorKeepsItsCodeAndPointsAtTheAttribute() throws {
        let (database, executor, folder) = try session()
        defer { database.close(); try? FileManager.default.removeItem(at: folder) }
        let command = "create Genre set GenreId = 1, Name = nil"
        let error = try failure(command, in: executor)
        #expect(error.cause?.kind == .constraint(.notNull))
        #expect(error.cause?.sqliteCode == SQLiteCode.constraintNotNull)
        #expect(error.range == range(of: "Name", in: command))
        #expect(error.reason.exitStatus == ExitStatus.commandFailed)
    }

    @Test func aPredicateErrorKeepsTheEngineErrorAndItsPlace() throws {
        let (database, executor, folder) = try session()
        defer { database.close(); try? FileManager.default.removeItem(at: folder) }
        let command = "find Genre where GenreId == 1 AND Nmae == 'x'"
        let error = try failure(command, in: executor)
        #expect(error.range == range(of: "Nmae", in: command))
        #expect(error.cause?.kind == .predicate)
        #expect(error.predicateError?.kind == .unknownName)
        #expect(error.message == error.predicateError?.description)
    }

    @Test func anAssignedValuesErrorKeepsTheEngineErrorAndItsPlace() throws {
        let (database, executor, folder) = try session()
        defer { database.close(); try? FileManager.default.removeItem(at: folder) }
        let command = "update Genre set Name = Nmae + 'x' where GenreId == 1"
        let error = try failure(command, in: executor)
        #expect(error.range == range(of: "Nmae", in: command))
        #expect(error.predicateError?.kind == .unknownName)
    }

    @Test func aSelectionErrorSaysWhichPartAndWhere() throws {
        let (database, executor, folder) = try session()
        defer { database.close(); try? FileManager.default.removeItem(at: folder) }
        let command = "find Genre select GenreId, Nmae"
        let error = try failure(command, in: executor)
        #expect(error.range == range(of: "Nmae", in: command))
        #expect(error.cause?.selectionPart == .item(1))
        #expect(error.predicateError?.kind == .unknownName)
    }

    @Test func aParseErrorIsAShellErrorWithItsRange() throws {
        let (database, executor, folder) = try session()
        defer { database.close(); try? FileManager.default.removeItem(at: folder) }
        let error = try failure("find Genre junk", in: executor)
        #expect(error == ShellError("unexpected 'junk'", 11..<15))
    }

    @Test func anImportErrorSaysItsLine() throws {
        let (database, executor, folder) = try session()
        defer { database.close(); try? FileManager.default.removeItem(at: folder) }
        let csv = folder.appendingPathComponent("genres.csv")
        try "GenreId,Name\n1,Pop\n2\n".write(to: csv, atomically: true, encoding: .utf8)
        let error = try failure("import Genre from \(csv.path)", in: executor)
        #expect(error.line == 3)
        #expect(error.message == "\(csv.path), line 3: 1 field, but the header names 2; nothing was imported")
    }

    /// A record the database refuses: the engine's error, with its code, at the record's line.
    @Test func anImportedRecordsConstraintErrorKeepsItsCodeAndLine() throws {
        let (database, executor, folder) = try session()
        defer { database.close(); try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("genres.ndjson")
        try "{\"GenreId\": 1, \"Name\": \"Pop\"}\n{\"GenreId\": 2, \"Name\": null}\n".write(to: json, atomically: true, encoding: .utf8)
        let error = try failure("import Genre from \(json.path)", in: executor)
        #expect(error.line == 2)
        #expect(error.cause?.sqliteCode == SQLiteCode.constraintNotNull)
        #expect(error.message == "\(json.path), line 2: Genre: NOT NULL constraint failed: Genre.Name; nothing was imported")
        let header = folder.appendingPathComponent("header.csv")
        try "GenreId,Nmae\n1,Pop\n".write(to: header, atomically: true, encoding: .utf8)
        let unknown = try failure("import Genre from \(header.path)", in: executor)
        #expect(unknown.line == 1)
        #expect(unknown.message == "\(header.path), line 1: unknown attribute 'Nmae' on Genre (did you mean 'Name'?); nothing was imported")
    }

    /// On PostgreSQL the same: the server's SQLSTATE kept, the caret under the attribute, the
    /// server's detail under the message. Needs the test server (`PGHOST`), as `make test` starts.
    @Test func aServerConstraintErrorKeepsItsSQLStateAndPointsAtTheAttribute() throws {
        let database = try ShellDatabase(path: "postgresql:///postgres", readOnly: false, create: false, busyTimeout: 1000)
        defer { database.close() }
        let executor = Executor(database: database, options: OutputOptions(format: .csv, header: false),
                                standardOutput: OutputStream(), errors: OutputStream(), busyTimeout: 1000)
        let table = "wrapped_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        #expect(executor.run("sql CREATE TABLE \(table) (id int PRIMARY KEY, name text NOT NULL)"))
        defer { _ = executor.run("sql DROP TABLE \(table)") }
        let command = "create \(table) set id = 1, name = nil"
        let error = try failure(command, in: executor)
        #expect(error.cause?.kind == .constraint(.notNull))
        #expect(error.cause?.sqlState == SQLState.notNullViolation)
        #expect(error.range == range(of: "name", in: command))
        #expect(error.notes.first?.hasPrefix("detail: ") == true)
    }

    /// A file that is not a database: exit status 3, and the engine's error (SQLite's code) kept.
    @Test func aFileThatCannotBeOpenedKeepsTheEngineError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("notes.sqlite").path
        try String(repeating: "not a database; ", count: 64).write(toFile: path, atomically: true, encoding: .utf8)
        do {
            let database = try ShellDatabase(path: path, readOnly: false, create: false, busyTimeout: 100)
            database.close()
            Issue.record("opened a file that is not a database")
        } catch {
            #expect(error.reason == .cannotOpen && error.reason.exitStatus == ExitStatus.cannotOpen)
            #expect(error.cause?.kind == .notADatabase)
            #expect(error.cause?.sqliteCode == 26)   // SQLITE_NOTADB
            #expect(error.message.hasPrefix("cannot open '\(path)': "))
        }
    }

    /// The browser's error, reported by the shell, keeps its place: the filter's range shifted
    /// to where the filter starts in the command.
    @Test func aBrowserErrorKeepsItsRangeInTheCommand() {
        let cause = PortalError(wrapping: PortalPredicateError(.unknownName, "no attribute named 'Nmae'"))
        let error = ShellError.from(BrowserError("invalid filter: no attribute named 'Nmae'", range: 0..<4, cause: cause),
                                    predicateOffset: 19)
        #expect(error.range == 19..<23 && error.cause == cause)
        #expect(error.report(command: "browse Track where Nmae == 1") == """
            error: invalid filter: no attribute named 'Nmae'
              browse Track where Nmae == 1
                                 ^~~~

            """)
    }
}
