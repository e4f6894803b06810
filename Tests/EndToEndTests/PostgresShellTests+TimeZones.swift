import Foundation
import Testing
import PortalEngine
import PortalPostgres

/// `timestamptz` in the session's time zone, as psql has it: `PGTZ` or the database's
/// `timezone` decides it; values are shown with their offset, text without an offset is read in
/// that zone and text with one as that instant, exports keep the offset and import brings back
/// the same instants; the engine's own dates (`CAST(…, "NSDate")`, typed `Date`s) stay UTC.
/// Checked in UTC, Asia/Kolkata (+05:30) and America/St_Johns (−03:30, −02:30 in summer)
/// against the server's own text. Part of the serialized PostgresShellTests.
extension PostgresShellTests {
    private func timestampsOnServer() throws -> CopyToTests.TargetDatabase {
        let target = try CopyToTests.TargetDatabase()
        let server = try PostgresConnection("dbname=\(target.name)")
        try server.execute("""
            CREATE TABLE ts (id int PRIMARY KEY, at timestamptz, plain timestamp);
            INSERT INTO ts VALUES (1, '2026-03-01 09:00:00+00', '2026-03-01 09:00:00'),
                (2, '2026-07-01 12:30:00.25+00', '2026-07-01 12:30:00'), (3, NULL, NULL);
            """)
        return target
    }

    @Test(arguments: [("UTC", "2026-03-01 09:00:00+00", "2026-07-01 12:30:00.25+00"),
                      ("Asia/Kolkata", "2026-03-01 14:30:00+05:30", "2026-07-01 18:00:00.25+05:30"),
                      ("America/St_Johns", "2026-03-01 05:30:00-03:30", "2026-07-01 10:00:00.25-02:30")])
    func timestamptzIsShownAndReadInTheSessionsTimeZone(zone: String, winter: String, summer: String) throws {
        let target = try timestampsOnServer()
        let local = String(winter.prefix(19))
        let run = try Shell.run([target.url, "-e", "mode csv", "-e", "find ts sort by id",
                                 // A value copied from the output (or psql's) matches itself.
                                 "-e", "count ts where at == '\(winter)'",
                                 // Without an offset, in the session's zone, as PostgreSQL reads it.
                                 "-e", "count ts where at == '\(local)'",
                                 // The engine's own dates are UTC whatever the zone.
                                 "-e", "count ts where at == CAST('2026-03-01 09:00:00', 'NSDate')",
                                 "-e", "count ts where at > CAST('2026-03-01 08:59:59.5', 'NSDate')"],
                                environment: ["PGTZ": zone])
        #expect(run.status == 0, "\(zone): \(run.stderr)")
        #expect(run.stdout == """
            id,at,plain
            1,\(winter),2026-03-01 09:00:00
            2,\(summer),2026-07-01 12:30:00
            3,,
            1
            1
            1
            2

            """, "\(zone)")
    }

    @Test func theDatabasesTimeZoneIsTheSessionsAndExportsKeepTheOffset() throws {
        let target = try timestampsOnServer()
        let server = try PostgresConnection("dbname=\(target.name)")
        try server.execute("ALTER DATABASE \(PostgresDialect().quoted(target.name)) SET timezone = 'Asia/Kolkata'")
        let shown = try Shell.run([target.url, "-e", "mode csv", "-e", "find ts select at where id == 1"])
        #expect(shown.stdout == "at\n2026-03-01 14:30:00+05:30\n", "\(shown.stderr)")
        let (folder, _) = try Shell.chinookCopy()
        for format in ["json", "ndjson", "csv", "tsv"] {
            let file = folder.appendingPathComponent("ts.\(format)").path
            try server.execute("DROP TABLE IF EXISTS ts2; CREATE TABLE ts2 (LIKE ts)")
            // Exported in one zone, imported in another: the same instants.
            let export = try Shell.run([target.url, "-e", "export ts to \(file)"])
            let imported = try Shell.run([target.url, "-e", "import ts2 from \(file)"], environment: ["PGTZ": "America/St_Johns"])
            #expect(export.status == 0 && imported.status == 0, "\(format): \(export.stderr) \(imported.stderr)")
            let same = try target.rows("SELECT count(*) FROM ts JOIN ts2 USING (id) WHERE ts.at IS NOT DISTINCT FROM ts2.at "
                                       + "AND ts.plain IS NOT DISTINCT FROM ts2.plain")
            #expect(same == [[.integer(3)]], "\(format)")
        }
        let csv = try String(contentsOfFile: folder.appendingPathComponent("ts.csv").path, encoding: .utf8)
        #expect(csv.contains("\"2026-07-01 18:00:00.25+05:30\""), "\(csv)")
    }
}
