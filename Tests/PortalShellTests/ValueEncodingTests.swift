import Testing
@testable import PortalShell
import PortalEngine

/// The forms export writes for the values its formats have no plain word for, read back by
/// import, and nothing else decoded.
@Suite struct ValueEncodingTests {
    let edgeValues: [Value] = [
        .null, "", "deadbeef", "aGVsbG8=", "NULL", "X'00'", "5", "Inf", "東京\n\"q\"",
        .blob([]), .blob(Array("hello".utf8)), .blob([0x47, 0x50, 0, 1, 0xFF]),
        .integer(.max), .integer(.min), .integer(0),
        .real(.infinity), .real(-.infinity), .real(0.1 + 0.2), .real(1e-300 / 1e20), .real(-0.0), .real(1e21),
    ]

    func render(_ values: [Value], _ format: OutputFormat, typed: Bool = false) -> String {
        let stream = OutputStream()
        var options = OutputOptions(format: format)
        options.typedFields = typed
        let renderer = makeRenderer(options, stream: stream)
        renderer.begin(columns: values.indices.map { "c\($0)" })
        renderer.row(values)
        renderer.end()
        return stream.text
    }

    /// Bit for bit: -0.0 keeps its sign, NaN equals NaN.
    func same(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { x, y in
            if case .real(let p) = x, case .real(let q) = y { return p.bitPattern == q.bitPattern }
            return x == y
        }
    }

    @Test(arguments: [false, true]) func jsonCarriesEveryValue(lines: Bool) throws {
        let text = render(edgeValues + [.real(.nan)], lines ? .ndjson : .json)
        let records = try readJSON(text, lines: lines)
        #expect(same(records[0].fields.map(\.value), edgeValues + [.real(.nan)]), "\(text)")
    }

