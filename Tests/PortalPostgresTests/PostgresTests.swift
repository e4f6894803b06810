import Foundation
import Testing
import PortalPredicate
import PortalEngine
import PortalSQLite
@testable import PortalPostgres

/// A database of its own on the test server (`make test` starts one and sets `PGHOST`): tests
/// that need the server fail, never skip, when there is none.
final class ScratchDatabase {
    let name = "portal_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let connection: PostgresConnection

    init() throws {
        guard ProcessInfo.processInfo.environment["PGHOST"] != nil else {
            throw PortalError(.cannotOpen, "no PostgreSQL server: PGHOST is not set (make test starts one with scripts/postgres-test-server)")
        }
        let admin = try PostgresConnection("dbname=postgres")
        try admin.execute("CREATE DATABASE \(name)")
        connection = try PostgresConnection("dbname=\(name)")
    }

    deinit {
        if let admin = try? PostgresConnection("dbname=postgres") {
            try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
    }

    /// The rows of `sql` (its parameters spelled as PostgreSQL wants).
    func rows(_ sql: SQLFragment) throws -> [[Value]] {
        let numbered = PostgresDialect().numbered(sql)
        return try rows(numbered.sql, numbered.bindings)
    }

    /// The rows of `sql` (with `$n` parameters) with `bindings`.
    func rows(_ sql: String, _ bindings: [Value]) throws -> [[Value]] {
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        var rows: [[Value]] = []
        while try statement.step() { rows.append((0..<statement.columnCount).map { statement.value(at: Int32($0)) }) }
        return rows
    }
}

@Suite struct PostgresConnectionTests {
    @Test func transactionsSavepointsAndValuesThroughTheProtocol() throws {
        let db = try ScratchDatabase()
        let connection = db.connection
        try connection.execute("CREATE TABLE t (id serial PRIMARY KEY, name text, n bigint, r float8, b bytea, ok boolean)")
        try connection.begin(.immediate)
        #expect(connection.isInTransaction)
        _ = try db.rows("INSERT INTO t (name, n, r, b, ok) VALUES ($1, $2, $3, $4, $5)",
                        ["a'b \"c\" ✓", .integer(-42), .real(2.5), .blob([0, 1, 255]), .integer(1)])
        #expect(connection.changes == 1)
        try connection.savepoint("inner")
        _ = try db.rows("INSERT INTO t (name) VALUES ($1)", [.null])
        try connection.rollback(toSavepoint: "inner")
        try connection.release(savepoint: "inner")
        try connection.commit()
        #expect(!connection.isInTransaction)
        let rows = try db.rows(SQLFragment("SELECT name, n, r, b, ok FROM t ORDER BY id"))
        #expect(rows == [["a'b \"c\" ✓", .integer(-42), .real(2.5), .blob([0, 1, 255]), .integer(1)]])
        try connection.begin(.deferred)
        _ = try db.rows("INSERT INTO t (name) VALUES ($1)", ["gone"])
        try connection.rollback()
        #expect(try db.rows(SQLFragment("SELECT count(*) FROM t")) == [[.integer(1)]])
    }

    /// A server that has no `pg_current_snapshot` for the session (here: refused to its role;
    /// before PostgreSQL 13 and on CockroachDB: missing) still gives readers; their reads learn
    /// no change marker on the way.
    @Test func aReaderWorksWithoutTheChangeMarker() throws {
        let db = try ScratchDatabase()
        let role = "portal_plain_" + db.name.suffix(8)
        try db.connection.execute("""
            DROP ROLE IF EXISTS \(role); CREATE ROLE \(role) LOGIN;
            CREATE TABLE t (id bigint PRIMARY KEY); INSERT INTO t VALUES (1), (2);
            GRANT SELECT ON t TO \(role);
            REVOKE EXECUTE ON FUNCTION pg_current_snapshot() FROM PUBLIC
            """)
        defer { try? PostgresConnection("dbname=postgres").execute("DROP ROLE IF EXISTS \(role)") }
        do {
            let reader = try PostgresConnection("dbname=\(db.name) user=\(role)", readOnly: true)
            defer { reader.close() }
            for _ in 0..<3 {
                try reader.begin(.deferred)
                #expect(try reader.scalar("SELECT count(*) FROM t") == .integer(2))
                #expect(reader.snapshotChangeMarker == nil)
                try reader.commit()
            }
        }
        try db.connection.execute("DROP OWNED BY \(role)")
    }

