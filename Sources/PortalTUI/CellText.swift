import PortalEngine

/// Terminal display widths and safe text for cells: what a value looks like on screen.
enum CellText {
    /// Columns a grapheme cluster takes: 0 for combining marks and other zero-width scalars,
    /// 2 for East Asian wide and fullwidth characters (and emoji presentation), else 1.
    static func width(of character: Character) -> Int {
        var total = 0
        for scalar in character.unicodeScalars {
            if scalar.value == 0xFE0F { total = max(total, 2); continue }
            total += width(of: scalar)
        }
        return min(total, 2)
    }

    static func width(of text: some StringProtocol) -> Int {
        if isASCII(text) { return text.utf8.count }
        var total = 0
        for character in text { total += width(of: character) }
        return total
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        // Latin, general punctuation (`…`, `‘’`, `•`; not its controls and spaces from U+2028),
        // and box drawing and block elements (bars of `F` and `I`): one cell, without looking up
        // the scalar's properties.
        if v < 0x300 || (0x2010...0x2027).contains(v) || (0x2030...0x205E).contains(v) || (0x2500...0x25FC).contains(v) {
            return 1
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200B || (0x1160...0x11FF).contains(v) { return 0 }
        return isWide(v) ? 2 : 1
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges, plus the emoji blocks terminals draw wide.
    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3,
             0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1,
             0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE, 0x26D4, 0x26EA,
             0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C,
             0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C,
             0x2B50, 0x2B55, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18AFF,
             0x1B000...0x1B2FF, 0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F251,
             0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB, 0x1F900...0x1F9FF,
             0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// True when every byte is ASCII (one column each, once control characters are escaped).
    static func isASCII(_ text: some StringProtocol) -> Bool {
        TerminalText.allBytes(of: text) { $0 < 0x80 }
    }

    /// How a value is shown in a cell: its text and whether it is a stand-in (NULL, empty, blob)
    /// that must look different from real text.
    static func display(_ value: Value) -> (text: String, isSpecial: Bool) {
        switch value {
        case .null: return ("NULL", true)
        case .integer(let i): return (String(i), false)
        case .real(let d): return (formatReal(d), false)
        case .decimal(let d): return (d.text, false)
        case .text(let s): return s.isEmpty ? ("\"\"", true) : (TerminalText.escaped(s), false)
        case .blob(let b): return (TerminalText.blobSummary(b.count), true)
        }
    }

    /// The columns `display(value).text` takes; integers without building their text.
    static func displayWidth(_ value: Value) -> Int {
        guard case .integer(let i) = value else { return width(of: display(value).text) }
        return digitCount(i.magnitude) + (i < 0 ? 1 : 0)
    }

    static func digitCount(_ n: UInt64) -> Int {
        var count = 1
        var rest = n
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }

    static func formatReal(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return String(d)
    }

    /// The text cut to at most `width` columns, ending in `…` when cut.
    static func truncated(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if self.width(of: text) <= width { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = self.width(of: character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// The text split into lines of at most `width` columns (for the record view).
    static func wrapped(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var used = 0
        for character in text {
            let w = self.width(of: character)
            if used + w > width {
                lines.append(line)
                line = ""
                used = 0
            }
            line.append(character)
            used += w
        }
        lines.append(line)
        return lines
    }

    /// What the cell editor starts with: the value's plain text (NULL and blobs start empty).
    static func editable(_ value: Value) -> String {
        switch value {
        case .null, .blob: return ""
        case .integer(let i): return String(i)
        case .real(let d): return formatReal(d)
        case .decimal(let d): return d.text
        case .text(let s): return s
        }
    }
}