    @Test func jsonWritesBlobsAsSqliteUtilsDoes() {
        #expect(render([.blob([0, 255]), .real(-.infinity), .real(.nan)], .ndjson)
            == "{\"c0\":{\"$base64\":true,\"encoded\":\"AP8=\"},\"c1\":{\"$real\":\"-Infinity\"},\"c2\":{\"$real\":\"NaN\"}}\n")
    }

    @Test func typedCSVCarriesEveryValue() throws {
        let text = render(edgeValues + [.real(.nan)], .csv, typed: true)
        #expect(text.hasPrefix("\"c0\",\"c1\","))
        let (_, rows) = try readDelimited(text)
        #expect(same(rows[0].values, edgeValues + [.real(.nan)]), "\(text)")
    }

    @Test func typedCSVWritesTextQuotedAndBlobsAsLiterals() {
        #expect(render([.null, "", "5", 5, .blob([0, 255]), .real(.infinity)], .csv, typed: true)
            == "\"c0\",\"c1\",\"c2\",\"c3\",\"c4\",\"c5\"\n,\"\",\"5\",5,X'00FF',Inf\n")
    }

    /// In a typed csv file, an unquoted field that is no form export writes stays text.
    @Test func typedCSVKeepsOtherUnquotedFieldsAsText() throws {
        let (_, rows) = try readDelimited("\"a\",\"b\",\"c\",\"d\",\"e\"\n007,+5,abc,X'0',1e5\n")
        #expect(same(rows[0].values, ["007", "+5", "abc", "X'0'", .real(1e5)]))
    }

    /// A csv file not written by export (its header not quoted) is text: nothing is decoded.
    @Test func plainCSVDecodesNothing() throws {
        let (_, rows) = try readDelimited("a,b,c,d\nX'00FF',aGVsbG8=,Inf,5\n")
        #expect(rows[0].values == ["X'00FF'", "aGVsbG8=", "Inf", "5"])
    }

    /// Strings that look like encodings stay strings; only the objects are decoded.
    @Test func jsonStringsAreNeverDecoded() throws {
        let records = try readJSON("{\"a\": \"aGVsbG8=\", \"b\": \"deadbeef\", \"c\": \"Infinity\"}\n", lines: true)
        #expect(records[0].fields.map(\.value) == ["aGVsbG8=", "deadbeef", "Infinity"])
    }

    /// Past 64 bits an integer keeps its digits (as text), for the import to refuse or keep.
    @Test func jsonIntegersPast64BitsKeepTheirDigits() throws {
        let records = try readJSON("{\"a\": 18446744073709551616, \"b\": -9223372036854775809, \"c\": 1e20}\n", lines: true)
        #expect(records[0].fields.map(\.value) == ["18446744073709551616", "-9223372036854775809", .real(1e20)])
    }

    @Test func outOfRangeIntegers() {
        #expect(ValueEncoding.isOutOfRangeInteger("9223372036854775808"))
        #expect(ValueEncoding.isOutOfRangeInteger(" -9223372036854775809 "))
        #expect(!ValueEncoding.isOutOfRangeInteger("9223372036854775807"))
        #expect(!ValueEncoding.isOutOfRangeInteger("-9223372036854775808"))
        #expect(!ValueEncoding.isOutOfRangeInteger("92233720368547758080.5"))
        #expect(!ValueEncoding.isOutOfRangeInteger("abcdefghijklmnopqrstuvwxyz"))
    }

    @Test func importRefusesIntegersPast64BitsInNumericColumns() {
        #expect(throws: ShellError.self) {
            try Executor.checkValues(["99999999999999999999", "99999999999999999999"], numeric: [true, false], columns: ["n", "t"], line: 2)
        }
        #expect(throws: Never.self) {
            try Executor.checkValues(["1", "99999999999999999999"], numeric: [true, false], columns: ["n", "t"], line: 2)
        }
    }

    /// In a numeric column, `Inf` written as is is the real; quoted or escaped it is text, as
    /// csv and tsv write text that reads as an infinity.
    @Test(arguments: [false, true]) func infinityInNumericColumns(tab: Bool) throws {
        let text = render([.real(.infinity), .real(-.infinity), "Inf", "-Inf", "Info"], tab ? .tsv : .csv)
        #expect(text.hasSuffix(tab ? "Inf\t-Inf\t\\Inf\t\\-Inf\tInfo\n" : "Inf,-Inf,\"Inf\",\"-Inf\",Info\n"))
        let bytes = Array(text.utf8)
        var reader = DelimitedReader(ImportInput(bytes: bytes, chunkSize: 1 << 20), tab: tab, marked: false)
        _ = try reader.header()
        reader.textColumns = Array(repeating: false, count: 5)
        reader.numericColumns = Array(repeating: true, count: 5)
        var values: [Value] = []
        _ = try reader.next { fields, _ in values = fields.map(value) }
        #expect(same(values, [.real(.infinity), .real(-.infinity), "Inf", "-Inf", "Info"]))
    }

    /// Reals without digits are shown as sqlite3 shows them; -0.0 keeps its sign (csv, tsv and
    /// the table alike, so that an export keeps it).
    @Test func realsWithoutDigits() {
        #expect([Double.infinity, -.infinity, -0.0, .nan].map(ValueText.real) == ["Inf", "-Inf", "-0.0", "NaN"])
    }

    @Test func blobLiterals() {
        #expect(ValueEncoding.blobLiteral([0, 0xAB, 0xFF]) == "X'00ABFF'")
        #expect(ValueEncoding.blob(literal: "x'00abff'") == [0, 0xAB, 0xFF])
        #expect(ValueEncoding.blob(literal: "X''") == [])
        for text in ["X'0'", "X'GG'", "X'00", "Y'00'", "X'00'x"] { #expect(ValueEncoding.blob(literal: text) == nil, "\(text)") }
    }

    /// tsv has no blobs: each one written as base64 text is counted, for export's warning.
    @Test func tsvCountsTheBlobsItWritesAsText() {
        let stream = OutputStream()
        let renderer = DelimitedRenderer(OutputOptions(format: .tsv), stream, tab: true)
        renderer.begin(columns: ["a", "b"])
        renderer.row([.blob([1]), "x"])
        renderer.row([.blob([]), .blob([2])])
        #expect(renderer.blobsAsText == 3)
        renderer.untypedColumns = [false, true]
        renderer.row([1, 2])
        renderer.row([.real(1.5), .real(2.5)])
        renderer.row(["3", .null])
        #expect(renderer.numbersAsText == 2)
        #expect(stream.text == "a\tb\nAQ==\tx\n\tAg==\n1\t2\n1.5\t2.5\n3\t\n")
    }
}
