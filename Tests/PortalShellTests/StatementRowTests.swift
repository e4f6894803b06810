import Testing
@testable import PortalShell
import PortalEngine
import PortalSQLite

/// The statement fast path of csv, tsv, json and ndjson writes the same bytes as the Value path.
@Suite struct StatementRowTests {
    @Test(arguments: [OutputFormat.csv, .tsv, .json, .ndjson, .table])
    func fastPathMatchesValuePath(format: OutputFormat) throws {
        let connection = try Connection(path: ":memory:", readOnly: false, create: true)
        try connection.execute("""
            CREATE TABLE T (a INTEGER, b TEXT, c REAL, d BLOB);
            INSERT INTO T VALUES (1, 'plain', 1.5, NULL), (-2, 'comma, "quote"' || char(10) || 'tab' || char(9) || '\\', NULL, X'00FF'),
                (NULL, 'Zoë 東京', -0.0, X''), (3, CAST(X'41FF42' AS TEXT), 1e300, NULL), (4, '', 2.0, NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150)
                INSERT INTO T SELECT i * 1000000, 'row ' || i || CASE WHEN i % 7 = 0 THEN ' much longer text than the sampled widths' ELSE '' END,
                    i / 3.0, NULL FROM n;
            INSERT INTO T VALUES (123456789012, 'bell' || char(7), NULL, X'01'), (NULL, '東京タワー', 0.5, NULL);
            -- Wider than any column after the sample: cut with '…' (ASCII by bytes, the rest by width).
            INSERT INTO T VALUES (5, hex(zeroblob(40)), 0.25, NULL), (6, replace(hex(zeroblob(60)), '00', 'ë'), 0.75, NULL),
                (7, replace(hex(zeroblob(40)), '00', '東'), NULL, NULL);
            """)
        let sql = "SELECT * FROM T"
        let options = OutputOptions(format: format, nullText: "∅")

        let slow = OutputStream()
        let slowRenderer = makeRenderer(options, stream: slow)
        let statement = try connection.prepareUncached(sql)
        slowRenderer.begin(columns: (0..<statement.columnCount).map(statement.columnName))
        while try statement.step() {
            slowRenderer.row((0..<statement.columnCount).map { StatementCell.value(statement, Int32($0)) })
        }
        slowRenderer.end()

        let fast = OutputStream()
        let fastRenderer = try #require(makeRenderer(options, stream: fast) as? any StatementRowRenderer)
        let again = try connection.prepareUncached(sql)
        fastRenderer.begin(columns: (0..<again.columnCount).map(again.columnName))
        while try again.step() { fastRenderer.row(statement: again, columnCount: Int32(again.columnCount)) }
        fastRenderer.end()

        #expect(fast.text == slow.text)
        #expect(fast.text.contains("Zoë 東京"))
        if format == .table { #expect(fast.text.contains("0000…")) }
    }
}

@Suite struct UTF8ValidationTests {
    func valid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { TextMatching.isValidUTF8($0) }
    }

    @Test func acceptsWellFormedAndRejectsTheRest() {
        #expect(valid(Array("plain Zoë 東京 👍".utf8)))
        #expect(!valid([0x41, 0xFF, 0x42]))
        #expect(!valid([0xC0, 0xAF]))            // overlong '/'
        #expect(!valid([0xED, 0xA0, 0x80]))      // a surrogate
        #expect(!valid([0xF4, 0x90, 0x80, 0x80])) // above U+10FFFF
        #expect(!valid([0xE2, 0x82]))            // cut short
    }

    @Test func widthsOfEmojiSequences() {
        #expect(DisplayWidth.of("❤️") == 2)
        #expect(DisplayWidth.of("Zoë") == 3)
        #expect(DisplayWidth.of("e\u{301}x") == 2)
    }
}

@Suite struct IntegerWritingTests {
    @Test func decimalDigits() {
        let stream = OutputStream()
        for value: Int64 in [0, 7, -7, 1_234_567_890, .max, .min] {
            stream.write(integer: value)
            stream.write(32)
        }
        #expect(stream.text == "0 7 -7 1234567890 9223372036854775807 -9223372036854775808 ")
    }
}

@Suite struct DecimalLengthTests {
    @Test func lengths() {
        for value: Int64 in [0, 9, 10, -1, -10, 99_999, .max, .min] {
            #expect(TableRenderer.decimalLength(value) == String(value).count)
        }
    }
}

@Suite struct PlainWidthTests {
    @Test func matchesDisplayWidthAndRefusesControls() {
        for text in ["abc", "Zoë", "東京タワー", "e\u{301}x", "❤️ ok", "한국어", ""] {
            var copy = text
            let width = copy.withUTF8 { TableRenderer.plainWidth($0) }
            #expect(width == DisplayWidth.of(text), "\(text)")
        }
        var bell = "a\u{7}b"
        #expect(bell.withUTF8 { TableRenderer.plainWidth($0) } == nil)
        var c1 = "a\u{85}b"
        #expect(c1.withUTF8 { TableRenderer.plainWidth($0) } == nil)
    }
}
