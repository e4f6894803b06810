import Testing
@testable import PortalShell
import PortalEngine

@Suite struct CommandParserTests {
    func parse(_ text: String) throws -> Command? { try CommandParser.parse(text) }

    @Test func findWithEveryClause() throws {
        let command = try parse("find Track where Milliseconds > 300000 AND Name BEGINSWITH \"A\" sort by Name desc, TrackId limit 5 offset 10")
        guard case .find(let query) = command else { Issue.record("not a find: \(String(describing: command))"); return }
        #expect(query.entity.value == "Track")
        #expect(query.entity.range == 5..<10)
        #expect(query.predicate == PredicateText("Milliseconds > 300000 AND Name BEGINSWITH \"A\"", offset: 17))
        #expect(query.sort.map(\.value) == [SortKey("Name", ascending: false), SortKey("TrackId")])
        #expect(query.limit == 5)
        #expect(query.offset == 10)
    }

    @Test func predicateTextIsVerbatimIncludingRealmClauses() throws {
        let command = try parse("find Track where Name ==[cd] 'x' SORT(Name ASC) LIMIT(3)")
        guard case .find(let query) = command else { Issue.record("not a find"); return }
        #expect(query.predicate?.text == "Name ==[cd] 'x' SORT(Name ASC) LIMIT(3)")
        #expect(query.limit == nil)
    }

    @Test func keywordsAreCaseInsensitive() throws {
        let command = try parse("FIND Track WHERE TrackId < 3 SORT BY Name ASC LIMIT 2")
        guard case .find(let query) = command else { Issue.record("not a find"); return }
        #expect(query.predicate?.text == "TrackId < 3")
        #expect(query.limit == 2)
    }

    @Test func firstCountGet() throws {
        #expect(try parse("first Album sort by Title") == .first(Query(entity: Located("Album", 6..<11), sort: [Located(SortKey("Title"), 20..<25)])))
        #expect(try parse("count Track") == .count(Located("Track", 6..<11), nil))
        #expect(try parse("count Track where GenreId == 1") == .count(Located("Track", 6..<11), PredicateText("GenreId == 1", offset: 18)))
        #expect(try parse("get PlaylistTrack 1, 3402") == .get(Located("PlaylistTrack", 4..<17), [.value(.integer(1)), .value(.integer(3402))]))
        #expect(try parse("get Artist $id") == .get(Located("Artist", 4..<10), [.variable("id")]))
    }

    @Test func explainWrapsACommand() throws {
        #expect(try parse("explain count Track") == .explain(.count(Located("Track", 14..<19), nil)))
    }

    @Test func writes() throws {
        let create = try parse("create Artist set Name = \"Ünïcode\", ArtistId = 9000")
        guard case .create(let entity, let values) = create else { Issue.record("not a create"); return }
        #expect(entity.value == "Artist")
        #expect(values.map(\.key.value) == ["Name", "ArtistId"])
        #expect(values[0].value == PredicateText("\"Ünïcode\"", offset: 25))
        let update = try parse("update Track set Milliseconds = Milliseconds + 1000 where TrackId == 1")
        guard case .update(_, let sets, let predicate) = update else { Issue.record("not an update"); return }
        #expect(sets[0].value.text == "Milliseconds + 1000")
        #expect(predicate.text == "TrackId == 1")
        guard case .delete(_, let p) = try parse("delete Track where TRUEPREDICATE") else { Issue.record("not a delete"); return }
        #expect(p.text == "TRUEPREDICATE")
        guard case .upsert = try parse("upsert Genre set GenreId = 1, Name = 'Rock'") else { Issue.record("not an upsert"); return }
    }

    @Test func updateAndDeleteRequireWhere() {
        #expect(throws: ShellError.self) { try parse("update Track set Name = 'x'") }
        #expect(throws: ShellError.self) { try parse("delete Track") }
        do {
            _ = try CommandParser.parse("delete Track")
        } catch {
            #expect(error.message.contains("where TRUEPREDICATE"))
        }
    }