    /// Integers are read from libpq's text in place; every Int64 reads back, anything else is nil
    /// (and is then read as text or a real).
    @Test func integerTextIsReadInPlace() {
        func read(_ text: String) -> Int64? { text.withCString { PostgresStatement.integer(at: $0) } }
        var generator = SystemRandomNumberGenerator()
        let samples = [0, 1, -1, 9, -9, 10, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
            + (0..<2000).map { _ in Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator) }
        for value in samples { #expect(read(String(value)) == value, "\(value)") }
        for text in ["", "-", "+1", "1.5", "12a", " 1", "1e3", "9223372036854775808", "-9223372036854775809", "99999999999999999999"] {
            #expect(read(text) == nil, "\(text)")
        }
    }

    /// A page's statement (its limit written in) is planned once and kept, not planned afresh at
    /// every run as with `LIMIT $n`; its few rows come in one result.
    @Test func aPageStatementKeepsOnePlan() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("""
            CREATE TABLE t (id bigint PRIMARY KEY, a bigint);
            INSERT INTO t SELECT g, g % 10 FROM generate_series(1, 20000) AS g;
            ANALYZE t
            """)
        let page = PostgresDialect().numbered("SELECT id, a FROM t WHERE id > " + .bound(0) + " ORDER BY id"
                                              + PostgresDialect().limit(37, offset: nil))
        #expect(page.sql.hasSuffix(" LIMIT 37") && page.bindings.count == 1)
        for start in stride(from: 0, to: 1000, by: 100) {
            let rows = try db.rows(page.sql, [.integer(Int64(start))])
            #expect(rows.count == 37 && rows.first?.first == .integer(Int64(start + 1)))
        }
        let plans = try db.rows(SQLFragment("SELECT generic_plans FROM pg_prepared_statements WHERE statement LIKE '%LIMIT 37'"))
        #expect(plans.count == 1)
        if case .integer(let generic)? = plans.first?.first { #expect(generic > 0) } else { Issue.record("no plan counts: \(plans)") }

        #expect(PostgresConnection.isBounded(page.sql, [.integer(5)]))
        #expect(PostgresConnection.isBounded("SELECT g FROM t LIMIT $1", [.integer(1000)]))
        #expect(!PostgresConnection.isBounded("SELECT g FROM t LIMIT $1", [.integer(1001)]))
        #expect(!PostgresConnection.isBounded("SELECT g FROM t LIMIT 1001", []))
        #expect(!PostgresConnection.isBounded("SELECT g FROM t WHERE a > 37", []))
        #expect(!PostgresConnection.isBounded("SELECT g FROM t LIMIT ALL OFFSET $1", [.integer(3)]))
    }

    @Test func errorsAreClassifiedBySQLState() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("CREATE TABLE u (id integer PRIMARY KEY, name text NOT NULL UNIQUE)")
        _ = try db.rows("INSERT INTO u VALUES ($1, $2)", [1, "x"])
        func kind(_ sql: String, _ bindings: [Value] = []) -> PortalError.Kind? {
            do { _ = try db.rows(sql, bindings); return nil } catch let error as PortalError { return error.kind } catch { return nil }
        }
        #expect(kind("INSERT INTO u VALUES ($1, $2)", [2, "x"]) == .constraint(.unique))
        #expect(kind("INSERT INTO u VALUES ($1, $2)", [3, .null]) == .constraint(.notNull))
        #expect(kind("SELECT * FROM missing") == .unknownEntity)
        #expect(kind("SELECT nope FROM u") == .unknownAttribute)
        // The SQLSTATE stays with the error; one the engine has no kind for is the database's.
        func error(_ sql: String, _ bindings: [Value] = []) -> PortalError? {
            do { _ = try db.rows(sql, bindings); return nil } catch let error as PortalError { return error } catch { return nil }
        }
        let duplicate = error("INSERT INTO u VALUES ($1, $2)", [2, "x"])
        #expect(duplicate?.sqlState == SQLState.uniqueViolation && duplicate?.code == .sqlState("23505"))
        #expect(duplicate?.entity == "u" && duplicate?.message == "UNIQUE constraint failed: u_name_key")
        let missing = error("INSERT INTO u VALUES ($1, $2)", [3, .null])
        #expect(missing?.attribute == "name" && missing?.message == "NOT NULL constraint failed: u.name")
        let syntax = error("SELEC 1")
        #expect(syntax?.kind == .database && syntax?.sqlState == "42601" && syntax?.sqliteCode == nil)
        #expect(throws: PortalError.self) { try PostgresConnection("dbname=no_such_database_here") }
    }

