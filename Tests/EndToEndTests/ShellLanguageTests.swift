import Foundation
import Testing

/// Names and quoting, relationships, the prompt, `sql`, scripts, and
/// generated Swift, through the real binary.
@Suite struct ShellLanguageTests: ChinookCopySuite {
    let db: String
    let folder: URL

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A database with the names that need quoting: spaces, non-ASCII letters.
    func quirkyDatabase() throws -> String {
        let path = folder.appendingPathComponent("quirky.sqlite").path
        let r = try Shell.run([path, "--create", "-e", """
            sql CREATE TABLE "Ünïcödé Tâble" (id INTEGER PRIMARY KEY, "full name" TEXT, "Order ID" INTEGER); \
            sql INSERT INTO "Ünïcödé Tâble" VALUES (1, 'Al', 5), (2, 'Bo', 6); \
            sql CREATE TABLE Line (id INTEGER PRIMARY KEY, owner INTEGER REFERENCES "Ünïcödé Tâble" (id), "Order ID" INTEGER); \
            sql INSERT INTO Line VALUES (1, 1, 9), (2, 2, 8)
            """])
        #expect(r.status == 0, "\(r.stderr)")
        return path
    }

    // MARK: point 6

    @Test func quotedNameComparedWithANumberWarns() throws {
        let r = try run("count Track where \"Milliseconds\" > 300000")
        #expect(r.stderr.contains("warning: \"Milliseconds\" is a string here; for the attribute write Milliseconds"))
        let explain = try run("explain count Track where \"Milliseconds\" > 300000")
        #expect(explain.stdout.contains("warning: \"Milliseconds\" is a string here"))
        // Text compared with text is what was meant: no warning.
        #expect(try run("count Track where Name == \"Name\"").stderr.isEmpty)
        let quirky = try quirkyDatabase()
        let spaced = try Shell.run([quirky, "-e", "count Line where \"Order ID\" == 9"])
        #expect(spaced.stderr.contains("for the attribute write #\"Order ID\""))
    }

    // MARK: point 7

    @Test func oneQuotingRuleInEveryClause() throws {
        let quirky = try quirkyDatabase()
        let csv = ["--format", "csv", "--no-header"]
        #expect(try Shell.run([quirky, "-e", "find #\"Ünïcödé Tâble\" where #\"Order ID\" == 5"] + csv).stdout == "1,Al,5\n")
        let set = try Shell.run([quirky, "-e", "update Line set #\"Order ID\" = #\"Order ID\" + 1 where owner.#\"full name\" == 'Al'"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try Shell.run([quirky, "-e", "find Line sort by owner.#\"full name\" desc, #\"Order ID\""] + csv).stdout
                == "2,2,8\n1,1,10\n")
        let created = try Shell.run([quirky, "-e", "create #\"Ünïcödé Tâble\" set #\"full name\" = 'Cy', #\"Order ID\" = 7"] + csv)
        #expect(created.stdout == "3,Cy,7\n", "\(created.stderr)")
        let generated = try Shell.run([quirky, "-e", "generate swift"])
        #expect(generated.stdout.contains("#\"Ünïcödé Tâble\""))
        #expect(generated.stdout.contains("#\"Order ID\""))
    }

    // MARK: point 8

    @Test func relationshipNamesAndRelate() throws {
        let path = folder.appendingPathComponent("places.sqlite").path
        let made = try Shell.run([path, "--create", "-e", """
            sql CREATE TABLE regions (id INTEGER PRIMARY KEY, name TEXT); \
            sql CREATE TABLE cities (id INTEGER PRIMARY KEY, name TEXT, region_id INTEGER REFERENCES regions (id), region TEXT); \
            sql CREATE TABLE persons (id INTEGER PRIMARY KEY, name TEXT, city INTEGER); \
            sql INSERT INTO regions VALUES (1, 'North'), (2, 'South'); \
            sql INSERT INTO cities VALUES (1, 'Oslo', 1, 'n'), (2, 'Bergen', 1, 'w'); \
            sql INSERT INTO persons VALUES (1, 'Ada', 1), (2, 'Bo', 2), (3, 'Cy', 2)
            """])
        #expect(made.status == 0, "\(made.stderr)")
        let environment = ["XDG_CONFIG_HOME": folder.appendingPathComponent("config").path]
        let csv = ["--format", "csv", "--no-header"]
        // `cities` is already plural; `region` is an attribute, so the to-one is `regionRef`.
        let schema = try Shell.run([path, "-e", "schema cities", "--format", "csv"])
        // (csv: one table, a row per relationship: entity, section, name, kind, …, destination, via)
        #expect(schema.stdout.contains("cities,relationships,regionRef,to-one,,,,,,,,regions,region_id,"))
        #expect(try Shell.run([path, "-e", "schema regions", "--format", "csv"]).stdout
                .contains("regions,relationships,cities,to-many,,,,,,,,cities,cities.region_id,"))
        #expect(try Shell.run([path, "-e", "count regions where cities.@count > 1"] + csv).stdout == "1\n")
        #expect(try Shell.run([path, "-e", "find cities where regionRef.name == 'North' sort by id"] + csv).stdout
                == "1,Oslo,1,n\n2,Bergen,1,w\n")

