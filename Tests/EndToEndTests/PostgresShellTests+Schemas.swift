import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPostgres

/// Tables in several schemas, the search path, and the listings a psql user reaches for
/// (`schemas`, `databases`, `describe`), through the real binary against the test server. Part
/// of the serialized PostgresShellTests.
extension PostgresShellTests {
    /// Films in `public`, order lines and another `film` in `sales`, a table in `archive`.
    private func schemasOnServer() throws -> CopyToTests.TargetDatabase {
        let target = try CopyToTests.TargetDatabase()
        try PostgresConnection("dbname=\(target.name)").execute("""
            CREATE TABLE film (film_id int PRIMARY KEY, title text NOT NULL CHECK (title <> ''));
            INSERT INTO film VALUES (1, 'Alien'), (2, 'Brazil'), (3, 'Casablanca');
            CREATE SCHEMA sales;
            CREATE TABLE sales."OrderLines" (id int PRIMARY KEY, film_id int REFERENCES film, qty int);
            CREATE INDEX lines_by_film ON sales."OrderLines" (film_id);
            INSERT INTO sales."OrderLines" VALUES (1, 1, 3), (2, 1, 4), (3, 2, 5);
            CREATE TABLE sales.film (id int PRIMARY KEY, name text);
            INSERT INTO sales.film VALUES (10, 'sales film');
            CREATE SCHEMA archive;
            CREATE TABLE archive.old (n int);
            """)
        return target
    }