    /// A session the server ends (an administrator's `pg_terminate_backend`) is a lost server,
    /// whichever word arrives first: the server's "terminating connection" (57P01) or libpq's
    /// "server closed the connection".
    @Test func aSessionTheServerEndsIsALostServer() throws {
        #expect(PostgresConnection.kind(ofSQLState: "57P01") == .cannotOpen)
        #expect(PostgresConnection.kind(ofSQLState: "57P02") == .cannotOpen)
        #expect(PostgresConnection.kind(ofSQLState: "57014") == .interrupted)
        let db = try ScratchDatabase()
        let pid = try db.rows(SQLFragment("SELECT pg_backend_pid()"))
        let admin = try PostgresConnection("dbname=postgres")
        let ended = try admin.prepare("SELECT pg_terminate_backend($1::int)")
        try ended.bind(pid[0])
        _ = try ended.step()
        ended.reset()
        Thread.sleep(forTimeInterval: 0.2)
        for _ in 0..<2 {
            do {
                try db.connection.execute("SELECT 1")
            } catch let error as PortalError {
                #expect(error.kind == .cannotOpen, "\(error)")
            }
        }
    }

    @Test func interruptCancelsARunningStatement() throws {
        let db = try ScratchDatabase()
        let connection = db.connection
        // interrupt() alone may come from another thread (it sends a cancel request).
        nonisolated(unsafe) let target = connection
        let started = Date()
        let canceller = Thread { Thread.sleep(forTimeInterval: 0.3); target.interrupt() }
        canceller.start()
        do {
            try connection.execute("SELECT pg_sleep(20)")
            Issue.record("the sleep was not cancelled")
        } catch let error as PortalError {
            #expect(error.kind == .interrupted)
        }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(try db.rows(SQLFragment("SELECT 1")) == [[.integer(1)]])
    }

    /// Rows arrive one at a time (single-row mode): 300,000 of them stream through; a query run
    /// while another's rows are still coming gets its answer and the first goes on where it was
    /// (also when it fails later: the failure is its own); a statement left half-read, or
    /// dropped, leaves the connection usable; a failure half-way through the rows is thrown at
    /// that row; column names are known before the first row and without any.
    @Test func rowsStreamOneAtATimeAndStatementsInterleave() throws {
        let db = try ScratchDatabase()
        let connection = db.connection
        let many = try connection.prepare("SELECT g, 'row ' || g FROM generate_series(1, 300000) AS g")
        try many.bind([])
        var count = 0, sum: Int64 = 0
        while try many.step() {
            count += 1
            if case .integer(let n) = many.value(at: 0) { sum += n }
        }
        #expect(count == 300_000)
        #expect(sum == 45_000_150_000)

        let outer = try connection.prepare("SELECT g FROM generate_series(1, 5) AS g")
        let inner = try connection.prepare("SELECT $1::int8 * 10")
        try outer.bind([])
        var pairs: [[Value]] = []
        while try outer.step() {
            let n = outer.value(at: 0)
            try inner.bind([n])
            #expect(try inner.step())
            pairs.append([n, inner.value(at: 0)])
            inner.reset()
        }
        #expect(pairs == (1...5).map { [.integer(Int64($0)), .integer(Int64($0 * 10))] })

        try many.bind([])
        #expect(try many.step())
        many.reset()
        #expect(try db.rows(SQLFragment("SELECT 2")) == [[.integer(2)]])
        do {
            let dropped = try connection.prepare("SELECT g FROM generate_series(1, 100000) AS g WHERE g > 0")
            try dropped.bind([])
            #expect(try dropped.step())
        }
        #expect(try db.rows(SQLFragment("SELECT 3")) == [[.integer(3)]])

        let failing = try connection.prepare("SELECT 10 / (50000 - g) FROM generate_series(1, 100000) AS g")
        try failing.bind([])
        var before = 0
        do {
            while try failing.step() { before += 1 }
            Issue.record("the division by zero was not reported")
        } catch let error as PortalError {
            #expect(error.message.contains("division by zero"))
        }
        #expect(before > 0 && before < 50000)
        #expect(try db.rows(SQLFragment("SELECT 4")) == [[.integer(4)]])

        // Another command while a failing statement is half-read: it gets its answer, and the
        // failure stays with the statement, thrown after the rows before it.
        try failing.bind([])
        #expect(try failing.step())
        #expect(try db.rows(SQLFragment("SELECT 5")) == [[.integer(5)]])
        var after = 1
        do {
            while try failing.step() { after += 1 }
            Issue.record("the division by zero was lost")
        } catch let error as PortalError {
            #expect(error.message.contains("division by zero"))
        }
        #expect(after == before)

        // Column names without a row: before the first step, and for an empty result.
        let empty = try connection.prepare("SELECT g AS number, 'x' AS letter FROM generate_series(1, 0) AS g")
        try empty.bind([])
        #expect((0..<empty.columnCount).map(empty.columnName) == ["number", "letter"])
        #expect(try !empty.step())
        #expect((0..<empty.columnCount).map(empty.columnName) == ["number", "letter"])
    }

