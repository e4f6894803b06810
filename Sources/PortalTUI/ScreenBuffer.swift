/// How a cell is drawn. The ncurses backend maps each to colours, or to attributes alone when
/// the terminal is monochrome.
public enum CellStyle: UInt8, Sendable, Hashable {
    case normal, title, header, cursor, cursorRow, special, status, error, pane, paneSelected, modal, keyColumn
}

/// One terminal cell, as a plain value (no reference to count) packed in 32 bits, so that
/// clearing and filling a screen moves half the memory: the low byte is the style, the rest the
/// code — 0 the right half of a wide character, up to 0x10FFFF that one Unicode scalar, above
/// it an entry of the buffer's cluster table (a character of several scalars).
public struct ScreenCell: Sendable, Hashable {
    private var bits: UInt32

    init(code: UInt32, style: CellStyle) {
        bits = code << 8 | UInt32(style.rawValue)
    }

    var code: UInt32 {
        get { bits >> 8 }
        set { bits = newValue << 8 | (bits & 0xFF) }
    }

    public var style: CellStyle {
        get { CellStyle(rawValue: UInt8(truncatingIfNeeded: bits)) ?? .normal }
        set { bits = (bits & ~0xFF) | UInt32(newValue.rawValue) }
    }
}

/// What the screen should show: rows of cells with their display widths respected.
public struct ScreenBuffer: Sendable {
    public let width: Int
    public let height: Int
    /// Row-major, `width × height`.
    private var cells: [ScreenCell]
    /// Grapheme clusters of several scalars, referred to by cell codes from `firstCluster` on.
    private var clusters: [String] = []
    /// Where the terminal's cursor should be (the caret of a text field), if shown at all.
    public var cursor: (x: Int, y: Int)?