        // No declared foreign key from persons.city: relate makes one, saved for the next run.
        let related = try Shell.run([path, "-e", "relate persons.city -> cities"], environment: environment)
        #expect(related.status == 0, "\(related.stderr)")
        #expect(related.stderr.contains("persons.cityRef (to-one), cities.persons (to-many)"))
        let later = try Shell.run([path, "-e", "count persons where cityRef.name == 'Bergen'; count cities where persons.@count > 1"] + csv,
                                  environment: environment)
        #expect(later.stdout == "2\n1\n", "\(later.stderr)")
        let listed = try Shell.run([path, "-e", "relate"] + csv, environment: environment)
        #expect(listed.stdout == "persons,city,cities,cityRef,persons\n")
        #expect(try Shell.run([path, "-e", "unrelate persons.city"], environment: environment).status == 0)
        #expect(try Shell.run([path, "-e", "count persons where cityRef.name == 'Bergen'"], environment: environment).status != 0)
    }

    // MARK: point 9

    @Test func tabNeverRemovesTextAndQuotesNames() throws {
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        // Al: ALL, Album, AlbumId. libedit's case-sensitive common prefix made it `A`.
        try session.type("find Track where Al")
        try session.press("Tab")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try session.screen().contains("chinook> find Track where Al"))
        try session.complete("bum.Ti", to: "where Album.Title")
        try session.press("C-u")
        // To-many key paths, sort by and set.
        try session.complete("find Album where tracks.Milli", to: "where tracks.Milliseconds")
        try session.complete("> 0 sort by Ti", to: "sort by Title")
        try session.press("C-u")
        try session.complete("update Genre set Na", to: "update Genre set Name")
        try session.press("C-u")

        let spaced = try TmuxSession(arguments: [try quirkyDatabase()], home: folder)
        try spaced.waitFor("quirky>")
        for (typed, expected) in [("find Ün", "find #\"Ünïcödé Tâble\""), ("where fu", "where #\"full name\""),
                                  (" == 'Al' sort by #\"Or", "sort by #\"Order ID\"")] {
            try spaced.complete(typed, to: expected)
        }
        try spaced.press("Enter")
        try spaced.waitFor("| Al ")
        Thread.sleep(forTimeInterval: 0.2)   // the next prompt
        try spaced.complete("find Line where owner.fu", to: "where owner.#\"full name\"")
        try spaced.press("C-u")
        try spaced.complete("find Line where ownerRef.fu", to: "where ownerRef.#\"full name\"")
    }

    // MARK: point 10

    @Test func selectAtThePromptSuggestsSql() throws {
        let session = try TmuxSession(arguments: [db], home: folder)
        try session.waitFor("chinook>")
        try session.type("SELECT count(*) FROM Genre")
        try session.press("Enter")
        let screen = try session.waitFor("sql SELECT")
        #expect(screen.contains("unknown command 'select': for SQL write 'sql SELECT …'"))
    }

    // MARK: point 11

    @Test func triggerBodyStaysWhole() throws {
        let r = try run("sql CREATE TRIGGER g AFTER INSERT ON Genre BEGIN UPDATE Genre SET Name = 'x' || Name WHERE GenreId = new.GenreId; END; "
                        + "create Genre set Name = 'y'; count Genre where Name == 'xy'")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("1\n"))
        // Over several lines at the prompt's pace (standard input), too.
        let lines = try Shell.run([db], input: "sql CREATE TRIGGER h AFTER DELETE ON Genre BEGIN\n  SELECT 1;\nEND\ncount Genre\n")
        #expect(lines.status == 0, "\(lines.stderr)")
    }

    /// Raw SQL keeps SQL's quoting: a backslash in a string is a character (`'a\'`), and a
    /// quote is doubled (`'it''s'`), not escaped as in the command language.
    @Test func sqlStringsFollowSQLsQuoting() throws {
        let r = try Shell.run([db, "-e", #"sql SELECT 'a\' AS a, 'it''s' AS b, "x\y" AS c FROM (SELECT 1 AS "x\y")"#])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "a\tb\tc\na\\\\\tit's\t1\n", "\(r.stdout)")
        let piped = try Shell.run([db], input: "sql SELECT 'C:\\' AS path\ncount Genre\n")
        #expect(piped.stdout == "path\nC:\\\\\n25\n", "\(piped.stdout)")
    }

    @Test func statementAfterACommentIsNotDropped() throws {
        let r = try run("sql DELETE FROM Genre WHERE 0 /* ( */; DELETE FROM Genre; /* ) */")
        // The second statement is not run silently as part of the first, nor dropped: it is a
        // command of its own, which fails loudly (delete needs where).
        #expect(r.status != 0)
        #expect(r.stderr.contains("delete needs 'where'"))
        #expect(try run("count Genre").stdout == "25\n")
    }

    @Test func vacuumAndAttach() throws {
        let vacuum = try run("sql VACUUM")
        #expect(vacuum.status == 0, "\(vacuum.stderr)")
        #expect(vacuum.stderr == "ok\n")
        let other = folder.appendingPathComponent("other.sqlite").path
        _ = try Shell.run([other, "--create", "-e", "sql CREATE TABLE t (a); sql INSERT INTO t VALUES (7)"])
        let attach = try run("sql ATTACH '\(other)' AS o; sql SELECT a FROM o.t; sql DETACH o", ["--format", "csv"])
        #expect(attach.status == 0, "\(attach.stderr)")
        #expect(attach.stdout == "a\n7\n")
        #expect(attach.stderr.contains("attached '\(other)' as o"))
        #expect(attach.stderr.contains("detached o"))
    }

    // MARK: point 12

    @Test func variablesBindByName() throws {
        let r = try run("sql SELECT $n AS a, :n AS b, @n AS c", ["-p", "n=7", "--format", "csv"])
        #expect(r.stdout == "a,b,c\n7,7,7\n")
        let unbound = try run("sql SELECT $missing")
        #expect(unbound.status != 0)
        #expect(unbound.stderr.contains("$missing"))
        let limit = try run("find Genre sort by GenreId limit $n offset $n", ["-p", "n=2", "--format", "csv", "--no-header"])
        #expect(limit.stdout == "3,Metal\n4,Alternative & Punk\n")
        let sqlLimit = try run("sql SELECT GenreId FROM Genre ORDER BY GenreId LIMIT $n", ["-p", "n=2", "--format", "csv", "--no-header"])
        #expect(sqlLimit.stdout == "1\n2\n")
    }

    // MARK: point 13

    @Test func scriptErrorsNameFileAndLine() throws {
        let script = try write("script.portal", "count Genre\n\nfind Nope\n")
        let file = try Shell.run([db, "-f", script])
        #expect(file.stderr.hasPrefix("\(script):3: error: unknown entity 'Nope'"))
        let read = try run("read \(script)")
        #expect(read.stderr.hasPrefix("\(script):3: error: unknown entity 'Nope'"))
    }

    @Test func importHeaderErrorAtLine1() throws {
        let csv = try write("g.csv", "Nme\nBlues\n")
        let r = try run("import Genre from \(csv)")
        #expect(r.stderr.contains("g.csv, line 1: unknown attribute 'Nme'"))
    }

    @Test func readOnlySaysNothingWasWrittenOnce() throws {
        let r = try Shell.run(["--read-only", db, "-e", "create Genre set Name = 'x'"])
        #expect(r.stderr.components(separatedBy: "nothing was written").count == 2, "\(r.stderr)")
    }

    @Test func oneByteBlob() throws {
        let r = try run("sql SELECT x'00' AS b", ["--format", "table"])
        #expect(r.stdout.contains("<blob 1 byte>"))
        #expect(!r.stdout.contains("bytes"))
    }

    @Test func helpPointsAtTheManPage() throws {
        let r = try run("help")
        #expect(!r.stdout.contains(".md"))
        #expect(r.stdout.contains("man portal-shell"))
    }
}

extension TmuxSession {
    /// Types `text`, presses Tab, and waits for `expected` on the screen.
    func complete(_ text: String, to expected: String) throws {
        try type(text)
        try press("Tab")
        try waitFor(expected)
    }
}
