/// Text from a database or from the user made safe to show on a terminal: the one escaping
/// function of the program. The browser's screen and the shell's output, errors, summaries and
/// carets all go through it, so a table name can never move the cursor, set the window title,
/// write the clipboard (OSC 52) or reorder what is shown around it.
public enum TerminalText {
    /// How a blob is shown on a terminal (prompt and browser alike): `<blob 1 byte>`, `<blob 3 bytes>`.
    public static func blobSummary(_ count: Int) -> String {
        "<blob \(count) byte\(count == 1 ? "" : "s")>"
    }

    /// The text with every control character and invisible format character escaped:
    /// `\n`, `\t`, `\r`; other C0 controls and DEL as `\x1b`; C1 controls, line and paragraph
    /// separators, bidirectional embeddings, overrides, isolates and marks, zero-width spaces,
    /// word joiners and byte-order marks as `\u{202e}`. A zero-width joiner between two emoji
    /// (👨‍👩‍👧) is part of the emoji and is kept. Text without any of them is returned as it is.
    public static func escaped(_ text: String) -> String {
        if isPrintableASCII(text) { return text }
        let scalars = Array(text.unicodeScalars)
        guard scalars.indices.contains(where: { needsEscape(scalars, at: $0) }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for i in scalars.indices {
            let scalar = scalars[i]
            guard needsEscape(scalars, at: i) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x00...0x1F, 0x7F: out += "\\x" + hex(scalar.value, digits: 2)
            default: out += "\\u{" + hex(scalar.value, digits: 0) + "}"
            }
        }
        return out
    }

    /// True when `scalar` may be escaped by `escaped` (a zero-width joiner only outside emoji):
    /// fast paths that see such a scalar hand the text to `escaped`.
    public static func mayNeedEscape(_ scalar: Unicode.Scalar) -> Bool {
        isControl(scalar.value) || isInvisible(scalar.value) || scalar.value == zeroWidthJoiner
    }

    /// True when every byte is a printable ASCII character: nothing to escape.
    static func isPrintableASCII(_ text: some StringProtocol) -> Bool {
        allBytes(of: text) { $0 >= 0x20 && $0 < 0x7F }
    }

    /// True when every UTF-8 byte of `text` passes `test`: the bytes are read in place when the
    /// text has them in one piece (a screen checks every string it draws this way).
    @inline(__always)
    static func allBytes(of text: some StringProtocol, _ test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? text.utf8.allSatisfy(test)
    }

    private static let zeroWidthJoiner: UInt32 = 0x200D

    private static func needsEscape(_ scalars: [Unicode.Scalar], at i: Int) -> Bool {
        let v = scalars[i].value
        if isControl(v) || isInvisible(v) { return true }
        guard v == zeroWidthJoiner else { return false }
        // Inside an emoji ZWJ sequence the joiner is what draws the family as one picture.
        return !(i > 0 && isEmojiPart(scalars[i - 1]) && i + 1 < scalars.count && isEmojiPart(scalars[i + 1]))
    }

    /// C0 controls, DEL and C1 controls.
    private static func isControl(_ v: UInt32) -> Bool {
        v < 0x20 || (v >= 0x7F && v < 0xA0)
    }

    /// Format characters that draw nothing but change what is around them: the Arabic letter
    /// mark, the Mongolian vowel separator, zero-width space, left-to-right and right-to-left
    /// marks, line and paragraph separators, bidirectional embeddings, overrides and isolates,
    /// word joiner and invisible operators, deprecated format characters, byte-order mark,
    /// interlinear annotation marks.
    private static func isInvisible(_ v: UInt32) -> Bool {
        switch v {
        case 0x061C, 0x180E, 0x200B, 0x200E, 0x200F, 0x2028...0x202E, 0x2060...0x2064, 0x2066...0x206F,
             0xFEFF, 0xFFF9...0xFFFB:
            return true
        default:
            return false
        }
    }

    /// A scalar that can stand on either side of a joiner in an emoji sequence: an emoji drawn as
    /// a picture, the variation selector that asks for one, or a skin-tone modifier.
    private static func isEmojiPart(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        return scalar.value == 0xFE0F || properties.isEmojiModifier
            || (scalar.value > 0xFF && (properties.isEmojiPresentation || properties.isEmoji))
    }

    private static func hex(_ v: UInt32, digits: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }
}
