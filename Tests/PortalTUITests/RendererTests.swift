import PortalEngine
import Testing
@testable import PortalTUI

@Suite struct CellTextTests {
    @Test func widths() {
        #expect(CellText.width(of: "abc") == 3)
        #expect(CellText.width(of: "日本語") == 6)
        #expect(CellText.width(of: "e\u{301}") == 1)
        #expect(CellText.width(of: "한국") == 4)
        #expect(CellText.width(of: "👍") == 2)
    }

    /// General punctuation (`…` in every title) is measured without looking up its properties:
    /// each scalar of the block still takes what its properties say — one cell, none for the
    /// zero-width and format characters among them.
    @Test func generalPunctuationTakesTheCellsItsPropertiesSay() throws {
        for v in UInt32(0x2000)...0x206F {
            let scalar = try #require(Unicode.Scalar(v))
            let invisible: [Unicode.GeneralCategory] = [.nonspacingMark, .enclosingMark, .format]
            let expected = invisible.contains(scalar.properties.generalCategory) || v == 0x200B ? 0 : 1
            #expect(CellText.width(of: scalar) == expected, "U+\(String(v, radix: 16))")
        }
        #expect(CellText.width(of: "counting…") == 9)
    }

    @Test func controlCharactersAreEscaped() {
        #expect(TerminalText.escaped("a\u{1b}[2Jb") == "a\\x1b[2Jb")
        #expect(TerminalText.escaped("x\ny\tz\r") == "x\\ny\\tz\\r")
        #expect(TerminalText.escaped("\u{7}\u{9b}") == "\\x07\\u{9b}")
    }

    @Test func standInsAreDistinct() {
        #expect(CellText.display(.null) == ("NULL", true))
        #expect(CellText.display(.text("")) == ("\"\"", true))
        #expect(CellText.display(.blob([1, 2, 3])) == ("<blob 3 bytes>", true))
        #expect(CellText.display(.text("NULL")) == ("NULL", false))
        #expect(CellText.display(.real(2)) == ("2.0", false))
    }

    @Test func truncationRespectsWidths() {
        #expect(CellText.truncated("abcdef", to: 4) == "abc…")
        #expect(CellText.truncated("日本語", to: 4) == "日…")
        #expect(CellText.truncated("abc", to: 3) == "abc")
    }
}

@Suite struct ScreenBufferTests {
    @Test func wideCharactersTakeTwoCells() {
        var screen = ScreenBuffer(width: 6, height: 1)
        let used = screen.put("日本語x", x: 0, y: 0, style: .normal, maxWidth: 5)
        #expect(used == 5)
        #expect(screen.line(0) == "日本  ")
        #expect(screen.text(x: 1, y: 0) == "")
    }

    /// Characters of one scalar (accented Latin, `…`, arrows) take the scalar-by-scalar path and
    /// characters of several (a flag, a family joined by ZWJ, a decomposed é) the grapheme path;
    /// both give one cell per character (two for wide ones) and read back whole.
    @Test func charactersOfOneScalarAndOfSeveralReadBackWhole() {
        var screen = ScreenBuffer(width: 12, height: 3)
        #expect(screen.put("Ünïcødé…↑", x: 0, y: 0, style: .normal) == 9)
        #expect(screen.line(0) == "Ünïcødé…↑   ")
        #expect(screen.text(x: 7, y: 0) == "…")
        #expect(screen.put("🇫🇷👨‍👩‍👧e\u{301}!", x: 0, y: 1, style: .normal) == 6)
        #expect(screen.text(x: 0, y: 1) == "🇫🇷")
        #expect(screen.text(x: 2, y: 1) == "👨‍👩‍👧")
        #expect(screen.text(x: 4, y: 1) == "e\u{301}")
        #expect(screen.text(x: 5, y: 1) == "!")
        #expect(screen.put("Åb\u{308}c", x: 0, y: 2, style: .normal) == 3)   // a mark after standalone scalars
        #expect(screen.text(x: 1, y: 2) == "b\u{308}")
        #expect(screen.line(2) == "Åb\u{308}c         ")
    }

    @Test func combiningMarksJoinTheirBase() {
        var screen = ScreenBuffer(width: 4, height: 1)
        screen.put("e\u{301}x", x: 0, y: 0, style: .normal)
        #expect(screen.text(x: 0, y: 0) == "e\u{301}")
        #expect(screen.text(x: 1, y: 0) == "x")
    }