    /// A table outside the search path is named with its schema, each part quoted or not, as
    /// psql names it; relationships cross schemas; `public.film` names the `film` on the path.
    @Test func entitiesInOtherSchemasAreNamedWithTheirSchema() throws {
        let target = try schemasOnServer()
        let run = try Shell.run([target.url, "-e", "entities", "-e", "count sales.\"OrderLines\"",
                                 "-e", "count \"sales\".\"OrderLines\" where film.title == 'Alien'",
                                 "-e", "count sales.OrderLines where qty > 3", "-e", "find sales.film",
                                 "-e", "find public.film select title where orderLines.@count > 1",
                                 "-e", "update sales.OrderLines set qty = qty + 10 where id == 3",
                                 "-e", "count archive.old"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            entity\tkind\trows\tattributes
            film\ttable\t3\t2
            archive.old\ttable\t0\t1
            sales.OrderLines\ttable\t3\t3
            sales.film\ttable\t1\t2
            3
            2
            2
            id\tname
            10\tsales film
            title
            Alien
            0

            """, "\(run.stdout)")
        #expect(try target.rows("SELECT qty FROM sales.\"OrderLines\" WHERE id = 3") == [[.integer(15)]])
        let unknown = try Shell.run([target.url, "-e", "count sales.nothing"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("error: unknown entity 'sales.nothing'"), "\(unknown.stderr)")
    }

    /// `sql SET search_path` changes what names mean for the commands and raw SQL after it, on
    /// every connection of the session (reads run on others than the one that set it); `RESET`
    /// goes back.
    @Test func theSearchPathSetBySQLNamesTheEntitiesAfterIt() throws {
        let target = try schemasOnServer()
        let run = try Shell.run([target.url, "-e", "sql SET search_path TO sales, public", "-e", "entities",
                                 "-e", "find film", "-e", "sql SELECT qty FROM \"OrderLines\" WHERE id = 1",
                                 "-e", "count public.film", "-e", "sql RESET search_path", "-e", "find film select title limit 1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            entity\tkind\trows\tattributes
            OrderLines\ttable\t3\t3
            film\ttable\t1\t2
            public.film\ttable\t3\t2
            archive.old\ttable\t0\t1
            id\tname
            10\tsales film
            qty
            3
            3
            title
            Alien

            """, "\(run.stdout)")
        // A search path given when connecting is honoured the same way.
        let given = try Shell.run([target.url + "&options=-c%20search_path%3Darchive", "-e", "entities"])
        #expect(given.stdout.hasPrefix("entity\tkind\trows\tattributes\nold\ttable\t0\t1\n"), "\(given.stdout)")
    }

    /// `schemas` (psql's `\dn`), `databases` (`\l`) and `describe E` (`\d E`).
    @Test func schemasDatabasesAndDescribeListWhatPsqlLists() throws {
        let target = try schemasOnServer()
        let run = try Shell.run([target.url, "-e", "schemas", "-e", "mode table", "-e", "describe sales.OrderLines"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("schema\towner\tentities\tsearch_order\npublic\t"), "\(run.stdout)")
        #expect(run.stdout.contains("\t1\t1\narchive\tpostgres\t1\t\nsales\tpostgres\t2\t\n"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("""
            sales.OrderLines (table)
            column  | type    | nullable | default
            --------+---------+----------+--------
            id      | integer | no       | 
            film_id | integer | yes      | 
            qty     | integer | yes      | 

            index           | columns | unique
            ----------------+---------+-------
            OrderLines_pkey | id      | yes
            lines_by_film   | film_id | no

            constraint  | definition
            ------------+------------------------------------------------
            primary key | PRIMARY KEY (id)
            foreign key | FOREIGN KEY (film_id) REFERENCES film (film_id)

            """), "\(run.stdout)")
        let film = try Shell.run([target.url, "-e", "describe film"])
        #expect(film.stdout.contains("\tcheck\tCONSTRAINT film_title_check CHECK ((title <> ''::text))\t"),
                "\(film.stdout)")
        #expect(film.stdout.contains("\tsales.OrderLines\tsales.OrderLines.film_id\n"), "\(film.stdout)")
        let databases = try Shell.run([target.url, "-e", "databases"])
        #expect(databases.status == 0, "\(databases.stderr)")
        let lines = databases.stdout.split(separator: "\n")
        #expect(lines.first == "database\towner\tencoding\tcollation\tcurrent")
        #expect(lines.contains { $0.hasPrefix(target.name + "\t") && $0.hasSuffix("\tyes") }, "\(databases.stdout)")
        #expect(lines.contains { $0.hasPrefix("postgres\t") && !$0.hasSuffix("\tyes") }, "\(databases.stdout)")
    }

    /// A copy into an SQLite file, which has one namespace, takes the tables the search path
    /// finds (two tables named `film` cannot both be there).
    @Test func aCopyToSQLiteTakesTheTablesOnTheSearchPath() throws {
        let target = try schemasOnServer()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schemas-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("copy.sqlite").path
        let run = try Shell.run([target.url, "--copy-to", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "film\t3\n", "\(run.stdout)")
    }

    /// A second schema on the search path: its partitioned table is copied once, with the rows
    /// of every partition, and its view comes along, as the tables of that path do.
    @Test func aCopyToSQLiteTakesPartitionsAndViewsOfTheWholeSearchPath() throws {
        let target = try CopyToTests.TargetDatabase()
        try PostgresConnection("dbname=\(target.name)").execute("""
            CREATE SCHEMA s2;
            ALTER DATABASE \(target.name) SET search_path = public, s2;
            CREATE TABLE s2.ledger (id int NOT NULL, year int NOT NULL) PARTITION BY RANGE (year);
            CREATE TABLE s2.ledger_old PARTITION OF s2.ledger FOR VALUES FROM (2000) TO (2020);
            CREATE TABLE s2.ledger_new PARTITION OF s2.ledger FOR VALUES FROM (2020) TO (2100);
            INSERT INTO s2.ledger VALUES (1, 2010), (2, 2021), (3, 2022);
            CREATE VIEW s2.recent AS SELECT id FROM s2.ledger WHERE year >= 2020;
            """)
        let (folder, _) = try Shell.chinookCopy()
        let path = folder.appendingPathComponent("copy.sqlite").path
        let run = try Shell.run([target.url, "--copy-to", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "ledger\t3\n", "\(run.stdout)")
        let recent = try Spawn.run("/usr/bin/sqlite3", [path, "SELECT group_concat(id) FROM recent"])
        #expect(recent.trimmingCharacters(in: .whitespacesAndNewlines) == "2,3", "\(run.stderr)")
    }
}
