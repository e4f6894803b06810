import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPostgres

/// What a psql user does on a server database, run through the real binary against the test
/// server: raw transaction control, the server's own errors with their detail and hint, raw SQL
/// parameters, connection strings, dates and long lists in predicates, `entities` and `schema`,
/// the connections' names and states, a statement timeout's exit status. Part of the serialized
/// PostgresShellTests: one more suite of processes waited for beside it would hold another of
/// the few threads the async tests share.
extension PostgresShellTests {
    /// A database of films, with a generated column, an identity and a unique key.
    private func filmsOnServer() throws -> CopyToTests.TargetDatabase {
        let target = try CopyToTests.TargetDatabase()
        try PostgresConnection("dbname=\(target.name)").execute("""
            CREATE TABLE film (film_id int PRIMARY KEY, title text NOT NULL,
                               rating int CHECK (rating BETWEEN 1 AND 5), last_update timestamptz NOT NULL,
                               release date, shown timestamp, length int);
            INSERT INTO film SELECT g, 'film ' || g, g % 5 + 1, timestamptz '2007-03-01' + g * interval '1 day',
                                    date '2006-01-01' + g, timestamp '2007-01-01' + g * interval '1 hour', g % 180
                             FROM generate_series(1, 100) g;
            CREATE TABLE ident (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text UNIQUE);
            INSERT INTO ident (name) VALUES ('first');
            CREATE TABLE doubled (a int, g int GENERATED ALWAYS AS (a * 2) STORED);
            """)
        return target
    }

    private func title(_ id: Int, in target: CopyToTests.TargetDatabase) throws -> [[Value]] {
        try target.rows("SELECT title FROM film WHERE film_id = \(id)")
    }

