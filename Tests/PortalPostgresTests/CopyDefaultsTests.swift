import Testing
@testable import PortalPostgres

/// A column's default across `--copy-to`: what both databases spell carries, each way, and comes
/// back as it was; anything else is nil (the copy names it in a note).
@Suite struct CopyDefaultsTests {
    @Test func sqliteDefaultsInPostgreSQL() {
        #expect(CopyDefaults.postgres(fromSQLite: "0", type: "bigint") == "0")
        #expect(CopyDefaults.postgres(fromSQLite: "(-1.5)", type: "double precision") == "-1.5")
        #expect(CopyDefaults.postgres(fromSQLite: "'it''s'", type: "text") == "'it''s'")
        #expect(CopyDefaults.postgres(fromSQLite: "1", type: "boolean") == "true")
        #expect(CopyDefaults.postgres(fromSQLite: "FALSE", type: "boolean") == "false")
        #expect(CopyDefaults.postgres(fromSQLite: "x'AB01'", type: "bytea") == "'\\xAB01'::bytea")
        #expect(CopyDefaults.postgres(fromSQLite: "NULL", type: "text") == "NULL")
        #expect(CopyDefaults.postgres(fromSQLite: "CURRENT_TIMESTAMP", type: "text")
                == "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')")
        #expect(CopyDefaults.postgres(fromSQLite: "lower('A')", type: "text") == nil)
        #expect(CopyDefaults.postgres(fromSQLite: "(1) + (2)", type: "bigint") == nil)
    }

    @Test func postgreSQLDefaultsInSQLite() {
        #expect(CopyDefaults.sqlite(fromPostgres: "'-1'::integer") == "-1")
        #expect(CopyDefaults.sqlite(fromPostgres: "'G'::mpaa_rating") == "'G'")
        #expect(CopyDefaults.sqlite(fromPostgres: "'it''s'::text") == "'it''s'")
        #expect(CopyDefaults.sqlite(fromPostgres: "'{}'::text[]") == "'{}'")
        #expect(CopyDefaults.sqlite(fromPostgres: "'\\xab01'::bytea") == "X'ab01'")
        #expect(CopyDefaults.sqlite(fromPostgres: "true") == "1")
        #expect(CopyDefaults.sqlite(fromPostgres: "1.5") == "1.5")
        #expect(CopyDefaults.sqlite(fromPostgres: "now()") == "CURRENT_TIMESTAMP")
        #expect(CopyDefaults.sqlite(fromPostgres: "nextval('actor_actor_id_seq'::regclass)") == nil)
        #expect(CopyDefaults.sqlite(fromPostgres: "(random() * 10)") == nil)
        // SQLite's current time as the copy writes it for PostgreSQL, as the server prints it back.
        #expect(CopyDefaults.sqlite(fromPostgres: "to_char((now() AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD HH24:MI:SS'::text)")
                == "CURRENT_TIMESTAMP")
    }
}
