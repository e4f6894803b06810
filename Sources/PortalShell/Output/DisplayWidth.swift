/// Terminal column widths of text: East Asian wide and fullwidth characters and emoji take two
/// columns, combining marks and zero-width characters none (what `wcwidth` would say, without
/// depending on the C library's locale tables).
enum DisplayWidth {
    /// Columns taken by a grapheme cluster: that of its first scalar, or 2 for an emoji
    /// presentation sequence.
    static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return of(first)
    }

    static func of(_ text: some StringProtocol) -> Int {
        // ASCII fast path: one column per byte.
        var ascii = true
        for byte in text.utf8 where byte >= 0x80 || byte < 0x20 { ascii = false; break }
        if ascii { return text.utf8.count }
        // Scalar by scalar (grapheme breaking is slow): combining marks count 0, and an emoji
        // presentation selector widens the character before it to 2. Parts of one emoji add
        // nothing: a skin-tone modifier, what follows a zero-width joiner, the second regional
        // indicator of a flag.
        var width = 0
        var previous = 0
        var afterJoiner = false, openFlag = false
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v == 0xFE0F {
                if previous == 1 { width += 1 }
                previous = 2
                continue
            }
            let isFlagHalf = (0x1F1E6...0x1F1FF).contains(v)
            defer { afterJoiner = v == 0x200D; openFlag = isFlagHalf && !openFlag }
            if afterJoiner || (0x1F3FB...0x1F3FF).contains(v) && previous == 2 || isFlagHalf && openFlag { continue }
            previous = isFlagHalf ? 2 : of(scalar)
            width += previous
        }
        return width
    }

    static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return 0 }
        if v < 0x300 { return 1 }
        if isZeroWidth(v) { return 0 }
        return isWide(v) ? 2 : 1
    }

    private static func isZeroWidth(_ v: UInt32) -> Bool {
        switch scalarProperties(v) {
        case .nonspacingMark, .enclosingMark, .format: return v != 0x00AD
        default: return v == 0x200B
        }
    }

    private static func scalarProperties(_ v: UInt32) -> Unicode.GeneralCategory? {
        Unicode.Scalar(v)?.properties.generalCategory
    }

    /// The East Asian Wide (W) and Fullwidth (F) ranges, plus the emoji blocks terminals draw wide.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
        0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
        0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
        0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
        0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
        0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A,
        0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB,
        0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ v: UInt32) -> Bool {
        if v < 0x1100 { return false }
        var low = 0, high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = wideRanges[mid]
            if v < range.lowerBound { high = mid - 1 } else if v > range.upperBound { low = mid + 1 } else { return true }
        }
        return false
    }

    /// The longest prefix of `text` that fits in `width` columns with a `…` after it.
    static func truncate(_ text: String, to width: Int) -> (text: String, width: Int) {
        var used = 0
        var result = ""
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return (result + "…", used + 1)
    }
}