    private static let space = UInt32(UInt8(ascii: " "))
    private static let firstCluster: UInt32 = 0x110000
    private static let maxClusters = (1 << 24) - Int(firstCluster)

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: ScreenCell(code: Self.space, style: .normal), count: self.width * self.height)
    }

    /// Writes `text` at (x, y) using at most `maxWidth` columns; returns the columns used.
    /// A wide character that would straddle the limit is replaced by a space.
    @discardableResult
    public mutating func put(_ text: String, x: Int, y: Int, style: CellStyle, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height, x >= 0, x < width else { return 0 }
        let limit = min(width - x, maxWidth ?? width)
        let start = y * width + x
        if TerminalText.isPrintableASCII(text) {
            // The common case, without grapheme breaking: one byte, one cell.
            var used = 0
            cells.withUnsafeMutableBufferPointer { cells in
                for byte in text.utf8 {
                    if used >= limit { break }
                    cells[start + used] = ScreenCell(code: UInt32(byte), style: style)
                    used += 1
                }
            }
            return used
        }
        if let used = putSimpleScalars(text, at: start, limit: limit, style: style) { return used }
        var used = 0
        for character in text {
            if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7F {
                // Printable ASCII amid other text (a title with `…`): one cell, no width lookup.
                guard used < limit else { break }
                cells[start + used] = ScreenCell(code: UInt32(ascii), style: style)
                used += 1
                continue
            }
            let w = CellText.width(of: character)
            if w == 0 {
                // A lone combining mark or format character: attach it to the previous cell.
                if used > 0 { attach(character, at: start + used - 1) }
                continue
            }
            if used + w > limit {
                if used < limit { cells[start + used] = ScreenCell(code: Self.space, style: style); used += 1 }
                break
            }
            cells[start + used] = ScreenCell(code: code(for: character), style: style)
            if w == 2 { cells[start + used + 1] = ScreenCell(code: 0, style: style) }
            used += w
        }
        return used
    }

    /// Writes `n` right-aligned in the `width` columns from (x, y), without building its text;
    /// false (nothing written) when it does not fit there.
    mutating func putInteger(_ n: Int64, x: Int, y: Int, width: Int, style: CellStyle) -> Bool {
        let digits = CellText.digitCount(n.magnitude)
        let used = digits + (n < 0 ? 1 : 0)
        guard y >= 0, y < height, x >= 0, width >= used, x + width <= self.width else { return false }
        var index = y * self.width + x + width - 1
        var rest = n.magnitude
        cells.withUnsafeMutableBufferPointer { cells in
            for _ in 0..<digits {
                cells[index] = ScreenCell(code: UInt32(48 + rest % 10), style: style)
                rest /= 10
                index -= 1
            }
            if n < 0 { cells[index] = ScreenCell(code: UInt32(UInt8(ascii: "-")), style: style) }
        }
        return true
    }

    /// Writes text whose every scalar is a character of its own (no combining marks, joiners,
    /// selectors or controls: see `isStandalone`) scalar by scalar, without grapheme breaking —
    /// titles with `…` or `↑`, accented names, CJK. Nil (nothing written) for any other text.
    private mutating func putSimpleScalars(_ text: String, at start: Int, limit: Int, style: CellStyle) -> Int? {
        guard text.unicodeScalars.allSatisfy(Self.isStandalone) else { return nil }
        var used = 0
        for scalar in text.unicodeScalars {
            let w = scalar.value < 0x300 ? 1 : CellText.width(of: scalar)
            if used + w > limit {
                if used < limit { cells[start + used] = ScreenCell(code: Self.space, style: style); used += 1 }
                break
            }
            cells[start + used] = ScreenCell(code: scalar.value, style: style)
            if w == 2 { cells[start + used + 1] = ScreenCell(code: 0, style: style) }
            used += w
        }
        return used
    }

    /// True for a printable scalar that always forms a grapheme cluster on its own: printable
    /// Latin (up to U+02FF, before the combining diacritics), general punctuation, arrows,
    /// symbols and box drawing, CJK ideographs and Hangul syllables. Everything else (marks,
    /// joiners, variation selectors, jamo, regional indicators, emoji) takes the grapheme path.
    static func isStandalone(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E, 0xA0...0xAC, 0xAE...0x2FF, 0x2010...0x2027, 0x2030...0x205E, 0x2190...0x2BFF,
             0x4E00...0x9FFF, 0xAC00...0xD7A3:
            return true
        default:
            return false
        }
    }

    private mutating func code(for character: Character) -> UInt32 {
        let scalars = character.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first { return scalar.value }
        return clusterCode(String(character))
    }

    /// A code for a character of several scalars. A code has 24 bits: past that many clusters
    /// (never on a real screen), `?`.
    private mutating func clusterCode(_ cluster: String) -> UInt32 {
        guard clusters.count < Self.maxClusters else { return UInt32(UInt8(ascii: "?")) }
        clusters.append(cluster)
        return Self.firstCluster + UInt32(clusters.count - 1)
    }

    private mutating func attach(_ character: Character, at index: Int) {
        cells[index].code = clusterCode(text(ofCode: cells[index].code) + String(character))
    }

    private func text(ofCode code: UInt32) -> String {
        if code == 0 { return "" }
        if code < Self.firstCluster { return Unicode.Scalar(code).map { String(Character($0)) } ?? "?" }
        return clusters[Int(code - Self.firstCluster)]
    }

    /// Writes `count` copies of a one-cell character from (x, y), as far as the line goes (a
    /// bar of `F` is thousands of cells of one character: no text to build or measure).
    public mutating func repeatCharacter(_ scalar: Unicode.Scalar, count: Int, x: Int, y: Int, style: CellStyle) {
        guard y >= 0, y < height, x >= 0 else { return }
        let start = y * width
        for column in x..<min(width, x + max(0, count)) {
            cells[start + column] = ScreenCell(code: scalar.value, style: style)
        }
    }

    /// Fills `count` cells from (x, y) with spaces in `style`.
    public mutating func fill(x: Int, y: Int, count: Int, style: CellStyle) {
        fill(x: x, y: y, count: count, lines: 1, style: style)
    }

    /// Fills `count` cells from (x, y) and the same on each of the `lines - 1` lines below with
    /// spaces in `style` (a pane's background), as far as the screen goes.
    public mutating func fill(x: Int, y: Int, count: Int, lines: Int, style: CellStyle) {
        let from = max(0, x)
        let to = min(width, x + count)
        let (top, bottom) = (max(0, y), min(height, y + lines))
        guard from < to, top < bottom else { return }
        let width = self.width
        let space = ScreenCell(code: Self.space, style: style)
        cells.withUnsafeMutableBufferPointer { cells in
            for row in top..<bottom {
                UnsafeMutableBufferPointer(rebasing: cells[(row * width + from)..<(row * width + to)]).update(repeating: space)
            }
        }
    }

    /// The text of one cell ("" for the right half of a wide character).
    public func text(x: Int, y: Int) -> String {
        guard y >= 0, y < height, x >= 0, x < width else { return "" }
        return text(ofCode: cells[y * width + x].code)
    }

    /// Appends the text of one cell to `out` (the backend builds runs this way).
    func appendText(x: Int, y: Int, to out: inout String) {
        let code = cells[y * width + x].code
        if code == 0 { return }
        if code < Self.firstCluster {
            out.unicodeScalars.append(Unicode.Scalar(code) ?? "?")
        } else {
            out += clusters[Int(code - Self.firstCluster)]
        }
    }

    /// The text of one row, as a terminal would show it.
    public func line(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var out = ""
        for x in 0..<width { appendText(x: x, y: y, to: &out) }
        return out
    }

    /// Every row, joined by newlines, trailing spaces kept.
    public var text: String { (0..<height).map(line).joined(separator: "\n") }

    /// The style of the cell at (x, y).
    public func style(x: Int, y: Int) -> CellStyle? {
        guard y >= 0, y < height, x >= 0, x < width else { return nil }
        return cells[y * width + x].style
    }
}