    /// A block of lines is filled as far as the screen goes; a block off the screen, or of no
    /// lines, fills nothing.
    @Test func aFillOfSeveralLinesIsClippedToTheScreen() {
        var screen = ScreenBuffer(width: 4, height: 3)
        screen.put("abcd", x: 0, y: 0, style: .normal)
        screen.fill(x: -1, y: 1, count: 3, lines: 5, style: .pane)
        #expect((0..<3).map(screen.line) == ["abcd", "    ", "    "])
        #expect((0..<4).map { screen.style(x: $0, y: 2) } == [.pane, .pane, .normal, .normal])
        #expect(screen.style(x: 0, y: 0) == .normal)
        for (y, lines) in [(-2, 1), (1, 0), (1, -3), (3, 2)] { screen.fill(x: 0, y: y, count: 4, lines: lines, style: .error) }
        #expect(!(0..<3).contains { y in (0..<4).contains { screen.style(x: $0, y: y) == .error } })
    }
}

@Suite struct GridRenderingTests {
    static func source() -> MemoryDataSource {
        let entity = BrowserEntity(name: "Mixed", columns: [
            BrowserColumn(name: "id", declaredType: "INTEGER", isKey: true),
            BrowserColumn(name: "value"),
        ], idColumns: ["id"])
        let values: [Value] = [.null, .text(""), .blob([0, 1]), .text("\u{1b}]0;pwned\u{7}\u{1b}[2J"), .text("日本語のテキスト"),
                               .text(String(repeating: "long ", count: 20)), .real(1.5), .text("NULL")]
        let rows = values.enumerated().map { i, v in BrowserRow(id: [.integer(Int64(i + 1))], values: [.integer(Int64(i + 1)), v]) }
        return MemoryDataSource([(entity, rows)])
    }

    @Test func specialValuesAreShownDistinctlyAndSafely() throws {
        let model = try makeModel(Self.source(), entity: "Mixed", width: 60, height: 12)
        model.press(.down)
        let screen = model.screen
        #expect(!screen.text.contains("\u{1b}"))
        #expect(!screen.text.contains("\u{7}"))
        #expect(screen.line(2).contains("NULL"))
        #expect(screen.line(3).contains("\"\""))
        #expect(screen.line(4).contains("<blob 2 bytes>"))
        #expect(screen.line(5).contains("\\x1b]0;pwned\\x07\\x1b[2J"))
        #expect(screen.line(6).contains("日本語のテキスト"))
        #expect(screen.line(7).contains("…"))
        // The stand-ins have their own style; the text "NULL" does not.
        let nullX = try #require(screen.line(2).range(of: "NULL")).lowerBound.utf16Offset(in: screen.line(2))
        #expect(screen.style(x: nullX, y: 2) == .special)
        let textNullX = try #require(screen.line(9).range(of: "NULL")).lowerBound.utf16Offset(in: screen.line(9))
        #expect(screen.style(x: textNullX, y: 9) == .normal)
    }

    /// The title line says the count, the sort and that the table is read-only, cut at the
    /// screen's edge wherever that falls.
    @Test func theTitleIsCutAtTheScreensEdge() throws {
        let full = " Album  100 rows  sort Title ↑  [read-only]"
        for width in [12, 29, 30, 40, 43, 60] {
            let model = BrowserModel(source: makeSource(), width: width, height: 12, readOnly: true)
            try model.start(entity: "Album", filter: nil, sort: BrowserSort(column: "Title", direction: .ascending))
            model.runPendingCounts()
            let expected = String(full.prefix(width))
            #expect(model.screen.line(0) == expected + String(repeating: " ", count: width - expected.count), "width \(width)")
        }
    }

    @Test func cursorCellIsHighlightedAndNumbersAlignRight() throws {
        let model = try makeModel(width: 80, height: 12)
        model.press(.down, .right)
        let screen = model.screen
        #expect(screen.style(x: 8, y: 3) == .cursor)
        #expect(screen.style(x: 0, y: 3) == .cursorRow)
        #expect(screen.style(x: 8, y: 2) == .normal)
        // AlbumId is 7 wide; "1" sits at its right edge.
        #expect(screen.line(2).hasPrefix("      1 "))
    }

    @Test func everySizeFromFortyByTenRenders() throws {
        let model = try makeModel()
        for (w, h) in [(40, 10), (41, 11), (80, 24), (200, 60), (12, 3)] {
            model.handle(.resize(width: w, height: h))
            let screen = model.screen
            #expect(screen.width == w && screen.height == h)
            for y in 0..<h { #expect(CellText.width(of: screen.line(y)) == w) }
        }
        model.handle(.resize(width: 40, height: 10))
        let small = model.screen
        #expect(small.line(0).hasPrefix(" Album  100 rows"))
        #expect(small.line(9).hasPrefix("? help"))
        #expect(small.text.contains("Album 001"))
    }
}
