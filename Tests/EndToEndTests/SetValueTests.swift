import Foundation
import Testing

/// The values of `set` (create, update, upsert) are expressions of the
/// predicate language — one string grammar, the documented functions, its type rules — and
/// nothing is silently mangled.
@Suite struct SetValueTests: ChinookCopySuite {
    let db: String

    init() throws {
        db = try Shell.chinookCopy().database
    }

    /// The value of one attribute of the first matching entity, as `line` output shows it.
    func stored(_ entity: String, _ attribute: String, where predicate: String) throws -> String {
        let lines = try run("first \(entity) where \(predicate)", ["--format", "line"]).stdout.split(separator: "\n")
        let line = lines.first { $0.hasPrefix(attribute + " = ") }
        return line.map { String($0.dropFirst(attribute.count + 3)) } ?? ""
    }

    /// `create` prints the entity as stored: 3 given to a REAL column is the 3.0 stored.
    @Test func createPrintsWhatWasStored() throws {
        _ = try Spawn.run("/usr/bin/env", ["sqlite3", db, "CREATE TABLE Reading (id INTEGER PRIMARY KEY, value REAL)"])
        let r = try run("create Reading set value = 3", ["--format", "csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "id,value\n1,3.0\n", "\(r.stdout)")
    }

    /// A column declared DATETIME has NUMERIC affinity: without the refusal,
    /// `"2024-05-01 10:00:00" + 1` would store 2025.
    @Test func arithmeticOnADateColumnIsAnErrorWhateverItsAffinity() throws {
        _ = try Spawn.run("/usr/bin/env", ["sqlite3", db, """
            CREATE TABLE Event (id INTEGER PRIMARY KEY, number INTEGER, startsAt DATETIME);
            INSERT INTO Event VALUES (1, 0, '2024-05-01 10:00:00');
            """])
        let r = try run("update Event set number = startsAt + 1 where id == 1")
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("error: '+' needs numbers, but startsAt is a date attribute (DATETIME)\n"), "\(r.stderr)")
        #expect(try run("count Event where number == 0").stdout == "1\n")
    }

    @Test func plusOnTextIsAnErrorNamingTheAttributeAndItsType() throws {
        let r = try run("update Genre set Name = Name + \"!\" where TRUEPREDICATE")
        #expect(r.status == 1)
        #expect(r.stderr == """
            error: '+' needs numbers, but Name is a text attribute (NVARCHAR(120))
              update Genre set Name = Name + "!" where TRUEPREDICATE
                                      ^~~~

            """)
        #expect(try run("count Genre where Name == \"Rock\"").stdout == "1\n")
        let literal = try run("update Track set Milliseconds = \"5\" * 2 where TrackId == 1")
        #expect(literal.status == 1)
        #expect(literal.stderr.hasPrefix("error: '*' needs numbers, not the text \"5\"\n"))
        let function = try run("update Genre set Name = uppercase(Name) + 1 where GenreId == 1")
        #expect(function.stderr.hasPrefix("error: '+' needs numbers, but uppercase() gives text\n"))
        // Numbers still add.
        #expect(try run("update Track set Milliseconds = Milliseconds + 1000 where TrackId == 1").status == 0)
        #expect(try run("count Track where TrackId == 1 AND Milliseconds == 344719").stdout == "1\n")
    }

    @Test func aStringMeansTheSameInSetAsInAPredicate() throws {
        let r = try run(#"update Genre set Name = "caf\u00e9 \"x\"\t\\" where GenreId == 1"#)
        #expect(r.status == 0)
        #expect(try run(#"count Genre where Name == "caf\u00e9 \"x\"\t\\""#).stdout == "1\n")
        #expect(try run("count Genre where Name == \"café \\\"x\\\"\t\\\\\"").stdout == "1\n")
        let created = try run(#"create Genre set Name = 'it\'s \u00e9'"#, ["--format", "csv", "--no-header"])
        #expect(created.stdout == "26,it's é\n")
        let bad = try run(#"create Genre set Name = "\u00""#)
        #expect(bad.status == 1)
        #expect(try run("count Genre").stdout == "26\n")
    }

    @Test func anAttributeSetTwiceIsAnError() throws {
        let r = try run("create Genre set Name = \"a\", Name = \"b\"")
        #expect(r.status == 1)
        #expect(r.stderr == "error: Name is set twice\n  create Genre set Name = \"a\", Name = \"b\"\n                               ^~~~\n")
        let update = try run("update Genre set Name = \"a\", name = \"b\" where GenreId == 1")
        #expect(update.status == 1)
        #expect(update.stderr.hasPrefix("error: Name is set twice\n"))
        #expect(try run("count Genre").stdout == "25\n")
        #expect(try run("count Genre where Name == \"Rock\"").stdout == "1\n")
    }

    /// Every function of PREDICATE.md's list works in `set`.
    @Test(arguments: [
        ("Name = uppercase(Name)", "Name", "FOR THOSE ABOUT TO ROCK (WE SALUTE YOU)"),
        ("Name = lowercase(Name)", "Name", "for those about to rock (we salute you)"),
        ("Bytes = abs(-5)", "Bytes", "5"),
        ("Bytes = sqrt(16)", "Bytes", "4"),
        ("Bytes = floor(2.7)", "Bytes", "2"),
        ("Bytes = ceiling(2.1)", "Bytes", "3"),
        ("Bytes = trunc(-2.7)", "Bytes", "-2"),
        ("Bytes = ln(1)", "Bytes", "0"),
        ("Bytes = log(100)", "Bytes", "2"),
        ("Bytes = exp(0)", "Bytes", "1"),
        ("Bytes = length(Name)", "Bytes", "39"),
        ("UnitPrice = abs(UnitPrice - 2)", "UnitPrice", "1.01"),
    ])
    func everyDocumentedFunctionWorksInSet(assignment: String, attribute: String, expected: String) throws {
        let r = try run("update Track set \(assignment) where TrackId == 1")
        #expect(r.status == 0, "\(assignment): \(r.stderr)")
        #expect(try stored("Track", attribute, where: "TrackId == 1") == expected, "\(assignment)")
    }

    @Test func nowIsStoredAsTheColumnsKindOfDate() throws {
        let r = try run("update Invoice set InvoiceDate = now() where InvoiceId == 1")
        #expect(r.status == 0, "\(r.stderr)")
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(try stored("Invoice", "InvoiceDate", where: "InvoiceId == 1").hasPrefix("\(year)-"))
    }

    @Test func createCannotReferToAttributes() throws {
        let r = try run("create Genre set Name = Rock")
        #expect(r.status == 1)
        #expect(r.stderr == "error: a value here cannot refer to an attribute (quote text: \"Rock\")\n  create Genre set Name = Rock\n                          ^~~~\n")
        let unknown = try run("update Track set Name = foo(1) where TrackId == 1")
        #expect(unknown.stderr.hasPrefix("error: unknown function 'foo'"))
        #expect(try run("count Genre").stdout == "25\n")
    }
}