    /// A statement's columns come with its first result: a query whose columns are asked before
    /// it runs (as the shell asks, for its headings) costs one round trip, not a Describe too, and
    /// its text is prepared once.
    @Test func columnsAskedBeforeARunCostNoRoundTripOfTheirOwn() throws {
        let db = try ScratchDatabase()
        let connection = db.connection
        try connection.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text); INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        let before = connection.roundTrips
        for _ in 0..<10 {
            let statement = try connection.prepare("SELECT id, name AS label FROM t WHERE id >= $1 ORDER BY id")
            try statement.bind([.integer(1)])
            #expect(statement.columns.names == ["id", "label"])
            var ids: [Value] = []
            while try statement.step() { ids.append(statement.value(at: 0)) }
            #expect(ids == [.integer(1), .integer(2)])
            #expect(statement.columns.names == ["id", "label"])
        }
        #expect(connection.roundTrips - before == 1 + 10)

        // No row, a command, a refusal: the columns of each are its own, the refusal thrown by
        // the next step, and the connection fine after it.
        let empty = try connection.prepare("SELECT name FROM t WHERE id > 5")
        try empty.bind([])
        #expect(empty.columns.names == ["name"])
        #expect(try !empty.step())
        let command = try connection.prepare("UPDATE t SET name = 'c' WHERE id = 2")
        try command.bind([])
        #expect(command.columns.names == [])
        #expect(try !command.step())
        #expect(try db.rows(SQLFragment("SELECT name FROM t WHERE id = 2")) == [[.text("c")]])
        let refused = try connection.prepare("SELECT nosuch FROM t")
        try refused.bind([])
        #expect(refused.columns.names == [])
        #expect(throws: PortalError.self) { try refused.step() }
        #expect(try db.rows(SQLFragment("SELECT count(*) FROM t")) == [[.integer(2)]])

        // Asked before any value is bound (a prepared statement's columns), the statement is
        // described, not run; a run that failed for the columns is that run's alone.
        let unbound = try connection.prepare("DELETE FROM t WHERE id = $1 RETURNING name")
        #expect(unbound.columns.names == ["name"])
        #expect(try db.rows(SQLFragment("SELECT count(*) FROM t")) == [[.integer(2)]])
        let quotient = try connection.prepare("SELECT 10 / $1::int AS q")
        try quotient.bind([.integer(0)])
        #expect(quotient.columns.names == [])
        #expect(throws: PortalError.self) { try quotient.step() }
        try quotient.bind([.integer(2)])
        #expect(quotient.columns.names == ["q"])
        #expect(try quotient.step() && quotient.value(at: 0) == .integer(5))
    }

    /// A reader refuses writes and sees one snapshot through its transaction, whatever another
    /// connection commits meanwhile.
    @Test func aReaderIsReadOnlyAndReadsOneSnapshot() throws {
        let db = try ScratchDatabase()
        try db.connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")
        let reader = try PostgresConnection("dbname=\(db.name)", readOnly: true)
        #expect(reader.isReadOnly)
        #expect(throws: PortalError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        do { try reader.execute("INSERT INTO t VALUES (1)") } catch let error as PortalError {
            #expect(error.kind == .readOnly)
        }
        func count() throws -> Value {
            let statement = try reader.prepare("SELECT count(*) FROM t")
            defer { statement.reset() }
            try statement.bind([])
            _ = try statement.step()
            return statement.value(at: 0)
        }
        try reader.begin(.deferred)
        #expect(try count() == .integer(0))
        try db.connection.execute("INSERT INTO t VALUES (1), (2)")
        #expect(try count() == .integer(0))
        try reader.commit()
        #expect(try count() == .integer(2))

