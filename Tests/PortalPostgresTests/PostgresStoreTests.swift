import Foundation
import Testing
import PortalPredicate
import DifferentialSupport
@testable import PortalEngine
import PortalSQLite
@testable import PortalPostgres
@testable import ReadmeExample

/// `Store(url:)`: the engine's dynamic API and `Portal<T>` on a PostgreSQL database, the same
/// calls as on a SQLite file (the README's example runs on both).
@Suite(.serialized) struct PostgresStoreTests {
    @Test func theReadmeExampleRunsOnPostgreSQL() throws {
        let db = try ScratchDatabase()
        let first = try hikeReport(try Store(url: "dbname=\(db.name)"))
        #expect(first.longTrails == ["Cotswold Way", "Côte Sauvage"])
        #expect(first.withNotes == 2)
        // A second run finds the migration applied and the hikes upserted, not duplicated.
        let store = try Store(url: "dbname=\(db.name)")
        let second = try hikeReport(store)
        #expect(second.longTrails == first.longTrails)
        #expect(try store.read { try $0.count("Hike") } == 3)
        #expect(try Migrator().appliedMigrations(store) == ["create Hike"])
    }

    @Test func theReadmeExamplesPredicatesRunOnPostgreSQL() async throws {
        let db = try ScratchDatabase()
        let store = try Store(url: "dbname=\(db.name)")
        _ = try hikeReport(store)
        let typed = try await typedHikeReport(store, startingWith: "Co")
        #expect(typed.longTrails == ["Cotswold Way"])
        #expect(typed.withNotes == 2)
        #expect(typed.shortTrails == ["Lac Blanc"])
    }

    /// A store with two related tables: bands and their records.
    private func bands() throws -> (ScratchDatabase, Store) {
        let db = try ScratchDatabase()
        try db.connection.execute("""
            CREATE TABLE band (id serial PRIMARY KEY, name text NOT NULL UNIQUE, formed integer);
            CREATE TABLE record (id serial PRIMARY KEY, title text NOT NULL, year integer,
                                 band_id integer NOT NULL REFERENCES band(id));
            """)
        return (db, try Store(url: "dbname=\(db.name)"))
    }

