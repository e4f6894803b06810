import Foundation
import Testing

/// Control characters and invisible format characters from a
/// database's schema, its values or typed input never reach the terminal raw. Every path goes
/// through the one escaping function (`TerminalText.escaped`): stderr always, stdout in the
/// table, line and markdown formats.
@Suite struct TerminalSafetyTests {
    /// OSC 52 (write the clipboard), ended by BEL.
    static let clipboard = "\u{1b}]52;c;cHduZWQ=\u{07}"
    /// OSC 0 (set the window title), ended by BEL.
    static let title = "\u{1b}]0;owned\u{07}"
    static let table = "T" + clipboard
    static let column = "N" + title
    static let escapedTable = "T\\x1b]52;c;cHduZWQ=\\x07"
    static let escapedColumn = "N\\x1b]0;owned\\x07"

    let folder: URL
    let db: String

    /// A database whose table and column names hold ESC, OSC 52 and BEL sequences.
    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-tty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        db = folder.appendingPathComponent("hostile.sqlite").path
        let made = try Shell.run([db, "--create",
                                  "-e", "sql CREATE TABLE \"\(Self.table)\" (id INTEGER PRIMARY KEY, \"\(Self.column)\" TEXT)",
                                  "-e", "sql INSERT INTO \"\(Self.table)\" VALUES (1, 'v')"])
        #expect(made.status == 0, "\(made.stderr)")
    }

    func run(_ command: String, _ extra: [String] = []) throws -> Run {
        try Shell.run([db, "-e", command] + extra)
    }

    /// Nothing raw on either stream: no ESC, no BEL, no C1 control.
    func expectSafe(_ r: Run, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, text) in [("stdout", r.stdout), ("stderr", r.stderr)] {
            let raw = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F..<0xA0).contains($0.value) }
            #expect(raw.isEmpty, "\(path): raw control characters on \(name): \(raw.map { String($0.value, radix: 16) })",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func schemaHeadlineAndAttributesAreEscaped() throws {
        let r = try run("schema \"\(Self.table)\"", ["--format", "table"])
        #expect(r.status == 0)
        expectSafe(r, "schema")
        #expect(r.stdout.hasPrefix("\(Self.escapedTable) (table)\n"))
        #expect(r.stdout.contains(Self.escapedColumn))
        for format in ["line", "markdown"] {
            let other = try run("schema \"\(Self.table)\"", ["--format", format])
            expectSafe(other, "schema as \(format)")
        }
    }

    @Test func errorMessagesNamingTheSchemaAreEscaped() throws {
        let attribute = try run("find \"\(Self.table)\" where Nope == 1")
        #expect(attribute.status == 1)
        expectSafe(attribute, "has no attribute")
        #expect(attribute.stderr.contains("\(Self.escapedTable) has no attribute or relationship named 'Nope'"))
        let entity = try run("count \"T\u{1b}]52;c;cHduZWQ=\"")
        #expect(entity.status == 1)
        expectSafe(entity, "did you mean an entity")
        #expect(entity.stderr.contains("(did you mean '\(Self.escapedTable)'?)"))
        let set = try run("update \"\(Self.table)\" set \"N\u{1b}]0;owne\" = 'x' where TRUEPREDICATE")
        #expect(set.status == 1)
        expectSafe(set, "did you mean an attribute")
        #expect(set.stderr.contains("(did you mean '\(Self.escapedColumn)'?)"))
    }

    @Test func writeSummariesAreEscaped() throws {
        let update = try run("update \"\(Self.table)\" set id = 1 where TRUEPREDICATE")
        expectSafe(update, "updated")
        #expect(update.stderr == "updated 1 \(Self.escapedTable)\n")
        let delete = try run("delete \"\(Self.table)\" where TRUEPREDICATE")
        expectSafe(delete, "deleted")
        #expect(delete.stderr == "deleted 1 \(Self.escapedTable)\n")
    }

    @Test func explainAndGenerateSwiftAreEscaped() throws {
        let explain = try run("explain find \"\(Self.table)\" where \"\(Self.column)\" == 'v'", ["--format", "table"])
        #expect(explain.status == 0)
        expectSafe(explain, "explain")
        #expect(explain.stdout.contains("FROM \"\(Self.escapedTable)\""))
        let generated = try run("generate swift \"\(Self.table)\"")
        #expect(generated.status == 0)
        expectSafe(generated, "generate swift")
        // Named as the commands write it, control characters escaped.
        #expect(generated.stdout.contains("/// The table #\"T\\u001B]52;c;cHduZWQ=\\u0007\".\n"))
        #expect(generated.stdout.contains("entityName = \"T\\u{1b}]52;c;cHduZWQ=\\u{7}\""))
    }

    @Test func rowsAndHeadersAreEscapedInTerminalFormats() throws {
        for format in ["table", "line", "markdown"] {
            let r = try run("find \"\(Self.table)\"", ["--format", format])
            #expect(r.status == 0)
            expectSafe(r, "find as \(format)")
            #expect(r.stdout.contains(Self.escapedColumn), "\(format)")
        }
    }

    @Test func errorsThatEchoTypedInputAreEscaped() throws {
        let character = try run("find \"\(Self.table)\" where \u{1b}]0;x\u{07} == 1")
        #expect(character.status == 1)
        expectSafe(character, "unexpected character")
        #expect(character.stderr.contains("\\x1b"))
        let path = folder.appendingPathComponent("\u{1b}]0;x\u{07}").path
        let read = try run("read \"\(path)\"")
        #expect(read.status == 1)
        expectSafe(read, "cannot read")
        #expect(read.stderr.contains("cannot read '\(folder.path)/\\x1b]0;x\\x07'"))
        let file = try Shell.run([db, "--file", path])
        expectSafe(file, "--file")
        let open = try Shell.run([path, "-e", "count T"])
        #expect(open.status == 3)
        expectSafe(open, "cannot open")
        let usage = try Shell.run([db, "-p", "\u{1b}]0;x\u{07}", "-e", "count T"])
        #expect(usage.status == 2)
        expectSafe(usage, "usage error")
    }

    /// Bidirectional overrides, isolates and a zero-width joiner outside emoji are shown as
    /// `\u{…}` in table and line values; an emoji's own joiners are kept.
    @Test func invisibleControlsInValuesAreShownEscaped() throws {
        let (folder, chinook) = try Shell.chinookCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let family = "👨\u{200D}👩\u{200D}👧"
        let value = "abc\u{202E}def\u{2066}x\u{200D}y\u{2069} " + family
        let made = try Shell.run([chinook, "-e", "create Genre set GenreId = 900, Name = \"\(value)\""])
        #expect(made.status == 0, "\(made.stderr)")
        for format in ["table", "line", "markdown"] {
            let r = try Shell.run([chinook, "-e", "find Genre where GenreId == 900", "--format", format])
            #expect(r.stdout.contains("abc\\u{202e}def\\u{2066}x\\u{200d}y\\u{2069} " + family), "\(format): \(r.stdout)")
            #expect(!r.stdout.unicodeScalars.contains { [0x202E, 0x2066, 0x2069].contains($0.value) }, "\(format)")
        }
        // csv and tsv are data, not display: the value is written as it is.
        let csv = try Shell.run([chinook, "-e", "find Genre where GenreId == 900", "--format", "csv", "--no-header"])
        #expect(csv.stdout == "900,\(value)\n")
    }
}
