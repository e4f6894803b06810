import Foundation
import Testing
import PortalEngine
import PortalPostgres

/// PostgreSQL's `numeric` digit for digit: shown with its scale, compared in `numeric` (never
/// through a double), summed and averaged exactly, written from literals and `let` variables,
/// exported and imported in every format, and edited in the browser without loss. Each answer
/// is checked against the server's own text (`::text`, as psql shows it). Part of the
/// serialized PostgresShellTests.
extension PostgresShellTests {
    /// A database with `t (id, n numeric(30,10))` holding the values psql shows as below.
    private func decimalsOnServer() throws -> CopyToTests.TargetDatabase {
        let target = try CopyToTests.TargetDatabase()
        let server = try PostgresConnection("dbname=\(target.name)")
        try server.execute("""
            CREATE TABLE t (id int PRIMARY KEY, n numeric(30,10), plain numeric);
            INSERT INTO t VALUES (1, 12345678901234567890.0123456789, 4.10), (2, -0.0000000001, 0.00),
                (3, 4.1, 'NaN'), (4, NULL, 123456789012345678901234567890), (5, 0, -0.5);
            """)
        return target
    }

    /// The server's text of every row of `table`, as psql shows it.
    private func serverText(_ target: CopyToTests.TargetDatabase, _ table: String) throws -> [[Value]] {
        try target.rows("SELECT string_agg(concat_ws('|', id, coalesce(n::text, 'NULL'), coalesce(plain::text, 'NULL')), ' ' ORDER BY id) FROM \(table)")
    }

    @Test func numericIsShownComparedAndSummedDigitForDigit() throws {
        let target = try decimalsOnServer()
        let run = try Shell.run([target.url, "-e", "mode csv", "-e", "find t sort by id",
                                 "-e", "count t where n == 12345678901234567890.0123456780",
                                 "-e", "count t where n == 12345678901234567890.0123456789",
                                 "-e", "count t where n > 12345678901234567890.01",
                                 "-e", "count t where plain == 4.1",
                                 "-e", "find t select sum(n), average(n), max(n)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            id,n,plain
            1,12345678901234567890.0123456789,4.10
            2,-0.0000000001,0.00
            3,4.1000000000,NaN
            4,,123456789012345678901234567890
            5,0.0000000000,-0.5
            0
            1
            1
            1
            sum(n),average(n),max(n)
            12345678901234567894.1123456788,3086419725308641973.5280864197,12345678901234567890.0123456789

            """)
        // The literal reaches the server as numeric: no column is read as a double.
        let explain = try Shell.run([target.url, "-e", "mode line", "-e", "explain count t where n > 12345678901234567890.01",
                                     "-e", "explain count t where n > 0.5"])
        #expect(explain.status == 0, "\(explain.stderr)")
        #expect(explain.stdout.contains("n > 12345678901234567890.01") && explain.stdout.contains("n > 0.5"), "\(explain.stdout)")
        #expect(!explain.stdout.contains("double precision"), "\(explain.stdout)")
    }

    @Test func numericIsWrittenFromLiteralsAndVariablesDigitForDigit() throws {
        let target = try decimalsOnServer()
        let run = try Shell.run([target.url, "-e", "create t set id = 6, n = 12345678901234567890.0123456789, plain = 1.50",
                                 "-e", "update t set n = -99999999999999999999.9999999999 where id == 5",
                                 "-e", "let $x = 12345678901234567890.5", "-e", "create t set id = 7, plain = $x",
                                 // A double's every digit too (float8 into numeric would keep 15).
                                 "-e", "update t set plain = 0.30000000000000004 where id == 2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try target.rows("SELECT string_agg(concat_ws('|', id, n, plain), ' ' ORDER BY id) FROM t WHERE id >= 5") == [[
            .text("5|-99999999999999999999.9999999999|-0.5 6|12345678901234567890.0123456789|1.50 7|12345678901234567890.5"),
        ]])
        #expect(try target.rows("SELECT plain::text FROM t WHERE id = 2") == [[.text("0.30000000000000004")]])
    }

    @Test func numericSurvivesExportAndImportInEveryFormat() throws {
        let target = try decimalsOnServer()
        let server = try PostgresConnection("dbname=\(target.name)")
        let (folder, _) = try Shell.chinookCopy()
        let original = try serverText(target, "t")
        for format in ["json", "ndjson", "csv", "tsv"] {
            let file = folder.appendingPathComponent("t.\(format)").path
            try server.execute("DROP TABLE IF EXISTS t2; CREATE TABLE t2 (LIKE t)")
            let run = try Shell.run([target.url, "-e", "export t to \(file)", "-e", "import t2 from \(file)"])
            #expect(run.status == 0, "\(format): \(run.stderr)")
            #expect(try serverText(target, "t2") == original, "\(format)")
        }
        let json = try String(contentsOfFile: folder.appendingPathComponent("t.json").path, encoding: .utf8)
        #expect(json.contains(#"{"id":1,"n":12345678901234567890.0123456789,"plain":4.10}"#), "\(json)")
    }

    @Test func aNumericCellEditedWithoutAChangeAndUndoneKeepsEveryDigit() throws {
        let target = try decimalsOnServer()
        let before = try serverText(target, "t")
        let s = try BrowserSession(copyChinook: false)
        s.database = target.url
        try s.start(["--entity", "t"])
        try s.waitFor("12345678901234567890.0123456789")
        // Row 1's n: opened and entered as it is.
        try s.type("le")
        try s.press("Enter")
        try s.waitFor("updated t.n")
        #expect(try serverText(target, "t") == before)
        // A change undone comes back exactly.
        try s.editCell(moving: "", to: "1.5", saying: "updated t.n")
        #expect(try target.rows("SELECT n::text FROM t WHERE id = 1") == [[.text("1.5000000000")]])
        try s.type("u")
        try s.waitFor("undone")
        #expect(try serverText(target, "t") == before)
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }
}