        // A read's end begins the next transaction on the server; its snapshot is still taken
        // at its first statement, so it sees what was committed in between.
        try reader.begin(.deferred)
        #expect(try count() == .integer(2))
        try reader.commit()
        #expect(!reader.isInTransaction)
        try db.connection.execute("INSERT INTO t VALUES (3)")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(!reader.isInTransaction)
        try reader.begin(.deferred)
        #expect(try count() == .integer(3))
        try db.connection.execute("INSERT INTO t VALUES (4)")
        #expect(try count() == .integer(3))
        try reader.rollback()
        // A statement outside any transaction does not run in the one begun (where it would fix
        // the next read's snapshot).
        #expect(try count() == .integer(4))
        try db.connection.execute("INSERT INTO t VALUES (5)")
        try reader.begin(.deferred)
        #expect(try count() == .integer(5))
        try reader.commit()

        // A read's first statement goes behind the transaction begun ahead: its failure, no
        // rows, or rows left unread, and the next read still works.
        func rows(_ sql: String, taking limit: Int = .max) throws -> [Value] {
            try reader.begin(.deferred)
            defer { try? reader.commit() }
            let statement = try reader.prepare(sql)
            defer { statement.reset() }
            try statement.bind([])
            var values: [Value] = []
            while values.count < limit, try statement.step() { values.append(statement.value(at: 0)) }
            return values
        }
        // The change marker comes with a read's first statement, as its snapshot saw it.
        func markers() throws -> (known: Value?, asked: Value?) {
            try reader.begin(.deferred)
            defer { try? reader.commit() }
            #expect(try count() == .integer(5))
            return (reader.snapshotChangeMarker, try reader.scalar(PostgresConnection.changeMarkerSQL))
        }
        let before = try markers()
        #expect(before.known != nil && before.known == before.asked)
        try db.connection.execute("CREATE TABLE u (id bigint); DROP TABLE u")
        let changed = try markers()
        #expect(changed.known != before.known && changed.known == changed.asked)
        #expect(reader.snapshotChangeMarker == nil)

        for _ in 0..<2 {
            #expect(try rows("SELECT id FROM t ORDER BY id") == (1...5).map { .integer($0) })
            #expect(try rows("SELECT id FROM t ORDER BY id", taking: 2) == [.integer(1), .integer(2)])
            #expect(try rows("SELECT id FROM t WHERE id < 0").isEmpty)
            #expect { try rows("SELECT 1 / (id - id) FROM t") } throws: { ($0 as? PortalError)?.message.contains("division by zero") == true }
            #expect(try count() == .integer(5))
        }
    }

    /// The schema fingerprint changes with tables, columns, renames, indexes, constraints and
    /// views, and not with rows or statistics.
    @Test func theSchemaFingerprintFollowsTheSchemaOnly() throws {
        let db = try ScratchDatabase()
        let catalog = PostgresCatalog()
        var seen: [String] = [try catalog.fingerprint(of: db.connection)]
        func expectChange(_ sql: String) throws {
            try db.connection.execute(sql)
            let now = try catalog.fingerprint(of: db.connection)
            #expect(!seen.contains(now), "\(sql)")
            seen.append(now)
        }
        func expectSame(_ sql: String) throws {
            try db.connection.execute(sql)
            #expect(try catalog.fingerprint(of: db.connection) == seen.last, "\(sql)")
        }
        try expectChange("CREATE TABLE a (id bigint PRIMARY KEY, name text)")
        try expectSame("INSERT INTO a SELECT g, 'n' || g FROM generate_series(1, 1000) g")
        try expectSame("ANALYZE a")
        try expectSame("UPDATE a SET name = 'x' WHERE id < 10")
        try expectChange("ALTER TABLE a ADD COLUMN n bigint")
        try expectChange("ALTER TABLE a RENAME COLUMN name TO title")
        try expectChange("CREATE INDEX a_title ON a (title)")
        try expectChange("ALTER TABLE a ADD CONSTRAINT positive CHECK (n > 0)")
        try expectChange("CREATE VIEW v AS SELECT id FROM a")
        // Dropped, the schema is what it was before the view: so is its fingerprint.
        try db.connection.execute("DROP VIEW v")
        #expect(try catalog.fingerprint(of: db.connection) == seen[seen.count - 2])
    }
}
