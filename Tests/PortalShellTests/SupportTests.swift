import PortalCoreData
import Testing
@testable import PortalShell
import PortalEngine

@Suite struct ErrorReportTests {
    @Test func caretUnderTheRange() {
        let error = ShellError("unknown attribute 'Nmae' on Track (did you mean 'Name'?)", 17..<21)
        #expect(error.report(command: "find Track where Nmae == \"x\"") == """
            error: unknown attribute 'Nmae' on Track (did you mean 'Name'?)
              find Track where Nmae == "x"
                               ^~~~

            """)
    }

    @Test func caretCountsDisplayWidthAndFindsTheLine() {
        let error = ShellError("bad", 16..<17)
        #expect(error.report(command: "find 東京\nwhere x ?") == "error: bad\n  where x ?\n          ^\n")
    }

    @Test func locatesAnUnknownNameWithoutAPosition() {
        let error = PortalError(wrapping: PortalPredicateError(.unknownName, "no attribute named 'Nmae'"))
        #expect(ShellError.from(error, in: "NmaeX == 1 OR Nmae == 2", offset: 10).range == 24..<28)
        // A name inside a string is text, not the name: the caret goes to the name itself.
        #expect(ShellError.from(error, in: "x == 'Nmae' OR Nmae == 2", offset: 0).range == 15..<19)
    }

    /// A command's error keeps the engine's error it reports: its kind and the database's code.
    @Test func anEngineErrorIsKeptWithItsCode() {
        var engine = PortalError(.constraint(.unique), "UNIQUE constraint failed: u_name_key")
        engine.sqlState = SQLState.uniqueViolation
        engine.detail = "Key (name)=(a) already exists."
        let error = ShellError.from(engine)
        #expect(error.cause?.code == .sqlState("23505") && error.cause?.kind == .constraint(.unique))
        #expect(error.report(command: "create u set name = 'a'")
                == "error: UNIQUE constraint failed: u_name_key\ndetail: Key (name)=(a) already exists.\n")
    }
}

/// Reads `text` as csv (or tsv) through chunks of `chunk` bytes: the header and the records,
/// read again marked when the reader says so, as an import does. `textColumns`: whether every
/// column is TEXT (the empty-field rule depends on it).
func readDelimited(_ text: String, tab: Bool = false, chunk: Int = 1 << 20, textColumns: Bool = false)
    throws(ShellError) -> (header: [String], rows: [(line: Int, values: [Value])]) {
    do {
        do {
            return try readDelimited(text, tab: tab, chunk: chunk, textColumns: textColumns, marked: false)
        } catch is DelimitedReader.Remark {
            return try readDelimited(text, tab: tab, chunk: chunk, textColumns: textColumns, marked: true)
        }
    } catch let error as ShellError {
        throw error
    } catch {
        throw ShellError(line: 0, message: "not an import error: \(error)")
    }
}

/// One reading of `readDelimited`'s; throws `ShellError` or `DelimitedReader.Remark`.
func readDelimited(_ text: String, tab: Bool, chunk: Int, textColumns: Bool, marked: Bool)
    throws -> (header: [String], rows: [(line: Int, values: [Value])]) {
    var reader = DelimitedReader(ImportInput(bytes: Array(text.utf8), chunkSize: chunk), tab: tab, marked: marked)
    let header = try reader.header().names
    reader.textColumns = Array(repeating: textColumns, count: header.count)
    var rows: [(line: Int, values: [Value])] = []
    while try reader.next({ fields, line in rows.append((line, fields.map(value))) }) != nil {}
    return (header, rows)
}

/// An import's field as the value it stores.
func value(_ field: InsertField) -> Value {
    switch field {
    case .value(let value): return value
    case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
    }
}

/// Reads `text` as json (or ndjson) through chunks of `chunk` bytes.
func readJSON(_ text: String, lines: Bool, chunk: Int = 1 << 20) throws(ShellError) -> [ImportRecord] {
    try JSONReader.records(ImportInput(bytes: Array(text.utf8), chunkSize: chunk), lines: lines)
}

@Suite struct ImportReaderTests {
    @Test func csvWithQuotesNullsAndLines() throws {
        let text = "a,b,c\n1,\"x, \"\"y\"\"\",\n2,\"multi\nline\",\"\"\n"
        let (header, rows) = try readDelimited(text)
        #expect(header == ["a", "b", "c"])
        #expect(rows.map(\.line) == [2, 3])
        #expect(rows[0].values == ["1", "x, \"y\"", .null])
        #expect(rows[1].values == ["2", "multi\nline", ""])
    }

    @Test func csvErrorsNameTheLine() {
        #expect(throws: ShellError.self) { try readDelimited("a,b\n1,2\n3\n") }
        do {
            _ = try readDelimited("a,b\n1,2\n3\n")
        } catch {
            #expect(error.line == 3)
            #expect(error.message == "1 field, but the header names 2")
        }
        do {
            _ = try readDelimited("a\n\"open\n")
            Issue.record("accepted an open quote")
        } catch {
            #expect(error.line == 2)
            #expect(error.message == "a quoted field is not closed")
        }
        do {
            _ = try readDelimited("a\n\"x\ny\"z\n", chunk: 3)
            Issue.record("accepted text after a closing quote")
        } catch {
            #expect(error.line == 3)
            #expect(error.message == "unexpected character after a closing quote")
        }
    }

    /// A record that grows past the largest one allowed (a quote left open, most likely) is
    /// refused at its line rather than read whole; a long record under the limit is read.
    @Test func aRecordLongerThanTheLimitIsRefused() throws {
        let long = String(repeating: "x", count: 3 << 20)
        var reader = DelimitedReader(ImportInput(bytes: Array("a\n\"\(long)\n".utf8), chunkSize: 4096, largestRecord: 1 << 20),
                                     tab: false, marked: false)
        _ = try reader.header()
        reader.textColumns = [true]
        do {
            _ = try reader.next { _, _ in }
            Issue.record("read a record past the limit")
        } catch let error as ShellError {
            #expect(error.line == 2)
            #expect(error.message == "a record longer than 1 MiB (is a quote not closed?)")
        }
        var fits = DelimitedReader(ImportInput(bytes: Array("a\n\(long.prefix(900_000))\n".utf8), chunkSize: 4096, largestRecord: 1 << 20),
                                   tab: false, marked: false)
        _ = try fits.header()
        fits.textColumns = [true]
        var values: [Value] = []
        #expect(try fits.next { fields, _ in values = fields.map(value) } == 2)
        #expect(values == [.text(String(long.prefix(900_000)))])
    }

    @Test func tsvUnescapes() throws {
        let (_, rows) = try readDelimited("a\tb\nx\\ty\t\\N\n", tab: true)
        #expect(rows[0].values == ["x\ty", .null])
    }

    /// Records cut at every place by the chunks read the same as in one piece: quotes, `""`,
    /// CRLF, a lone CR, lines inside quotes, a byte order mark, a last line without its newline.
    @Test(arguments: [false, true])
    func everyChunkSizeReadsTheSame(tab: Bool) throws {
        let text = tab
            ? "\u{FEFF}id\tname\tnote\r\n1\tZ\u{FC}rich\t\\N\r\n2\ta\\tb\t\n\n3\t\t\\n x\r4\tlast\tend"
            : "\u{FEFF}id,name,note\r\n1,\"Z\u{FC}rich, \"\"CH\"\"\",\r\n2,\"two\r\nlines\",\"\"\n\n3,,\"\"\"\"\r4,last,end"
        let whole = try readDelimited(text, tab: tab)
        #expect(whole.header == ["id", "name", "note"])
        #expect(whole.rows.map(\.line) == (tab ? [2, 3, 5, 6] : [2, 3, 6, 7]))
        for chunk in 1...24 {
            let cut = try readDelimited(text, tab: tab, chunk: chunk)
            #expect(cut.header == whole.header, "chunk \(chunk)")
            #expect(cut.rows.map(\.line) == whole.rows.map(\.line), "chunk \(chunk)")
            #expect(cut.rows.map(\.values) == whole.rows.map(\.values), "chunk \(chunk)")
        }
    }

    /// The empty-field rule: an empty field is empty text in a TEXT column and NULL in another,
    /// unless the file tells the two apart (a csv `""`, a tsv `\N`).
    @Test func emptyFieldsByColumnAndFile() throws {
        #expect(try readDelimited("a,b\n,x\n", textColumns: true).rows[0].values == ["", "x"])
        #expect(try readDelimited("a,b\n,x\n", textColumns: false).rows[0].values == [.null, "x"])
        // A file that writes empty text as "" has its unquoted empty fields NULL, in any column.
        #expect(try readDelimited("a,b\n,x\n\"\",y\n", textColumns: true).rows.map(\.values) == [[.null, "x"], ["", "y"]])
        #expect(try readDelimited("a\tb\n\tx\n", tab: true, textColumns: true).rows[0].values == ["", "x"])
        #expect(try readDelimited("a\tb\n\tx\n", tab: true, textColumns: false).rows[0].values == [.null, "x"])
        #expect(try readDelimited("a\tb\n\tx\n\\N\ty\n", tab: true, textColumns: false).rows.map(\.values) == [["", "x"], [.null, "y"]])
    }

    /// A field that is exactly `""` (csv) or `\N` (tsv), and nothing else that looks like one,
    /// marks the file, at any chunk size: the empty field of the first record is then NULL (csv)
    /// or empty text (tsv), read again when the mark comes after it.
    @Test func onlyWholeFieldsMarkTheFile() throws {
        let cases: [(String, Bool, Bool)] = [
            ("a,b\n,\"\"\n", false, true),
            ("a,b\n,1\n1,\"\"", false, true),
            ("a,b\n,1\n\"\",\n", false, true),
            ("\"\",b\n,1\n", false, true),
            ("a,b\n,\"x,\"\",y\"\n", false, false),
            ("a,b\n,\"\"\"x\"\n", false, false),
            ("a,b\n,x\"\"\n", false, false),
            ("a,b\n,\n", false, false),
            ("a\tb\n\t\\N\n", true, true),
            ("a\tb\n\t1\n\\N\t1", true, true),
            ("a\tb\n\tx\\N\n", true, false),
            ("a\tb\n\t\\Nx\n", true, false),
        ]
        for (text, tab, marked) in cases {
            for chunk in [1, 2, 3, 1 << 20] {
                // csv: a TEXT column's empty field is empty text, or NULL when marked; tsv: another
                // column's is NULL, or empty text when marked.
                let first = try readDelimited(text, tab: tab, chunk: chunk, textColumns: !tab).rows[0].values[0]
                #expect(first == (marked == tab ? "" : .null), "\(text.debugDescription), chunk \(chunk)")
            }
        }
    }

    /// A one-column tsv file whose blank lines are records once it is marked.
    @Test func blankLinesOfAMarkedOneColumnFile() throws {
        #expect(try readDelimited("a\nx\n\ny\n", tab: true, textColumns: true).rows.map(\.values) == [["x"], ["y"]])
        #expect(try readDelimited("a\nx\n\n\\N\n", tab: true, textColumns: true).rows.map(\.values) == [["x"], [""], [.null]])
    }

    /// Text that is not well-formed UTF-8 is read as a Swift string reads it; escaped fields
    /// longer than the chunks read, and many in a record, are unescaped whole.
    @Test func invalidUTF8AndLongEscapedFields() throws {
        var bytes = Array("a,b,c\n".utf8) + [0x61, 0xFF, 0x62, 0x2C, 0x22, 0xC3, 0x22, 0x22, 0x22, 0x2C, 0x63, 0x0A]
        let long = String(repeating: "ab\"\"cd", count: 5000)
        bytes += Array("\"\(long)\",\"\(long)\",x\n".utf8)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\u{FFFD}"))
        for chunk in [7, 4096, 1 << 20] {
            var reader = DelimitedReader(ImportInput(bytes: bytes, chunkSize: chunk), tab: false, marked: false)
            _ = try reader.header()
            reader.textColumns = [true, true, true]
            var rows: [[Value]] = []
            while try reader.next({ fields, _ in rows.append(fields.map(value)) }) != nil {}
            let unescaped = String(repeating: "ab\"cd", count: 5000)
            #expect(rows == [["a\u{FFFD}b", "\u{FFFD}\"", "c"], [.text(unescaped), .text(unescaped), "x"]], "chunk \(chunk)")
        }
    }

    @Test func json() throws {
        let records = try readJSON("[{\"a\": 1, \"b\": \"x\\u00e9\", \"c\": null, \"d\": 2.5, \"e\": true}]", lines: false)
        #expect(records.count == 1)
        #expect(records[0].fields.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(records[0].fields.map(\.value) == [1, "xé", nil, 2.5, 1])
        let lines = try readJSON("{\"a\":1}\n{\"a\":2}\n", lines: true)
        #expect(lines.map(\.line) == [1, 2])
    }

    @Test(arguments: [false, true])
    func jsonEveryChunkSizeReadsTheSame(lines: Bool) throws {
        let objects = ["{\"id\": 1, \"name\": \"Z\u{FC}rich \\\"CH\\\" {[,]}\", \"n\": null}",
                       "{ \"id\" : 2 ,\n \"name\": \"\\ud83d\\ude00\", \"r\": -2.5e3 }",
                       "{}", "{\"b\": true}"]
        let text = lines ? objects.joined(separator: "\r\n") + "\n" : "[\n" + objects.joined(separator: ",\n") + "\n]\n"
        let whole = try readJSON(text, lines: lines)
        #expect(whole.count == 4)
        #expect(whole[1].fields.map(\.value) == [2, "\u{1F600}", -2500.0])
        for chunk in 1...24 {
            let cut = try readJSON(text, lines: lines, chunk: chunk)
            #expect(cut.map(\.line) == whole.map(\.line), "chunk \(chunk)")
            #expect(cut.map { $0.fields.map(\.name) } == whole.map { $0.fields.map(\.name) }, "chunk \(chunk)")
            #expect(cut.map { $0.fields.map(\.value) } == whole.map { $0.fields.map(\.value) }, "chunk \(chunk)")
        }
    }

    @Test func malformedJSONNamesTheLine() {
        let cases: [(String, Bool, Int, String)] = [
            ("[\n{\"a\": 1},\n{\"a\": }\n]", false, 3, "'' is not a JSON value"),
            ("[\n{\"a\": 1},\n{\"a\": oops}\n]", false, 3, "'oops' is not a JSON value"),
            ("[{\"a\": 1}", false, 1, "the array is not closed"),
            ("[{\"a\": 1},\n", false, 2, "expected an object ('{')"),
            ("[{\"a\": 1}] x", false, 1, "unexpected text after the array"),
            ("{\"a\": 1}\n\n{\"a\": \"open\n}", true, 3, "a string is not closed on its line"),
            ("{\"a\": 1} {\"a\": 2}\n", true, 1, "expected one object per line"),
            ("{\"a\": {\"b\": 1}}\n", true, 1, "\"a\" holds an object that is not an encoded value ({\"$base64\": true, \"encoded\": \"…\"} or {\"$real\": \"Infinity\"})"),
            ("{\"a\": [1]}\n", true, 1, "\"a\" holds an array; only strings, numbers, booleans, null and encoded blobs and reals can be imported"),
            ("{\"a\": {\"$base64\": true, \"encoded\": \"AP8\"}}\n", true, 1, "\"a\": 'AP8' is not base64"),
            ("{\"a\": {\"$real\": \"Inf\"}}\n", true, 1, "\"a\" holds an object that is not an encoded value ({\"$base64\": true, \"encoded\": \"…\"} or {\"$real\": \"Infinity\"})"),
            ("{\"a\": {\"b\": {\"c\": 1}}}\n", true, 1, "\"b\" holds an object that is not an encoded value ({\"$base64\": true, \"encoded\": \"…\"} or {\"$real\": \"Infinity\"})"),
            // Numbers Swift would take but JSON has not.
            ("{\"a\": -inf}\n", true, 1, "'-inf' is not a JSON value"),
            ("{\"a\": +5}\n", true, 1, "'+5' is not a JSON value"),
            ("{\"a\": 0x1p3}\n", true, 1, "'0x1p3' is not a JSON value"),
            ("{\"a\": 01}\n", true, 1, "'01' is not a JSON value"),
            ("{\"a\": 1.}\n", true, 1, "'1.' is not a JSON value"),
            ("{\"a\": 1e999}\n", true, 1, "'1e999' is not a JSON value"),
            ("{\"a\": \"\\u+123\"}\n", true, 1, "bad \\u escape"),
        ]
        for (text, lines, line, message) in cases {
            for chunk in [1, 5, 1 << 20] {
                do {
                    _ = try readJSON(text, lines: lines, chunk: chunk)
                    Issue.record("accepted \(text.debugDescription)")
                } catch {
                    #expect(error.line == line, "\(text.debugDescription), chunk \(chunk)")
                    #expect(error.message == message, "\(text.debugDescription), chunk \(chunk)")
                }
            }
        }
    }

    /// A high surrogate escape followed by another escape that is no low surrogate.
    @Test func loneSurrogateIsReplaced() throws {
        let records = try readJSON("{\"a\": \"\\ud800\\u0041\"}\n", lines: true)
        #expect(records[0].fields[0].value == "\u{FFFD}A")
    }
}

@Suite struct DemoTests {
    @Test func generatorIsDeterministic() {
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        #expect((0..<100).map { _ in a.next() } == (0..<100).map { _ in b.next() })
        var c = SplitMix64(seed: 1)
        #expect(c.next() == 0x910A_2DEC_8902_5CC1)
    }

    @Test func dates() {
        #expect(DemoDate.day(fromDays: 0) == "1970-01-01")
        #expect(DemoDate.day(fromDays: 19_000) == "2022-01-08")
        #expect(DemoDate.day(fromDays: -1) == "1969-12-31")
        #expect(DemoDate.timestamp(seconds: 86_399) == "1970-01-01 23:59:59")
        #expect(DemoDate.day(fromDays: 11_016) == "2000-02-29")
    }
}

@Suite struct CompletionTests {
    let schema = Schema(entities: [
        EntityDescription(name: "Track", kind: .table,
                          attributes: [AttributeDescription(name: "TrackId", declaredType: "INTEGER", isNullable: false, defaultValue: nil, primaryKeyPosition: 1),
                                       AttributeDescription(name: "Name", declaredType: "TEXT", isNullable: false, defaultValue: nil, primaryKeyPosition: nil),
                                       AttributeDescription(name: "AlbumId", declaredType: "INTEGER", isNullable: true, defaultValue: nil, primaryKeyPosition: nil)],
                          primaryKey: ["TrackId"], hasRowid: true,
                          relationships: [RelationshipDescription(name: "Album", kind: .toOne, destination: "Album", sourceColumns: ["AlbumId"], destinationColumns: ["AlbumId"])],
                          indexes: []),
        EntityDescription(name: "Album", kind: .table,
                          attributes: [AttributeDescription(name: "AlbumId", declaredType: "INTEGER", isNullable: false, defaultValue: nil, primaryKeyPosition: 1),
                                       AttributeDescription(name: "Title", declaredType: "TEXT", isNullable: false, defaultValue: nil, primaryKeyPosition: nil)],
                          primaryKey: ["AlbumId"], hasRowid: true, relationships: [], indexes: []),
    ])

    func complete(_ line: String) -> [String] {
        let start = line.lastIndex(where: { " (=".contains($0) }).map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 0
        return Completion.candidates(line: line, start: start, word: String(line.dropFirst(start)), schema: schema, variables: ["artist"])
    }

    @Test func commandsEntitiesAttributesKeyPathsVariables() {
        #expect(complete("fi") == ["find", "first"])
        #expect(complete(".sch") == [".schemas", ".schema"])
        #expect(complete("desc") == ["describe"])
        #expect(complete("describe Al") == ["Album"])
        #expect(complete("find Tr") == ["Track"])
        #expect(complete("find Track where Na") == ["Name"])
        #expect(complete("find Track where Album.Ti") == ["Album.Title"])
        #expect(complete("find Track where Name == $ar") == ["$artist"])
        #expect(complete("mode js") == ["json"])
        #expect(complete("find Track where Name BEGINS") == ["BEGINSWITH"])
    }

    @Test func namesAfterSelectGroupByAndHaving() {
        #expect(complete("find Track sel") == ["select"])
        #expect(complete("find Track select Na") == ["Name"])
        #expect(complete("find Track select Name, Album.Ti") == ["Album.Title"])
        #expect(complete("find Track select Name, count() group by Alb") == ["AlbumId", "Album"])
        #expect(complete("find Track select AlbumId, count() as n group by AlbumId hav") == ["having"])
        #expect(complete("find Track select AlbumId, count() as n group by AlbumId having max(Tr").first == "TrackId")
        #expect(complete("count Track group by Na") == ["Name"])
    }

    @Test func quotingCaseAndReplacement() {
        let spaced = Schema(entities: [
            EntityDescription(name: "Ünïcödé Tâble", kind: .table,
                              attributes: [AttributeDescription(name: "id", declaredType: "INTEGER", isNullable: false, defaultValue: nil, primaryKeyPosition: 1),
                                           AttributeDescription(name: "full name", declaredType: "TEXT", isNullable: true, defaultValue: nil, primaryKeyPosition: nil)],
                              primaryKey: ["id"], hasRowid: true,
                              relationships: [RelationshipDescription(name: "lines", kind: .toMany, destination: "Line", sourceColumns: ["id"], destinationColumns: ["owner"])],
                              indexes: []),
        ])
        func complete(_ line: String) -> [String] {
            let start = line.lastIndex(where: { " (=".contains($0) }).map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 0
            return Completion.candidates(line: line, start: start, word: String(line.dropFirst(start)), schema: spaced, variables: [])
        }
        #expect(complete("find Ün") == ["#\"Ünïcödé Tâble\""])
        #expect(complete("find #\"Ünïcödé Tâble\" where fu") == ["#\"full name\""])
        #expect(complete("find #\"Ünïcödé Tâble\" where #\"fu") == ["#\"full name\""])
        #expect(complete("find #\"Ünïcödé Tâble\" where Li") == ["lines", "limit", "LIKE"])
        #expect(complete("find #\"Ünïcödé Tâble\" sort by fu") == ["#\"full name\""])
        #expect(Completion.replacement(for: "Al", matches: ["ALL", "Album", "AlbumId"]) == "Al")
        #expect(Completion.replacement(for: "Alb", matches: ["Album", "AlbumId"]) == "Album")
        #expect(Completion.replacement(for: "al", matches: ["ALL"]) == "ALL")
    }
}

@Suite struct SwiftGeneratorTests {
    @Test func identifiersAndTypes() {
        #expect(SwiftGenerator.typeIdentifier("invoice items") == "InvoiceItems")
        #expect(SwiftGenerator.propertyIdentifier("TrackId") == "trackId")
        #expect(SwiftGenerator.propertyIdentifier("ID") == "id")
        #expect(SwiftGenerator.propertyIdentifier("default") == "`default`")
        #expect(SwiftGenerator.swiftType("NVARCHAR(200)") == "String")
        #expect(SwiftGenerator.swiftType("NUMERIC(10,2)") == "Double")
        #expect(SwiftGenerator.swiftType("INTEGER") == "Int64")
    }

    /// A Core Data attribute's type comes from its storage or the model before the column's
    /// declared type; an attribute no model types keeps the column's.
    @Test func coreDataAttributesByTheModel() {
        func type(_ declared: String, _ storage: StorageConvention = .natural, _ model: String? = nil) -> String {
            SwiftGenerator.swiftType(AttributeDescription(name: "a", declaredType: declared, isNullable: true, defaultValue: nil,
                                                          primaryKeyPosition: nil, column: "ZA", storage: storage, modelType: model))
        }
        #expect(type("TIMESTAMP", .secondsSinceReferenceDate, "Date") == "Date")
        #expect(type("TIMESTAMP") == "String")
        #expect(type("BLOB", .uuidBlob, "UUID") == "UUID")
        #expect(type("INTEGER", .natural, "Boolean") == "Bool")
        #expect(type("INTEGER", .natural, "Integer 16") == "Int64")
        #expect(type("INTEGER") == "Int64")
        #expect(type("BLOB", .natural, "Transformable") == "[UInt8]")
        #expect(type("VARCHAR", .natural, "URI") == "String")
        #expect(type("DECIMAL", .natural, "Decimal") == "Double")
    }
}

@Suite struct DatabaseNameTests {
    /// The prompt's name for the database: a file's name, or a server database's own name.
    @Test func shortNamesOfFilesAndServerURLs() {
        #expect(ShellDatabase.shortName(of: "/data/music.sqlite") == "music.sqlite")
        #expect(ShellDatabase.shortName(of: ":memory:") == ":memory:")
        #expect(ShellDatabase.shortName(of: "postgresql:///music?host=/run/postgresql") == "music")
        #expect(ShellDatabase.shortName(of: "postgres://ann@db.example.com:5432/shop") == "shop")
        #expect(ShellDatabase.shortName(of: "postgresql://db.example.com") == "db.example.com")
    }
}