    @Test func theDynamicAPIWritesAndReadsThroughRelationships() throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        let (can, kraftwerk) = try store.write { ctx in
            (try ctx.create("band", ["name": "Can", "formed": 1968]), try ctx.create("band", ["name": "Kraftwerk", "formed": 1970]))
        }
        // The server's serial key comes back with the row.
        let canId = try #require(integer(can["id"]))
        let kraftwerkId = try #require(integer(kraftwerk["id"]))
        #expect(canId != kraftwerkId)
        try store.write { ctx in
            for (title, year) in [("Tago Mago", 1971), ("Ege Bamyasi", 1972), ("Future Days", 1973)] {
                try ctx.create("record", ["title": .text(title), "year": .integer(Int64(year)), "band_id": .integer(canId)])
            }
            try ctx.create("record", ["title": "Autobahn", "year": 1974, "band_id": .integer(kraftwerkId)])
        }
        try store.read { ctx in
            #expect(try ctx.count("record") == 4)
            // A to-one path, a to-many aggregate, [cd] and a sort, compiled for PostgreSQL.
            let early = try ctx.find("record", where: "band.name ==[c] %@ AND year < %@", ["CAN", 1973],
                                     sortedBy: [SortKey("year", ascending: false)])
            #expect(early.map { $0["title"] } == [.text("Ege Bamyasi"), .text("Tago Mago")])
            #expect(try ctx.find("band", where: "records.@count > 1").map { $0["name"] } == [.text("Can")])
            #expect(try ctx.first("record", where: "title BEGINSWITH[cd] %@", ["futu"])?["year"] == .integer(1973))
        }
        let changed = try store.write { try $0.update("record", set: ["year": 1975], where: "title == %@", ["Autobahn"]) }
        #expect(changed == 1)
        let upserted = try store.write { try $0.upsert("band", ["id": .integer(kraftwerkId), "name": "Kraftwerk", "formed": 1969]) }
        #expect(upserted["formed"] == .integer(1969))
        #expect(try store.write { try $0.delete("record", where: "year >= 1973") } == 2)
        #expect(try store.read { try $0.count("record") } == 2)
        // Raw SQL with PostgreSQL's numbered parameters, prepared once and run twice.
        let titles = try store.read { ctx in
            let byYear = try ctx.prepare("SELECT title FROM record WHERE year = $1")
            return try [1971, 1972].flatMap { try byYear.rows([.integer($0)]).map { $0["title"] } }
        }
        #expect(titles == [.text("Tago Mago"), .text("Ege Bamyasi")])
    }

    @Test func aFailedWriteRollsBackAndConstraintsAreClassified() throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        try store.write { ctx in _ = try ctx.create("band", ["name": "Neu!"]) }
        let error = #expect(throws: PortalError.self) {
            try store.write { ctx in
                _ = try ctx.create("band", ["name": "Faust"])
                _ = try ctx.create("band", ["name": "Neu!"])   // unique
            }
        }
        #expect(error?.kind == .constraint(.unique))
        #expect(try store.read { try $0.count("band") } == 1)
        // A nested write is a savepoint: its failure leaves the outer write's rows.
        try store.write { ctx in
            _ = try ctx.create("band", ["name": "Harmonia"])
            _ = try? store.write { inner in _ = try inner.create("record", ["title": "x", "band_id": 999_999]) }
        }
        #expect(try store.read { try $0.count("band") } == 2)
        #expect(try store.read { try $0.count("record") } == 0)
        // Unknown names get the engine's errors, not the server's text.
        #expect(portalError { try store.read { try $0.find("bands") } }?.kind == .unknownEntity)
        #expect(portalError { try store.read { try $0.find("band", where: "nmae == 'x'") } }?.suggestion == "name")
        // A read refuses raw SQL that writes, also inside a common table expression, and runs
        // one that only reads whatever its names contain.
        #expect(portalError { try store.read { try $0.query("DELETE FROM band") } }?.kind == .writeInRead)
        #expect(portalError {
            try store.read { try $0.query("WITH d AS (DELETE FROM band RETURNING *) SELECT * FROM d") }
        }?.kind == .writeInRead)
        let names = try store.read { try $0.query("WITH t AS (SELECT name AS updated_name FROM band) SELECT count(*) FROM t") }
        #expect(names.rows.first?.value(at: 0) == .integer(2))
    }

    @Test func aReadSeesOneSnapshotWhileAnotherSessionCommits() throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        try store.write { ctx in _ = try ctx.create("band", ["name": "Can"]) }
        try store.read { ctx in
            #expect(try ctx.count("band") == 1)
            try db.connection.execute("INSERT INTO band (name) VALUES ('Cluster')")
            #expect(try ctx.count("band") == 1)
        }
        #expect(try store.read { try $0.count("band") } == 2)
    }

    struct Band: PortalEntity, Equatable {
        static let entityName = "band"
        static let idAttribute = "id"
        var id: Int64?
        var name: String
        var formed: Int64?
    }

    struct Record: PortalEntity, Equatable, RowDecodable {
        static let entityName = "record"
        static let idAttribute = "id"
        var id: Int64?
        var title: String
        var year: Int64?
        var band_id: Int64
        static let decodedColumns = ["id", "title", "year", "band_id"]
        init(id: Int64?, title: String, year: Int64?, band_id: Int64) {
            (self.id, self.title, self.year, self.band_id) = (id, title, year, band_id)
        }
        init(row: borrowing RowReader) throws {
            id = try row[0]; title = try row[1]; year = try row[2]; band_id = try row[3]
        }
    }

    @Test func portalsReadAndWriteTypedEntities() throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        let bands = Portal<Band>(store)
        let can = try store.write { try $0.insert(Band(id: nil, name: "Can", formed: 1968)) }
        let canId = try #require(can.id)
        try bands.upsert([Band(id: canId, name: "Can", formed: 1967), Band(id: canId + 100, name: "Popol Vuh", formed: 1969)])
        #expect(try bands.findAll(sortedBy: [SortKey("name")]).map(\.name) == ["Can", "Popol Vuh"])
        #expect(try bands.findFirst(where: "name == 'Can'")?.formed == 1967)
        let records = Portal<Record>(store)
        try records.create([Record(id: nil, title: "Soundtracks", year: 1970, band_id: canId),
                            Record(id: nil, title: "Landed", year: nil, band_id: canId)])
        // Decoded by the RowDecodable conformance, by Codable from raw SQL, and by a cursor.
        #expect(try records.findAll(where: "year == nil").map(\.title) == ["Landed"])
        let viaSQL = try store.read { try $0.fetch(Band.self, sql: "SELECT * FROM band WHERE formed > $1", arguments: [1968]) }
        #expect(viaSQL.map(\.name) == ["Popol Vuh"])
        var streamed: [String] = []
        try store.read { ctx in try ctx.forEach(Record.self, sortedBy: [SortKey("title")]) { streamed.append($0.title) } }
        #expect(streamed == ["Landed", "Soundtracks"])
        var landed = try #require(try records.findFirst(where: "title == 'Landed'"))
        landed.year = 1975
        #expect(try records.update([landed]) == 1)
        #expect(try records.count(where: "year == 1975") == 1)
        #expect(try bands.deleteAll(where: "name == 'Popol Vuh'") == 1)
        // A compiled query, run with new values.
        let query = try records.query(where: "year >= $from")
        #expect(try records.findAll(query, ["from": 1971]).map(\.title) == ["Landed"])
    }

    struct Gig: PortalEntity, Equatable {
        static let entityName = "gig"
        static let idAttribute = "id"
        var id: UUID
        var at: Date
        var soldOut: Bool
        var fee: Double
        var note: String?
    }

    @Test func datesBooleansUUIDsAndNumbersRoundTripThroughPostgresTypes() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("""
            CREATE TABLE gig (id uuid PRIMARY KEY, at timestamptz NOT NULL, "soldOut" boolean NOT NULL,
                              fee numeric(10, 2) NOT NULL, note text)
            """)
        let store = try Store(url: "dbname=\(db.name)")
        let gigs = Portal<Gig>(store)
        let at = Date(timeIntervalSince1970: 1_700_000_000.25)
        let gig = Gig(id: UUID(), at: at, soldOut: true, fee: 1250.5, note: nil)
        try gigs.create([gig, Gig(id: UUID(), at: at.addingTimeInterval(86_400), soldOut: false, fee: 99, note: "matinée")])
        #expect(try gigs.findFirst(where: "soldOut == true") == gig)
        #expect(try gigs.count(where: "at > %@", ["2023-11-15"]) == 1)   // the first is 2023-11-14 22:13:20.25 UTC
        #expect(try gigs.findAll(where: "fee < 100").map(\.note) == ["matinée"])
        #expect(try gigs.findFirst(where: "id == %@", [gig.id.uuidString])?.fee == 1250.5)
    }

    /// In a session whose time zone is not UTC (the database's), typed `Date`s are the same
    /// instants written and read, and a `Date` argument compares as that instant.
    @Test func datesAreInstantsWhateverTheSessionsTimeZone() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("""
            ALTER DATABASE "\(db.name)" SET timezone = 'America/St_Johns';
            CREATE TABLE gig (id uuid PRIMARY KEY, at timestamptz NOT NULL, "soldOut" boolean NOT NULL,
                              fee numeric(10, 2) NOT NULL, note text)
            """)
        let store = try Store(url: "dbname=\(db.name)")
        let gigs = Portal<Gig>(store)
        let at = Date(timeIntervalSince1970: 1_700_000_000.25)
        let gig = Gig(id: UUID(), at: at, soldOut: true, fee: 1250.5, note: nil)
        try gigs.create([gig])
        #expect(try gigs.findFirst(where: "soldOut == true")?.at == at)
        #expect(try gigs.count(where: "at == %@", [at]) == 1)
        #expect(try db.rows(SQLFragment("SELECT (at AT TIME ZONE 'UTC')::text FROM gig")) == [[.text("2023-11-14 22:13:20.25")]])
    }

    struct Ledger: PortalEntity, Equatable {
        static let entityName = "ledger"
        static let idAttribute = "id"
        var id: Int64
        var amount: Decimal
    }

    /// `Decimal` is `numeric`: every digit written, read, and compared in `numeric`.
    @Test func decimalsKeepEveryDigitThroughNumeric() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("CREATE TABLE ledger (id bigint PRIMARY KEY, amount numeric(30,10) NOT NULL)")
        let store = try Store(url: "dbname=\(db.name)")
        let ledger = Portal<Ledger>(store)
        let big = try #require(Decimal(string: "12345678901234567890.0123456789"))
        let nearby = try #require(Decimal(string: "12345678901234567890.012345678"))
        try ledger.create([Ledger(id: 1, amount: big), Ledger(id: 2, amount: nearby)])
        #expect(try db.rows(SQLFragment("SELECT amount::text FROM ledger ORDER BY id")) == [[.text("12345678901234567890.0123456789")],
                                                                             [.text("12345678901234567890.0123456780")]])
        #expect(try ledger.findFirst(where: "id == 1")?.amount == big)
        #expect(try ledger.count(where: "amount > %@", [big.databaseValue]) == 0)
        #expect(try ledger.count(where: "amount < 12345678901234567890.0123456789") == 1)
        #expect(try ledger.findAll(where: "amount == 12345678901234567890.012345678").map(\.id) == [2])
    }

    @Test func observersHearThisStoresCommitsAndOtherSessions() async throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        let seen = Counts()
        let token = Portal<Band>(store).observe(where: "formed > 1960") { seen.add($0.count) }
        defer { token.cancel() }
        try await seen.wait(for: 0)
        try await store.write { ctx in _ = try ctx.create("band", ["name": "Can", "formed": 1968]) }
        try await seen.wait(for: 1)
        // Another session's commit is noticed by polling the server's change marker.
        try db.connection.execute("INSERT INTO band (name, formed) VALUES ('Amon Düül', 1967)")
        try await seen.wait(for: 2)
    }

    /// With `ChangeNotifications` installed, a store learns of another session's commit to one of
    /// its tables from a notification, and a write to another database moves nothing (the
    /// server's change marker, polled otherwise, moves with it); a table without the trigger
    /// puts the store back to polling. Installing is all or nothing.
    @Test func changeNotificationsTellThisDatabasesCommitsOnly() async throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        let server = try #require(store.server as? PostgresServer)
        #expect(server.notifiedChangeMarker() == nil)
        #expect(try await store.write { try ChangeNotifications.install(in: $0) } == 2)
        #expect(try await store.write { try ChangeNotifications.install(in: $0) } == 0)

        // A new store listens once its schema shows the triggers, and finds every table notifying
        // (it connects and looks on a queue of its own: the first markers are nil, the caller
        // never waits for it).
        let watching = try Store(url: "dbname=\(db.name)")
        let notified = try #require(watching.server).notifiedChangeMarker
        #expect(notified() == nil)
        _ = try await watching.read { try $0.schema }
        try await waitUntil { notified() != nil }
        let start = try #require(notified())
        let elsewhere = try ScratchDatabase()
        let polled = { try watching.read { try $0.serverChangeMarker } }
        let polledBefore = try polled()
        try elsewhere.connection.execute("CREATE TABLE t (n integer); INSERT INTO t VALUES (1)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(try polled() != polledBefore)
        #expect(notified() == start)

        try db.connection.execute("INSERT INTO band (name) VALUES ('Neu!')")
        try await waitUntil { notified() != start }
        let afterInsert = notified()
        try db.connection.execute("TRUNCATE record")
        try await waitUntil { notified() != afterInsert }

        // An observer of the watching store hears another session's commit through them.
        let seen = Counts()
        let token = Portal<Band>(watching).observe(where: "TRUEPREDICATE") { seen.add($0.count) }
        defer { token.cancel() }
        try await seen.wait(for: 1)
        try db.connection.execute("INSERT INTO band (name) VALUES ('Faust')")
        try await seen.wait(for: 2)

        // A table of another schema without the trigger, then one of this schema: back to
        // polling (looked at again within a second).
        try db.connection.execute("CREATE SCHEMA other; CREATE TABLE other.t (n integer)")
        try await waitUntil { notified() == nil }
        try db.connection.execute("DROP TABLE other.t")
        try await waitUntil { notified() != nil }
        try db.connection.execute("CREATE TABLE plain (n integer)")
        try await waitUntil { notified() == nil }
        #expect(try await store.write { try ChangeNotifications.remove(in: $0) } == 2)
        #expect(try db.rows(SQLFragment("SELECT count(*) FROM pg_proc WHERE proname = 'portal_notify_change'")) == [[.integer(0)]])

        // A role that may add a trigger to one table only: nothing is installed, with the
        // server's reason.
        let role = "portal_limited_" + db.name.suffix(8)
        try db.connection.execute("""
            CREATE ROLE \(role) LOGIN; GRANT CREATE ON SCHEMA public TO \(role); GRANT TRIGGER ON band TO \(role)
            """)
        defer { try? db.connection.execute("DROP OWNED BY \(role); DROP ROLE \(role)") }
        let limited = try Store(url: "dbname=\(db.name) user=\(role)")
        let refused = portalError { try limited.write { try ChangeNotifications.install(in: $0) } }
        #expect(refused?.message.contains("permission denied") == true, "\(String(describing: refused))")
        #expect(try db.rows(SQLFragment("SELECT count(*) FROM pg_trigger WHERE tgname = 'portal_notify_change'")) == [[.integer(0)]])
        #expect(try db.rows(SQLFragment("SELECT count(*) FROM pg_proc WHERE proname = 'portal_notify_change'")) == [[.integer(0)]])
        try limited.close()
    }

    /// Waits up to five seconds for `condition`.
    private func waitUntil(_ condition: () throws -> Bool) async throws {
        for _ in 0..<100 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("still not so after five seconds")
    }

    @Test func aRunningReadIsCancelledByInterrupt() throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        // Interrupted once the server runs the statement (a fixed delay raced the connection's
        // opening on a loaded machine).
        let name = db.name
        DispatchQueue.global().async {
            guard let watcher = try? PostgresConnection("dbname=\(name)") else { return }
            for _ in 0..<400 {
                let running = try? watcher.scalar("""
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND state = 'active' AND query = 'SELECT pg_sleep(30)'
                      AND pid <> pg_backend_pid()
                    """)
                if running == .integer(1) { return store.interrupt() }
                Thread.sleep(forTimeInterval: 0.025)
            }
        }
        let error = portalError { try store.read { try $0.query("SELECT pg_sleep(30)") } }
        #expect(error?.kind == .interrupted, "\(String(describing: error))")
        #expect(try store.read { try $0.count("band") } == 0)
    }

    /// A read of a query run before, its columns asked first as the shell asks them, costs one
    /// round trip: the columns come with the first result, the `BEGIN` goes with the statement.
    @Test func aQueryReadAgainCostsOneRoundTrip() throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        try store.write { ctx in _ = try ctx.create("band", ["name": "Can"]) }
        func read() throws -> Int {
            try store.read { ctx in
                var columns: [String] = []
                var names: [Value] = []
                try ctx.forEachRow("SELECT name FROM band", [], columns: { columns = $0 }) { names.append($0.value(at: 0)) }
                #expect(columns == ["name"] && names == [.text("Can")])
                return (ctx.connection as? PostgresConnection)?.roundTrips ?? -1
            }
        }
        var counts = [try read()]
        for _ in 0..<5 { counts.append(try read()) }
        #expect(zip(counts.dropFirst(), counts).map { $0 - $1 } == [1, 1, 1, 1, 1], "\(counts)")
    }

    @Test func aDroppedConnectionFailsItsStatementAndTheNextTransactionConnectsAgain() throws {
        let (db, store) = try bands()
        defer { withExtendedLifetime(db) {} }
        try store.write { ctx in _ = try ctx.create("band", ["name": "Can"]) }
        #expect(try store.read { try $0.count("band") } == 1)
        let name = db.name
        // Waits (up to 5 s) for the sessions to end: a read begun while one is still ending
        // would race the server's farewell.
        @Sendable func terminate() throws {
            try PostgresConnection("dbname=\(name)").execute("""
                SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """)
        }
        // Dropped between transactions: the next ones reconnect, reader and writer alike.
        try terminate()
        #expect(try store.read { try $0.count("band") } == 1)
        try store.write { ctx in _ = try ctx.create("band", ["name": "Faust"]) }
        // Dropped while a statement runs: that statement fails with the server's reason, the
        // write is not half-done, and the next transaction works.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { try? terminate() }
        let error = portalError {
            try store.write { ctx in
                _ = try ctx.create("band", ["name": "Cluster"])
                return try ctx.query("SELECT pg_sleep(10)")
            }
        }
        #expect(error != nil)
        #expect(error?.message.contains("terminating connection") == true, "\(String(describing: error))")
        #expect(try store.read { try $0.find("band", sortedBy: [SortKey("name")]).map { $0["name"] } } == [.text("Can"), .text("Faust")])
    }

    @Test func aStoreOutlivesARestartOfItsServer() throws {
        // A server of its own (scripts/postgres-test-server): restarting the shared one would
        // drop the sessions of the suites running beside this one.
        let server = try OwnServer()
        defer { server.stop() }
        let store = try Store(url: server.conninfo)
        try store.write { ctx in
            try ctx.execute("CREATE TABLE band (id serial PRIMARY KEY, name text NOT NULL)")
            _ = try ctx.create("band", ["name": "Can"])
        }
        #expect(try store.read { try $0.count("band") } == 1)
        try server.run("restart")
        // Both the reader and the writer find their sessions gone and connect again.
        #expect(try store.read { try $0.count("band") } == 1)
        try store.write { ctx in _ = try ctx.create("band", ["name": "Neu!"]) }
        #expect(try store.read { try $0.count("band") } == 2)
    }

    @Test func aServerThatIsNotThereIsAClearError() throws {
        let error = portalError { try Store(url: "postgresql://nobody@127.0.0.1:1/none") }
        #expect(error?.kind == .cannotOpen)
        #expect(error?.message.contains("cannot connect to PostgreSQL") == true)
        #expect(PostgresServer("postgresql://ann:secret@db.example.com/app").displayName == "postgresql://ann@db.example.com/app")
    }
}

