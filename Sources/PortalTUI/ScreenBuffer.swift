/// How a cell is drawn. The ncurses backend maps each to colours, or to attributes alone when
/// the terminal is monochrome.
public enum CellStyle: Sendable, Hashable {
    case normal, title, header, cursor, cursorRow, special, status, error, pane, paneSelected, modal, keyColumn
}

/// One terminal cell: a grapheme cluster (or "" for the right half of a wide character).
public struct ScreenCell: Sendable, Hashable {
    public var text: String
    public var style: CellStyle
    public init(text: String = " ", style: CellStyle = .normal) {
        self.text = text
        self.style = style
    }
}

/// What the screen should show: rows of cells with their display widths respected.
public struct ScreenBuffer: Sendable {
    public let width: Int
    public let height: Int
    public private(set) var cells: [[ScreenCell]]
    /// Where the terminal's cursor should be (the caret of a text field), if shown at all.
    public var cursor: (x: Int, y: Int)?

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: Array(repeating: ScreenCell(), count: self.width), count: self.height)
    }

    /// Writes `text` at (x, y) using at most `maxWidth` columns; returns the columns used.
    /// A wide character that would straddle the limit is replaced by a space.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height, x >= 0 else { return 0 }
        let limit = min(width - x, maxWidth ?? width)
        if CellText.isPrintableASCII(text) { return putASCII(text, x: x, y: y, style: style, limit: limit) }
        var column = x
        var used = 0
        for character in text {
            let w = CellText.width(of: character)
            if w == 0 {
                // A lone combining mark or format character: attach it to the previous cell.
                if column > x { cells[y][column - 1].text.append(character) }
                continue
            }
            if used + w > limit {
                if used < limit { cells[y][column] = ScreenCell(text: " ", style: style); used += 1 }
                break
            }
            cells[y][column] = ScreenCell(text: String(character), style: style)
            if w == 2 { cells[y][column + 1] = ScreenCell(text: "", style: style) }
            column += w
            used += w
        }
        return used
    }

    /// The common case, without grapheme breaking: one byte, one cell.
    private mutating func putASCII(_ text: String, x: Int, y: Int, style: CellStyle, limit: Int) -> Int {
        var used = 0
        for byte in text.utf8 {
            if used >= limit { break }
            cells[y][x + used] = ScreenCell(text: Self.asciiStrings[Int(byte)], style: style)
            used += 1
        }
        return used
    }

    /// One small string per ASCII byte, made once: copying one costs no allocation.
    private static let asciiStrings: [String] = (0..<128).map { String(UnicodeScalar(UInt8($0))) }

    /// Fills `count` cells from (x, y) with spaces in `style`.
    public mutating func fill(x: Int, y: Int, count: Int, style: CellStyle) {
        guard y >= 0, y < height else { return }
        var column = max(0, x)
        while column < min(width, x + count) {
            cells[y][column] = ScreenCell(text: " ", style: style)
            column += 1
        }
    }

    /// The text of one row, as a terminal would show it.
    public func line(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        return cells[y].map(\.text).joined()
    }

    /// Every row, joined by newlines, trailing spaces kept.
    public var text: String { (0..<height).map(line).joined(separator: "\n") }

    /// The style of the cell at (x, y).
    public func style(x: Int, y: Int) -> CellStyle? {
        guard y >= 0, y < height, x >= 0, x < width else { return nil }
        return cells[y][x].style
    }
}
