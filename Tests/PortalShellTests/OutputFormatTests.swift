import Testing
@testable import PortalShell
import PortalEngine
#if canImport(Glibc)
import Glibc
#endif

@Suite struct OutputFormatTests {
    let columns = ["id", "name", "price", "note"]
    let rows: [[Value]] = [
        [1, "Zoë, \"the\" best", 1.5, nil],
        [22, "東京\tline\nnext", -0.25, .blob([0, 1, 2, 255])],
        [333, "esc\u{1B}[31m|pipe\\", 1e21, "ok"],
    ]

    func render(_ format: OutputFormat, header: Bool = true, null: String? = nil, rows: [[Value]]? = nil) -> String {
        let stream = OutputStream()
        let renderer = makeRenderer(OutputOptions(format: format, header: header, nullText: null), stream: stream)
        renderer.begin(columns: columns)
        for row in rows ?? self.rows { renderer.row(row) }
        renderer.end()
        return stream.text
    }

    @Test func csv() {
        #expect(render(.csv) == """
            id,name,price,note
            1,"Zoë, ""the"" best",1.5,
            22,"東京\tline
            next",-0.25,AAEC/w==
            333,esc\u{1B}[31m|pipe\\,1e+21,ok

            """)
        #expect(render(.csv, header: false, null: "NULL").hasPrefix("1,\"Zoë, \"\"the\"\" best\",1.5,NULL\n"))
    }

    @Test func tsv() {
        #expect(render(.tsv) == "id\tname\tprice\tnote\n1\tZoë, \"the\" best\t1.5\t\n22\t東京\\tline\\nnext\t-0.25\tAAEC/w==\n333\tesc\u{1B}[31m|pipe\\\\\t1e+21\tok\n")
    }

    @Test func json() {
        #expect(render(.json) == """
            [
            {"id":1,"name":"Zoë, \\"the\\" best","price":1.5,"note":null},
            {"id":22,"name":"東京\\tline\\nnext","price":-0.25,"note":{"$base64":true,"encoded":"AAEC/w=="}},
            {"id":333,"name":"esc\\u001b[31m|pipe\\\\","price":1e+21,"note":"ok"}
            ]

            """)
        #expect(render(.json, rows: []) == "[]\n")
    }

    @Test func ndjson() {
        #expect(render(.ndjson, rows: [[1, "a", 2.0, nil]]) == "{\"id\":1,\"name\":\"a\",\"price\":2.0,\"note\":null}\n")
        #expect(render(.ndjson, rows: []) == "")
    }

    @Test func line() {
        #expect(render(.line, rows: Array(rows.prefix(2))) == """
            id = 1
            name = Zoë, "the" best
            price = 1.5
            note = NULL

            id = 22
            name = 東京\\tline\\nnext
            price = -0.25
            note = <blob 4 bytes>

            """)
    }

    @Test func markdown() {
        #expect(render(.markdown, rows: [rows[0], rows[2]]) == """
            | id | name | price | note |
            | --- | --- | --- | --- |
            | 1 | Zoë, "the" best | 1.5 | NULL |
            | 333 | esc\\x1b[31m\\|pipe\\ | 1e+21 | ok |

            """)
    }

    @Test func tableAlignsByDisplayWidthAndRightAlignsNumbers() {
        #expect(render(.table) == """
            id  | name              | price | note
            ----+-------------------+-------+---------------
              1 | Zoë, "the" best   |   1.5 | NULL
             22 | 東京\\tline\\nnext  | -0.25 | <blob 4 bytes>
            333 | esc\\x1b[31m|pipe\\ | 1e+21 | ok

            """)
    }

    @Test func tableCutsLongCellsWithAnEllipsis() {
        let long = String(repeating: "あ", count: 40)
        let text = render(.table, rows: [[1, .text(long), 0.5, nil]])
        let line = text.split(separator: "\n")[2]
        #expect(line.contains("…"))
        #expect(DisplayWidth.of(String(line)) <= 5 + 3 + TableRenderer.maximumWidth + 3 + 5 + 3 + 4)
    }

    @Test func tableWidthsAreFixedByTheFirstRows() {
        var many: [[Value]] = (0..<TableRenderer.sampleSize).map { [.integer(Int64($0)), "a", 1.0, nil] }
        many.append([1, "a much longer name than the sample", 1.0, nil])
        let text = render(.table, rows: many)
        #expect(text.split(separator: "\n").last == " 1 | a m… |   1.0 | NULL")
    }

    @Test func headerOff() {
        #expect(render(.table, header: false, rows: [[1, "a", 1.0, nil]]) == "1 | a | 1.0 | NULL\n")
        #expect(render(.markdown, header: false, rows: [[1, "a", 1.0, nil]]) == "| 1 | a | 1.0 | NULL |\n")
    }

    @Test func displayWidths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("東京") == 4)
        #expect(DisplayWidth.of("Zoë") == 3)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("👍") == 2)
    }

    @Test func base64() {
        #expect(Base64.encode([]) == "")
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }

    /// Import reads back what export wrote, and only that.
    @Test func base64DecodeUndoesEncodeAndRejectsOtherText() {
        for count in 0..<12 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
        for text in ["abc", "ab=c", "Zg==Zg==", "Zh==", "Zm9=", "Zm9v!mFy", "hello", "3.14", "=", "===="] {
            #expect(Base64.decode(text) == nil, "\(text)")
        }
    }

    @Test func streamWritesThroughAFileDescriptor() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let stream = OutputStream(fileDescriptor: fds[1], capacity: 16)
        stream.write("0123456789abcdefXYZ")
        stream.flush()
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fds[0], &buffer, 64)
        #expect(String(decoding: buffer[0..<n], as: UTF8.self) == "0123456789abcdefXYZ")
        close(fds[0])
        close(fds[1])
    }
}
