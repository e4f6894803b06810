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
}