/// A throwaway server of the test's own, in a temporary folder.
private final class OwnServer {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-own-\(UUID().uuidString.prefix(8))").path
    var conninfo: String { "host=\(folder) dbname=postgres user=postgres" }

    init() throws { try run("start") }

    func run(_ command: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/postgres-test-server").path
        let status = Spawn.wait(try Spawn.start("/bin/sh", [script, command, folder], stdout: "/dev/null"))
        guard status == 0 else { throw PortalError(.cannotOpen, "scripts/postgres-test-server \(command) failed (\(status))") }
    }

    func stop() { try? run("stop") }
}

/// The sizes of the results an observer delivered, awaited by the test.
private final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var sizes: [Int] = []

    func add(_ size: Int) {
        lock.lock()
        sizes.append(size)
        lock.unlock()
    }

    private var delivered: [Int] { lock.withLock { sizes } }

    /// Waits (up to 10 s) until a delivery of `size` rows has come.
    func wait(for size: Int) async throws {
        for _ in 0..<200 {
            if delivered.contains(size) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("no delivery of \(size) rows; got \(delivered)")
    }
}

private func integer(_ value: Value?) -> Int64? {
    if case .integer(let n)? = value { return n }
    return nil
}

private func portalError(_ body: () throws -> Any) -> PortalError? {
    do { _ = try body(); return nil } catch let error as PortalError { return error } catch { return nil }
}
