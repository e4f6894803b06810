import CSQLite
import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// Each failure is a clear typed error, with nothing half-written.
@Suite struct FailureTests {
    private func snapshot(_ path: String) throws -> (Data, Date?) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        return (data, date)
    }

    @Test func aReadOnlyStoreRefusesEveryWriteAndLeavesTheFileUnchanged() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("chinook.sqlite")
        try FileManager.default.copyItem(atPath: chinookPath, toPath: path)
        let before = try snapshot(path)
        let store = try Store(path: path, options: StoreOptions(readOnly: true, create: false, busyTimeout: 100))
        #expect(try store.read { ctx in try ctx.count("Track") } == 3503)
        #expect(try store.read { ctx in try ctx.count("Track", where: "Milliseconds > %@", [300_000]) } > 0)
        #expect(portalError { try store.write { ctx in try ctx.execute("DELETE FROM Track") } }?.kind == .readOnly)
        #expect(portalError { _ = try store.read { ctx in try ctx.query("DELETE FROM Track") } }?.kind == .writeInRead)
        #expect(portalError { try store.beginTransaction() }?.kind == .readOnly)
        var migrator = Migrator()
        migrator.register("v1") { ctx in try ctx.execute("CREATE TABLE X (a)") }
        #expect(portalError { try migrator.migrate(store) }?.kind == .readOnly)
        #expect(portalError { try Portal<User>(store).create([User(id: 1, name: "x", age: nil)]) }?.kind == .readOnly)
        try store.close()
        let after = try snapshot(path)
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// A store opened read-only, a connection SQLite keeps read-only (`PRAGMA query_only`), a
    /// write run in a read and a view each refuse with their own kind and words.
    @Test func readOnlyStoresWritesInAReadAndViewsAreToldApart() throws {
        let folder = try TemporaryFolder()
        let writable = try makeUserStore(in: folder)
        _ = try writable.write { ctx in try ctx.execute("CREATE VIEW Adults AS SELECT * FROM User WHERE age >= 18") }
        let readOnly = try Store(path: folder.path("users.sqlite"), options: StoreOptions(readOnly: true))
        let option = portalError { try readOnly.write { ctx in try ctx.create("User", ["name": "A"]) } }
        #expect(option?.kind == .readOnly && option?.message == "the store is read-only: writes are refused")
        let inRead = portalError { _ = try writable.read { ctx in try ctx.query("DELETE FROM User") } }
        #expect(inRead?.kind == .writeInRead && inRead?.message == "a read cannot change the database; use a write")
        let view = portalError { try writable.write { ctx in try ctx.create("Adults", ["name": "A"]) } }
        #expect(view?.kind == .notWritable && view?.message == "Adults is a view: it cannot be changed")
        let queryOnly = portalError {
            try writable.write { ctx in
                _ = try ctx.execute("PRAGMA query_only = 1")
                defer { _ = try? ctx.execute("PRAGMA query_only = 0") }
                try ctx.create("User", ["name": "A"])
            }
        }
        #expect(queryOnly?.kind == .readOnly && queryOnly?.sqliteCode == SQLiteCode.readOnly
                && queryOnly?.code == .sqlite(SQLiteCode.readOnly), "\(String(describing: queryOnly))")
        #expect(queryOnly?.message == "the database is read-only (attempt to write a readonly database)")
        try readOnly.close()
        try writable.close()
    }

    /// The named SQLite codes are sqlite3.h's.
    @Test func namedSQLiteCodesAreSQLitesOwn() {
        #expect(SQLiteCode.readOnly == SQLITE_READONLY && SQLiteCode.readOnlyRollback == PORTAL_SQLITE_READONLY_ROLLBACK)
        #expect(SQLiteCode.constraintNotNull == PORTAL_SQLITE_CONSTRAINT_NOTNULL
                && SQLiteCode.constraintUnique == PORTAL_SQLITE_CONSTRAINT_UNIQUE
                && SQLiteCode.constraintPrimaryKey == PORTAL_SQLITE_CONSTRAINT_PRIMARYKEY
                && SQLiteCode.constraintForeignKey == PORTAL_SQLITE_CONSTRAINT_FOREIGNKEY
                && SQLiteCode.constraintCheck == PORTAL_SQLITE_CONSTRAINT_CHECK)
    }

    @Test func aReadOnlyStoreOpensAWALDatabaseWhileAWriterWorks() throws {
        let folder = try TemporaryFolder()
        let writer = try makeUserStore(in: folder)
        try writer.write { ctx in try ctx.create("User", ["name": "A"]) }
        let reader = try Store(path: folder.path("users.sqlite"), options: StoreOptions(readOnly: true))
        #expect(try reader.read { ctx in try ctx.count("User") } == 1)
        try writer.write { ctx in try ctx.create("User", ["name": "B"]) }
        #expect(try reader.read { ctx in try ctx.count("User") } == 2)
        #expect(portalError { try reader.write { ctx in try ctx.create("User", ["name": "C"]) } }?.kind == .readOnly)
        try reader.close()
        try writer.close()
    }

    @Test func aMissingFileIsNotCreatedUnlessAsked() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("missing.sqlite")
        let error = portalError { _ = try Store(path: path, options: StoreOptions(create: false)) }
        #expect(error?.kind == .fileNotFound)
        #expect(error?.path == path)
        #expect(portalError { _ = try Store(path: path, options: StoreOptions(readOnly: true)) }?.kind == .fileNotFound)
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = try Store(path: path, options: StoreOptions(create: true))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("notes.txt")
        let text = Data(String(repeating: "just some text, not a database\n", count: 100).utf8)
        try text.write(to: URL(fileURLWithPath: path))
        let error = portalError { _ = try Store(path: path) }
        #expect(error?.kind == .notADatabase)
        #expect(error?.description.contains(path) == true)
        #expect(portalError { _ = try Store(path: path, options: StoreOptions(readOnly: true)) }?.kind == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == text)
    }

    @Test func aLockHeldPastTheTimeoutIsBusy() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let holder = try Store(path: folder.path("users.sqlite"))
        let impatient = try Store(path: folder.path("users.sqlite"), options: StoreOptions(busyTimeout: 50))
        try holder.beginTransaction()   // BEGIN IMMEDIATE: holds the write lock
        try holder.write { ctx in try ctx.create("User", ["name": "holder"]) }
        let error = portalError { try impatient.write { ctx in try ctx.create("User", ["name": "late"]) } }
        #expect(error?.kind == .busy)
        #expect(error.map { ($0.sqliteCode ?? 0) & 0xff } == 5)
        // Reads are not blocked by the writer.
        #expect(try impatient.read { ctx in try ctx.count("User") } == 0)
        try holder.commit()
        try impatient.write { ctx in try ctx.create("User", ["name": "now"]) }
        #expect(try store.read { ctx in try ctx.count("User") } == 2)
    }

    @Test func aFullDiskFailsTheWholeWrite() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in try ctx.create("User", ["name": "before"]) }
        let error = portalError {
            try store.write { ctx in
                guard case .integer(let pages)? = try ctx.query("PRAGMA page_count").rows.first?.values.first else { return }
                try ctx.execute("PRAGMA max_page_count = \(pages + 2)")
                for i in 0..<100 {
                    try ctx.create("User", ["name": .text("user \(i) " + String(repeating: "x", count: 2000))])
                }
            }
        }
        #expect(error?.kind == .diskFull)
        #expect(try store.read { ctx in try ctx.count("User") } == 1)
    }

    @Test func constraintViolationsAreTypedAndNameTheirAttributes() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE Post (id INTEGER PRIMARY KEY, userId INTEGER NOT NULL REFERENCES User(id), title TEXT);
                CREATE TABLE Pair (a INTEGER, b INTEGER, UNIQUE (a, b));
                """)
            try ctx.create("User", ["id": 1, "name": "A", "age": 3])
            try ctx.create("Pair", ["a": 1, "b": 2])
        }
        func failure(_ body: @escaping (WriteContext) throws -> Void) -> PortalError? {
            portalError { try store.write { ctx in try body(ctx) } }
        }
        let unique = failure { try $0.create("User", ["name": "A"]) }
        #expect(unique?.kind == .constraint(.unique))
        #expect(unique?.entity == "User")
        #expect(unique?.attribute == "name")
        let primaryKey = failure { try $0.create("User", ["id": 1, "name": "B"]) }
        #expect(primaryKey?.kind == .constraint(.primaryKey))
        let foreignKey = failure { try $0.create("Post", ["userId": 99, "title": "orphan"]) }
        #expect(foreignKey?.kind == .constraint(.foreignKey))
        #expect(foreignKey?.entity == "Post")
        let check = failure { try $0.update("User", set: ["age": -1], where: "name == %@", ["A"]) }
        #expect(check?.kind == .constraint(.check))
        let pair = failure { try $0.create("Pair", ["a": 1, "b": 2]) }
        #expect(pair?.attributes == ["a", "b"])
        #expect(pair?.entity == "Pair")
        #expect(pair?.description == "UNIQUE constraint failed: Pair.a, Pair.b")
        #expect(try store.read { ctx in try ctx.count("Post") } == 0)
        #expect(try store.read { ctx in try ctx.first("User")?["age"] } == 3)
    }

    @Test func viewsAreReadOnlyEntities() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        try store.write { ctx in
            try ctx.execute("CREATE VIEW Adult AS SELECT * FROM User WHERE age >= 18")
            try ctx.create("User", ["name": "A", "age": 30])
        }
        #expect(try store.read { ctx in try ctx.count("Adult") } == 1)
        let error = portalError { try store.write { ctx in try ctx.create("Adult", ["name": "B", "age": 40]) } }
        #expect(error?.kind == .notWritable)
        #expect(error?.entity == "Adult")
    }

    @Test func unknownNamesComeWithSuggestions() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        let entity = portalError { _ = try store.read { ctx in try ctx.entity(named: "Usre") } }
        #expect(entity?.kind == .unknownEntity)
        #expect(entity?.suggestion == "User")
        #expect(entity?.description == "no entity named 'Usre' (did you mean 'User'?)")
        let attribute = portalError { try store.write { ctx in try ctx.create("User", ["nmae": "x"]) } }
        #expect(attribute?.kind == .unknownAttribute)
        #expect(attribute?.suggestion == "name")
    }
}
