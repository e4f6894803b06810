import PortalEngine

/// How export files carry the values their format has no plain word for, and how import reads
/// them back. Import decodes only these forms, and only where an export writes them: text that
/// merely looks like base64 or a number stays text.
///
/// - json and ndjson: a blob is `{"$base64": true, "encoded": "…"}` (as sqlite-utils writes
///   it); infinity and NaN are `{"$real": "Infinity"}`, `{"$real": "-Infinity"}`,
///   `{"$real": "NaN"}`. Integers are written in full (past 2^53 too: a reader of JSON numbers
///   as doubles rounds them, ours does not), and so are exact decimals (PostgreSQL's `numeric`,
///   every digit and its scale), read back as such.
/// - csv as `export` writes it: the header's names quoted, which marks the file; text always
///   quoted; NULL an empty unquoted field; numbers unquoted (`Inf`, `-Inf`, `NaN` for the reals
///   without digits); a blob unquoted as an SQL literal, `X'00FF'`.
/// - tsv has no quotes and no blobs: a blob is written as base64 text (with a warning), NULL
///   as `\N`, text that reads as an infinity with its first character escaped (`\Inf`).
enum ValueEncoding {
    static let base64Key = "$base64"
    static let encodedKey = "encoded"
    static let realKey = "$real"

    /// The word for a real without digits (JSON's `$real`), nil for a finite one.
    static func nonFiniteWord(_ value: Double) -> String? {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return nil
    }

    /// The real a `$real` word names; nil for any other word.
    static func nonFinite(_ word: String) -> Double? {
        switch word {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case "NaN": return .nan
        default: return nil
        }
    }

    /// The infinity that csv and tsv write as `Inf` or `-Inf` (as sqlite3 shows it); nil for
    /// any other text.
    static func infinity(_ text: String) -> Double? {
        switch text {
        case "Inf": return .infinity
        case "-Inf": return -.infinity
        default: return nil
        }
    }

    /// Whether text is `Inf` or `-Inf`, which csv and tsv write quoted or escaped.
    @inline(__always)
    static func isInfinityWord(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count == 3 || count == 4, bytes[count - 1] == 102, bytes[count - 2] == 110, bytes[count - 3] == 73 else { return false }
        return count == 3 || bytes[0] == 45
    }

    /// A blob as an SQL literal, `X'00FF'` (csv).
    static func blobLiteral(_ bytes: [UInt8]) -> String {
        var text = "X'"
        text.reserveCapacity(bytes.count * 2 + 3)
        for byte in bytes { text += ValueText.hex2(UInt32(byte)).uppercased() }
        return text + "'"
    }

    /// The bytes of an `X'…'` literal (either case, an even count of hexadecimal digits); nil
    /// for anything else.
    static func blob(literal text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes[0] == 88 || bytes[0] == 120, bytes[1] == 39, bytes[bytes.count - 1] == 39,
              bytes.count % 2 == 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count - 3) / 2)
        var i = 2
        while i < bytes.count - 1 {
            guard let high = hexValue(bytes[i]), let low = hexValue(bytes[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: return digit - 48
        case 65...70: return digit - 55
        case 97...102: return digit - 87
        default: return nil
        }
    }

    /// The value of an unquoted field of a csv file `export` wrote: a number (`Inf`, `-Inf` and
    /// `NaN` included) or a blob literal. Anything else (a file edited by hand) stays text.
    static func unquotedField(_ text: String) -> Value {
        // Numbers only as export writes them (`007` and `+5` are no number it writes).
        if JSONObjectParser.isJSONNumber(text.utf8) {
            if let integer = Int64(text) { return .integer(integer) }
            // Past the 64-bit range an integer stays text: the import refuses it in a column that
            // would round it to a real.
            guard isInteger(text) else {
                return ExactDecimal.literal(text).map(Value.decimal) ?? Double(text).map(Value.real) ?? .text(text)
            }
            return .text(text)
        }
        if let real = infinity(text) { return .real(real) }
        if text == "NaN" { return .real(.nan) }
        return blob(literal: text).map(Value.blob) ?? .text(text)
    }

    /// Whether `text` is an integer literal (an optional sign, then digits only), of any size.
    static func isInteger<S: StringProtocol>(_ text: S) -> Bool {
        var digits = text.utf8[...]
        if digits.first == 43 || digits.first == 45 { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.allSatisfy { (48...57).contains($0) }
    }

    /// An integer literal past the 64-bit range, which SQLite stores as a rounded REAL in a
    /// column of numeric affinity (SQLite trims spaces around it first).
    static func isOutOfRangeInteger(_ text: String) -> Bool {
        let trimmed = text.utf8.count < 19 ? "" : text.trimmingWhitespace()
        return isInteger(trimmed) && Int64(trimmed) == nil
    }
}
