import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPostgres

/// `bytea` through export and import: the bytes the server holds come back as the same bytes,
/// in each format that carries bytes (json and ndjson as `{"$base64": …}`, csv as `X'…'`), never
/// as the bytes of their encoding; booleans, exported as 1 and 0, come back as booleans. Part of the serialized PostgresShellTests.
extension PostgresShellTests {
    @Test func byteaSurvivesExportAndImportInEveryFormatThatCarriesBytes() throws {
        let target = try CopyToTests.TargetDatabase()
        let server = try PostgresConnection("dbname=\(target.name)")
        try server.execute("""
            CREATE TABLE b (id int PRIMARY KEY, data bytea, ok boolean);
            INSERT INTO b VALUES (1, '\\x00ff10', true), (2, 'hello', false), (3, NULL, NULL), (4, '\\x', true);
            """)
        let (folder, _) = try Shell.chinookCopy()
        for format in ["json", "ndjson", "csv"] {
            let file = folder.appendingPathComponent("b.\(format)").path
            try server.execute("DROP TABLE IF EXISTS b2; CREATE TABLE b2 (LIKE b)")
            let run = try Shell.run([target.url, "-e", "export b to \(file)", "-e", "import b2 from \(file)"])
            #expect(run.status == 0, "\(format): \(run.stderr)")
            let copied = try target.rows("SELECT string_agg(id || '=' || coalesce(encode(data, 'hex'), 'null') || '/' || coalesce(ok::text, 'null'), ' ' ORDER BY id) FROM b2")
            #expect(copied == [[.text("1=00ff10/true 2=68656c6c6f/false 3=null/null 4=/true")]], "\(format)")
        }
    }

    /// A value written into `bytea` by `create` or `update`: a blob literal is its bytes; text is
    /// read as PostgreSQL reads text for `bytea` (as psql's `INSERT … VALUES ('…')`): `\x…` as
    /// hexadecimal, any other text as its own bytes, base64-looking text included (never decoded).
    @Test func byteaTakesBlobLiteralsAsBytesAndTextAsPostgreSQLReadsIt() throws {
        let target = try CopyToTests.TargetDatabase()
        let server = try PostgresConnection("dbname=\(target.name)")
        try server.execute("CREATE TABLE b (id int PRIMARY KEY, data bytea)")
        let run = try Shell.run([target.url, "-e", "create b set id = 1, data = X'00FF10'",
                                 "-e", "create b set id = 2, data = \"aGVsbG8=\"",
                                 "-e", "create b set id = 3, data = \"\\\\x00ff10\"",
                                 "-e", "create b set id = 4, data = \"caf\\u00e9\"",
                                 "-e", "update b set data = X'CAFE' where id == 4"])
        #expect(run.status == 0, "\(run.stderr)")
        let stored = try target.rows("SELECT string_agg(id || '=' || encode(data, 'hex'), ' ' ORDER BY id) FROM b")
        #expect(stored == [[.text("1=00ff10 2=614756736247383d 3=00ff10 4=cafe")]])
        // Each as psql's own cast of the same text gives.
        let psql = try target.rows("SELECT encode('aGVsbG8='::bytea, 'hex') || ' ' || encode('\\x00ff10'::bytea, 'hex')")
        #expect(psql == [[.text("614756736247383d 00ff10")]])
    }
}