    /// `sql BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT` and `RELEASE` would end or nest the shell's
    /// own transaction behind its back: they are refused, on the server as on a file, and what
    /// the shell then says about the user's transaction is true.
    @Test func rawTransactionControlIsRefusedAndTheShellsTransactionStaysWhole() throws {
        let target = try filmsOnServer()
        for statement in ["BEGIN", "START TRANSACTION", "commit", "/* done */ ROLLBACK", "SAVEPOINT a", "RELEASE a", "END"] {
            let run = try Shell.run([target.url, "-e", "sql \(statement)"])
            #expect(run.status == 1, "\(statement)")
            #expect(run.stderr.hasSuffix("is not run as SQL: transactions are begun and ended by the store "
                                          + "(in the shell: begin, commit, rollback)\n"), "\(statement): \(run.stderr)")
        }
        let raw = try Shell.run([target.url, "-e", "sql BEGIN", "-e", "sql UPDATE film SET title = 'x' WHERE film_id = 1",
                                 "-e", "sql ROLLBACK"])
        #expect(raw.status == 1)
        #expect(try title(1, in: target) == [[.text("film 1")]])

        let mixed = try Shell.run([target.url, "-e", "begin", "-e", "update film set title = 'A' where film_id == 2",
                                   "-e", "sql COMMIT", "-e", "update film set title = 'B' where film_id == 3", "-e", "rollback"])
        #expect(mixed.status == 1)
        #expect(mixed.stderr == """
            updated 1 film
            error: COMMIT is not run as SQL: transactions are begun and ended by the store (in the shell: begin, commit, rollback)
            error: the transaction opened by 'begin' was never committed: rolled back, nothing of it was written

            """, "\(mixed.stderr)")
        #expect(try title(2, in: target) == [[.text("film 2")]])
        #expect(try title(3, in: target) == [[.text("film 3")]])
    }

    /// On an SQLite file, `sql ROLLBACK` inside `begin` ended the shell's transaction, and the
    /// writes after it were committed one by one under "nothing of it was written".
    @Test func rawRollbackInsideBeginIsRefusedOnAFileToo() throws {
        let (folder, db) = try Shell.chinookCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Shell.run([db, "-e", "begin", "-e", "update Genre set Name = 'A' where GenreId == 1", "-e", "sql ROLLBACK",
                                 "-e", "update Genre set Name = 'B' where GenreId == 2", "-e", "commit"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: ROLLBACK is not run as SQL"), "\(run.stderr)")
        let genres = try Shell.run([db, "-e", "find Genre select Name where GenreId < 3 sort by GenreId"])
        #expect(genres.stdout == "Name\nRock\nJazz\n", "\(genres.stdout)")
    }

    /// The server's refusal reaches the user as the server said it, once, without its severity,
    /// with its detail and hint on lines of their own; it is not hidden behind "current
    /// transaction is aborted" from sending the statement a second time.
    @Test func theServersOwnMessageDetailAndHintReachTheUser() throws {
        let target = try filmsOnServer()
        let cases: [(command: String, stderr: String)] = [
            ("sql SELECT nosuchcol FROM film", "error: column \"nosuchcol\" does not exist\n"),
            ("sql UPDATE film SET nosuch = 1", "error: column \"nosuch\" of relation \"film\" does not exist\n"),
            ("create doubled set a = 1, g = 5",
             "error: cannot insert a non-DEFAULT value into column \"g\"\ndetail: Column \"g\" is a generated column.\n"),
            ("create ident set id = 99, name = 'x'",
             "error: cannot insert a non-DEFAULT value into column \"id\"\n"
                + "detail: Column \"id\" is an identity column defined as GENERATED ALWAYS.\n"
                + "hint: Use OVERRIDING SYSTEM VALUE to override.\n"),
            ("create ident set name = 'first'",
             "error: ident: UNIQUE constraint failed: ident_name_key; nothing was written\n"
                + "detail: Key (name)=(first) already exists.\n"),
        ]
        for (command, stderr) in cases {
            let run = try Shell.run([target.url, "-e", command])
            #expect(run.status == 1, "\(command)")
            #expect(run.stderr == stderr, "\(command): \(run.stderr)")
        }
        #expect(try target.rows("SELECT count(*) FROM ident") == [[.integer(1)]])
    }

    /// A temporary table lives on the connection that made it: the `sql` statements after it
    /// read there too.
    @Test func aTemporaryTableCanBeReadAfterItIsMade() throws {
        let target = try filmsOnServer()
        let run = try Shell.run([target.url, "-e", "sql CREATE TEMP TABLE picked AS SELECT film_id FROM film WHERE film_id < 4",
                                 "-e", "sql SELECT count(*) AS n FROM picked"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "n\n3\n", "\(run.stdout)")
    }

    /// Parameters of raw SQL take the session's variables: `$1` the one given by `--param 1=…`,
    /// `$n` the one `let $n = …` made; a `$` inside a string or a dollar-quoted body is text.
    @Test func rawSQLParametersTakeTheSessionsVariables() throws {
        let target = try filmsOnServer()
        let numbered = try Shell.run([target.url, "-p", "1=3", "-e", "sql SELECT title FROM film WHERE film_id = $1"])
        #expect(numbered.status == 0, "\(numbered.stderr)")
        #expect(numbered.stdout == "title\nfilm 3\n", "\(numbered.stdout)")
        let named = try Shell.run([target.url, "-e", "let $n = 2",
                                   "-e", "sql SELECT film_id, '$n' AS q, $$ $1 $$ AS d FROM film ORDER BY film_id LIMIT $n"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout == "film_id\tq\td\n1\t$n\t $1 \n2\t$n\t $1 \n", "\(named.stdout)")
        let missing = try Shell.run([target.url, "-e", "sql SELECT title FROM film WHERE film_id = $1"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: no value for the SQL parameter $1 (give it one with let or --param)\n", "\(missing.stderr)")
    }

    /// Dates compared with timestamptz, date and timestamp columns (the man page's own
    /// examples), arithmetic on literals alone, a list of 10,000 values and an OR of 8,000
    /// comparisons.
    @Test func datesArithmeticAndLongListsInPredicates() throws {
        let target = try filmsOnServer()
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("pg-list-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: list) }
        let chain = (1...8_000).map { "film_id == \($0)" }.joined(separator: " OR ")
        try ("count film where film_id IN {\((1...10_000).map(String.init).joined(separator: ", "))}\n"
             + "find film select film_id where (\(chain)) AND film_id > 98 sort by film_id\n")
            .write(toFile: list, atomically: true, encoding: .utf8)
        let run = try Shell.run([target.url,
                                 "-e", #"count film where last_update > CAST("2007-04-01", "NSDate")"#,
                                 "-e", "count film where last_update < now()",
                                 "-e", #"count film where release > CAST("2006-02-01", "NSDate")"#,
                                 "-e", #"count film where shown >= CAST("2007-01-02", "NSDate")"#,
                                 "-e", "count film where film_id * 2 + 10 * 5 > 240",
                                 "-f", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "69\n100\n69\n77\n5\n100\nfilm_id\n99\n100\n", "\(run.stdout)")
    }

    /// libpq's `key=value` connection strings name a server database, as URLs do; the password
    /// in one is not shown.
    @Test func aKeywordValueConnectionStringOpensTheDatabase() throws {
        let target = try filmsOnServer()
        let host = try #require(ProcessInfo.processInfo.environment["PGHOST"])
        let run = try Shell.run(["host=\(host) dbname=\(target.name)", "-e", "count film"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "100\n")
        let missing = try Shell.run(["host=\(host) dbname = 'no such' password='se cret'", "-e", "count film"])
        #expect(missing.status == 3)
        #expect(missing.stderr.hasPrefix("error: cannot open 'host=\(host) dbname='no such'': "), "\(missing.stderr)")
        #expect(missing.stderr.contains("database \"no such\" does not exist"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("se cret"))
    }

    /// `entities` lists every entity when some cannot be counted (a table the role may not
    /// read, a materialized view never populated): those without a count, and why under the list.
    @Test func entitiesListsWhatItCannotCount() throws {
        let target = try filmsOnServer()
        let role = "portal_reader_\(target.name)"
        let admin = try PostgresConnection("dbname=\(target.name)")
        try admin.execute("""
            CREATE MATERIALIZED VIEW later AS SELECT film_id FROM film WITH NO DATA;
            DROP ROLE IF EXISTS \(role); CREATE ROLE \(role) LOGIN;
            GRANT SELECT ON film, ident, later TO \(role);
            """)
        defer { try? admin.execute("DROP OWNED BY \(role); DROP ROLE \(role)") }
        let host = try #require(ProcessInfo.processInfo.environment["PGHOST"])
        let run = try Shell.run(["postgresql://\(role)@/\(target.name)?host=\(host)", "-e", "entities"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            entity\tkind\trows\tattributes
            film\ttable\t100\t7
            ident\ttable\t1\t2
            doubled\ttable\t\t2
            later\tview\t\t1

            """, "\(run.stdout)")
        #expect(run.stderr == """
            note: rows not counted: doubled: permission denied for table doubled
            note: rows not counted: later: materialized view "later" has not been populated

            """, "\(run.stderr)")
    }

    /// `schema` on the server: CHECK constraints, identity and generated columns, defaults and
    /// triggers, and no "without rowid" (no table has row ids there); `get` on a table without a
    /// primary key says so (it is no view).
    @Test func schemaShowsChecksIdentityDefaultsAndTriggers() throws {
        let target = try filmsOnServer()
        try PostgresConnection("dbname=\(target.name)").execute("""
            CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
            CREATE TRIGGER ident_touch BEFORE UPDATE ON ident FOR EACH ROW EXECUTE FUNCTION touch();
            ALTER TABLE ident ADD CONSTRAINT named CHECK (name <> ''), ALTER COLUMN name SET DEFAULT 'someone';
            """)
        let run = try Shell.run([target.url, "-e", "mode json", "-e", "schema ident", "-e", "schema doubled"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == #"""
            {"entity":"ident","kind":"table","withoutRowid":null,"sql":null,"attributes":[{"name":"id","type":"integer","nullable":false,"default":"generated always as identity","id":1,"generated":null},{"name":"name","type":"text","nullable":true,"default":"'someone'::text","id":null,"generated":null}],"relationships":[],"indexes":[{"name":"ident_name_key","columns":["name"],"unique":true},{"name":"ident_pkey","columns":["id"],"unique":true}],"checks":[{"constraint":"CONSTRAINT named CHECK ((name <> ''::text))"}],"triggers":[{"name":"ident_touch","sql":"CREATE TRIGGER ident_touch BEFORE UPDATE ON public.ident FOR EACH ROW EXECUTE FUNCTION touch()"}]}
            {"entity":"doubled","kind":"table","withoutRowid":null,"sql":null,"attributes":[{"name":"a","type":"integer","nullable":true,"default":null,"id":null,"generated":null},{"name":"g","type":"integer","nullable":true,"default":"(a * 2)","id":null,"generated":"stored"}],"relationships":[],"indexes":[],"checks":[],"triggers":[]}

            """#, "\(run.stdout)")
        let text = try Shell.run([target.url, "-e", "mode line", "-e", "schema film"])
        #expect(text.stdout.hasPrefix("film (table)\n"), "\(text.stdout)")
        #expect(text.stdout.contains("CONSTRAINT film_rating_check CHECK (((rating >= 1) AND (rating <= 5)))"), "\(text.stdout)")
        let get = try Shell.run([target.url, "-e", "get doubled 1"])
        #expect(get.status == 1)
        #expect(get.stderr.hasPrefix("error: doubled has no primary key to get by (find doubled where … reads it)\n"), "\(get.stderr)")
    }

    /// The browser's connections carry the program's name, and none stays in a transaction
    /// ("active" or "idle in transaction") once a page is on the screen: a read's end goes by
    /// itself, 2 ms after the read. They are the writer and the readers (at most four): no
    /// connection listens for notifications while no table sends them.
    @Test func theBrowsersConnectionsAreNamedAndIdleBetweenPages() throws {
        let target = try filmsOnServer()
        let s = try BrowserSession(copyChinook: false)
        s.database = target.url
        try s.start(["--entity", "film"])
        try s.waitFor("film  100 rows")
        try s.type("G")
        try s.waitFor("film 100")
        // A background count may still be reading when the page shows: none may *stay* in a
        // transaction, so wait (up to 5 s under a loaded machine) for every one to be idle.
        var sessions: [[Value]] = []
        for _ in 0..<50 {
            Thread.sleep(forTimeInterval: 0.1)
            sessions = try target.rows("""
                SELECT application_name, state FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid() ORDER BY 1, 2
                """)
            if sessions.allSatisfy({ $0 == [.text("portal-shell"), .text("idle")] }) { break }
        }
        #expect(!sessions.isEmpty)
        #expect(sessions.allSatisfy { $0 == [.text("portal-shell"), .text("idle")] }, "\(sessions)")
        // A writer and readers only: no listening connection where no table notifies.
        let listening = try target.rows("""
            SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND query LIKE '%pg_trigger%'
            """)
        #expect(listening == [[.integer(0)]])
        #expect(sessions.count <= 5, "\(sessions)")
        try s.type("q")
        try s.waitFor("BROWSER-EXITED-0")
    }

    /// A statement the server cancels for its `statement_timeout` failed (exit 1); 130 is for
    /// an interrupt (Ctrl-C, SIGTERM).
    @Test func aStatementTimeoutExitsOneNotAsAnInterrupt() throws {
        let target = try filmsOnServer()
        let run = try Shell.run([target.url + "&options=-c%20statement_timeout%3D100", "-e", "sql SELECT pg_sleep(5)"])
        #expect(run.status == 1)
        #expect(run.stderr == "error: canceling statement due to statement timeout\n", "\(run.stderr)")
    }

    /// Raw SQL keeps PostgreSQL's quoting: `E'…'` escapes, a standard string's backslash, dollar
    /// quotes; piped in as on the command line.
    @Test func rawSQLKeepsPostgreSQLsQuoting() throws {
        let target = try filmsOnServer()
        let statement = #"sql SELECT E'it\'s' AS e, 'C:\' AS path, $$a 'b'$$ AS dollars"#
        let run = try Shell.run([target.url, "-e", statement])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "e\tpath\tdollars\nit's\tC:\\\\\ta 'b'\n", "\(run.stdout)")
        let piped = try Shell.run([target.url], input: statement + "\nsql SELECT 1 AS one\n")
        #expect(piped.stdout == run.stdout + "one\n1\n", "\(piped.stdout)")
    }
}
