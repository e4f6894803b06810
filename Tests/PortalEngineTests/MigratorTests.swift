import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

@Suite struct MigratorTests {
    private struct Broken: Error {}

    @Test func migrationsRunInOrderOnce() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("app.sqlite")
        let log = Mutexed<[String]>([])
        func migrator() -> Migrator {
            var migrator = Migrator()
            migrator.register("v1") { ctx in
                log.mutate { $0.append("v1") }
                try ctx.execute("CREATE TABLE Item (id INTEGER PRIMARY KEY, name TEXT)")
            }
            migrator.register("v2") { ctx in
                log.mutate { $0.append("v2") }
                try ctx.execute("ALTER TABLE Item ADD COLUMN price REAL")
            }
            return migrator
        }
        let store = try Store(path: path)
        #expect(try migrator().migrate(store) == ["v1", "v2"])
        #expect(try migrator().migrate(store) == [])
        try store.close()
        let reopened = try Store(path: path)
        #expect(try migrator().migrate(reopened) == [])
        #expect(log.value == ["v1", "v2"])
        #expect(try Migrator().appliedMigrations(reopened) == ["v1", "v2"])
        #expect(try reopened.schema.entity(named: "Item")?.attributes.map(\.name) == ["id", "name", "price"])
    }

    @Test func aFailingMigrationRollsBackAloneAndStopsTheRun() throws {
        let folder = try TemporaryFolder()
        let store = try Store(path: folder.path("app.sqlite"))
        var migrator = Migrator()
        migrator.register("v1") { ctx in try ctx.execute("CREATE TABLE A (x)") }
        migrator.register("v2") { ctx in
            try ctx.execute("CREATE TABLE B (x)")
            try ctx.execute("INSERT INTO NoSuchTable VALUES (1)")
        }
        migrator.register("v3") { ctx in try ctx.execute("CREATE TABLE C (x)") }
        let error = portalError { try migrator.migrate(store) }
        #expect(error?.kind == .database)   // raw SQL: SQLite's own message, classified by its code
        #expect(error?.message.contains("no such table: NoSuchTable") == true)
        #expect(error?.message.contains("migration 'v2' failed") == true)
        #expect(try migrator.appliedMigrations(store) == ["v1"])
        let tables = try store.read { ctx in
            try ctx.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").rows.compactMap { $0["name"] }
        }
        #expect(tables == ["A", "portal_migrations"])

        // Fixed, the run resumes at v2.
        var fixed = Migrator()
        fixed.register("v1") { _ in throw Broken() }   // already applied: never runs again
        fixed.register("v2") { ctx in try ctx.execute("CREATE TABLE B (x)") }
        fixed.register("v3") { ctx in try ctx.execute("CREATE TABLE C (x)") }
        #expect(try fixed.migrate(store) == ["v2", "v3"])
    }

    @Test func duplicateNamesAreRefused() throws {
        let store = try Store.inMemory()
        var migrator = Migrator()
        migrator.register("v1") { _ in }
        migrator.register("v1") { _ in }
        #expect(portalError { try migrator.migrate(store) }?.kind == .misuse)
    }
}

@Suite struct SchemaRefreshTests {
    @Test func theSchemaFollowsCreateAndAlter() throws {
        let folder = try TemporaryFolder()
        let store = try makeUserStore(in: folder)
        #expect(try store.schema.entity(named: "User")?.attributes.map(\.name) == ["id", "name", "age"])
        #expect(try store.schema.entity(named: "Post") == nil)
        // Changed by another connection: the store notices through PRAGMA schema_version.
        let other = try Store(path: folder.path("users.sqlite"))
        try other.write { ctx in
            try ctx.execute("ALTER TABLE User ADD COLUMN email TEXT")
            try ctx.execute("CREATE TABLE Post (id INTEGER PRIMARY KEY, userId INTEGER REFERENCES User(id))")
        }
        let schema = try store.schema
        #expect(schema.entity(named: "User")?.attributes.map(\.name) == ["id", "name", "age", "email"])
        #expect(schema.entity(named: "Post")?.relationships.map(\.name) == ["user"])
        // Inside one write, DDL is visible to the next statement of the same write.
        let count = try store.write { ctx in
            try ctx.execute("CREATE TABLE Tag (label TEXT)")
            try ctx.create("Tag", ["label": "a"])
            return try ctx.count("Tag", where: "label == %@", ["a"])
        }
        #expect(count == 1)
    }
}