    @Test func importExport() throws {
        #expect(throws: ShellError.self) { try parse("import Artist from /tmp/a b.csv") }
        #expect(try parse("import Artist from \"/tmp/a b.csv\" as tsv") == .importData(Located("Artist", 7..<13), path: "/tmp/a b.csv", .tsv))
        guard case .export(let query, let path, let format) = try parse("export Track where GenreId == 1 sort by Name to /tmp/out.json") else {
            Issue.record("not an export"); return
        }
        #expect(query.predicate?.text == "GenreId == 1")
        #expect(path == "/tmp/out.json")
        #expect(format == nil)
    }

    @Test func sessionCommandsAndDotForms() throws {
        #expect(try parse(".mode csv") == .mode(.csv))
        #expect(try parse("mode JSON") == .mode(.json))
        #expect(try parse(".headers off") == .headers(false))
        #expect(try parse("timer on") == .timer(true))
        #expect(try parse("null (none)") == .null("(none)"))
        #expect(try parse("output /tmp/x.txt") == .output("/tmp/x.txt"))
        #expect(try parse("output stdout") == .output(nil))
        #expect(try parse(".read script.txt") == .read("script.txt"))
        #expect(try parse("open other.db") == .open("other.db"))
        #expect(try parse("let $name = 'AC/DC'") == .setVariable("name", .value(.text("AC/DC"))))
        #expect(try parse("let $n = -3.5") == .setVariable("n", .value(.real(-3.5))))
        #expect(try parse("vars") == .variables)
        #expect(try parse(".schema") == .schema(nil, sql: false))
        #expect(try parse(".quit") == .quit)
        #expect(try parse("exit") == .quit)
        #expect(try parse("begin") == .begin)
        #expect(try parse("COMMIT") == .commit)
        #expect(try parse("rollback") == .rollback)
        #expect(try parse("generate swift Track Album") == .generateSwift([Located("Track", 15..<20), Located("Album", 21..<26)]))
        #expect(try parse("sql SELECT 1, 'a;b'") == .sql("SELECT 1, 'a;b'"))
        #expect(try parse("help find") == .help("find"))
        #expect(try parse("browse Track where GenreId == 1") != nil)
        #expect(try parse("entities") == .entities)
    }

    @Test func errorsPointAtTheProblem() {
        #expect(throws: ShellError("unknown command 'fnd' (did you mean 'find'?)", 0..<3)) { try parse("fnd Track") }
        #expect(throws: ShellError("unknown format 'xml' (expected table, csv, tsv, json, ndjson, line, markdown)", 5..<8)) {
            try parse("mode xml")
        }
        #expect(throws: ShellError("unterminated string", 17..<21)) { try parse("find Track where 'abc") }
        #expect(throws: ShellError("expected a predicate after 'where'", 16..<17)) { try parse("find Track where") }
        #expect(throws: ShellError("unexpected 'junk'", 11..<15)) { try parse("find Track junk") }
    }

    @Test func emptyInputIsNoCommand() throws {
        #expect(try parse("   ") == nil)
    }
}

@Suite struct InputSplitterTests {
    @Test func semicolonsAndNewlinesEndCommands() {
        let (commands, pending) = InputSplitter.split("count Track; count Album\nentities\n\n")
        #expect(commands == ["count Track", "count Album", "entities"])
        #expect(pending == nil)
    }

    @Test func openQuotesAndBracketsContinue() {
        #expect(InputSplitter.split("find Track where Name == \"a;\nb\"").commands == ["find Track where Name == \"a;\nb\""])
        let open = InputSplitter.split("find Track where (GenreId == 1\n")
        #expect(open.commands.isEmpty)
        #expect(open.pending == "find Track where (GenreId == 1\n")
        #expect(InputSplitter.split("find Track where GenreId IN {1,\n2}").commands == ["find Track where GenreId IN {1,\n2}"])
        #expect(InputSplitter.split("find T where a == 'it\\'s'; count T").commands == ["find T where a == 'it\\'s'", "count T"])
    }

    @Test func commentsAreSkipped() {
        #expect(InputSplitter.split("-- a comment\ncount Track\n# another\n").commands == ["count Track"])
    }
}
