import PortalEngine
import PortalTUI

/// The output formats (the man page's OUTPUT FORMATS).
public enum OutputFormat: String, CaseIterable, Sendable {
    case table, csv, tsv, json, ndjson, line, markdown
}

/// How rows are written: the format and the session settings that shape it.
public struct OutputOptions: Sendable {
    public var format: OutputFormat
    public var header: Bool
    /// NULL's text; nil means the format's default (`NULL` in table/line/markdown, empty in csv/tsv).
    public var nullText: String?
    /// Write control and invisible characters inside values escaped (`\x1b`, `\u{202e}`), by
    /// `TerminalText.escaped` (table, line and markdown formats).
    public var escapeControlCharacters: Bool
    /// ANSI colour for the header and NULL in table and line formats.
    public var color: Bool
    /// csv written for `import` to read back with every value's type (`ValueEncoding`): names
    /// and text quoted, blobs as `X'…'` literals. Set by `export`.
    var typedFields = false

    public init(format: OutputFormat, header: Bool = true, nullText: String? = nil,
                escapeControlCharacters: Bool = true, color: Bool = false) {
        self.format = format
        self.header = header
        self.nullText = nullText
        self.escapeControlCharacters = escapeControlCharacters
        self.color = color
    }
}

/// Receives a result: the column names once, then each row, then the end. Every renderer writes
/// as it goes (the table renderer holds at most its first `sampleSize` rows to fix the widths).
public protocol RowRenderer: AnyObject {
    func begin(columns: [String])
    func row(_ values: [Value])
    func end()
}

/// The renderer for these options, writing to `stream`.
public func makeRenderer(_ options: OutputOptions, stream: OutputStream) -> RowRenderer {
    switch options.format {
    case .table: return TableRenderer(options, stream)
    case .csv: return DelimitedRenderer(options, stream, tab: false)
    case .tsv: return DelimitedRenderer(options, stream, tab: true)
    case .json: return JSONRenderer(options, stream, lines: false)
    case .ndjson: return JSONRenderer(options, stream, lines: true)
    case .line: return LineRenderer(options, stream)
    case .markdown: return MarkdownRenderer(options, stream)
    }
}

/// Text forms of values shared by the renderers.
enum ValueText {
    /// A real as SQLite's shell would show it: shortest round-trip form, always with a dot or exponent.
    static func real(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "Inf" }
        return value.description
    }

    /// The plain text of a value (csv, tsv); blobs as base64.
    static func plain(_ value: Value, null: String) -> String {
        switch value {
        case .null: return null
        case .integer(let i): return String(i)
        case .real(let r): return real(r)
        case .decimal(let d): return d.text
        case .text(let t): return t
        case .blob(let b): return Base64.encode(b)
        }
    }

    /// The text shown on a terminal (table, line): control characters escaped, blobs summarised.
    static func display(_ value: Value, null: String, escape: Bool) -> String {
        switch value {
        case .blob(let b): return TerminalText.blobSummary(b.count)
        case .text(let t): return escape ? TerminalText.escaped(t) : t
        default: return plain(value, null: null)
        }
    }

    static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .integer, .real, .decimal: return true
        default: return false
        }
    }

    static func hex2(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 4) & 0xF], digits[Int(value) & 0xF]])
    }
}

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], 61, 61]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], 61]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of padded base64 text as `encode` writes it; nil when `text` is anything else.
    static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 4 * 3)
        var i = 0
        while i < digits.count {
            let last = i + 4 == digits.count
            let padding = last ? digits[(i + 2)...].filter { $0 == 61 }.count : 0
            if padding > 0 && (digits[i + 3] != 61 || (padding == 2 && digits[i + 2] != 61)) { return nil }
            var n: UInt32 = 0
            for digit in digits[i..<(i + 4 - padding)] {
                guard let value = value(of: digit) else { return nil }
                n = n << 6 | value
            }
            n <<= UInt32(6 * padding)
            let group = [UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            // Bits the padding drops must be zero, or the text is not what `encode` writes.
            if padding > 0 && group[(3 - padding)...].contains(where: { $0 != 0 }) { return nil }
            out += group[0..<(3 - padding)]
            i += 4
        }
        return out
    }

    private static func value(of digit: UInt8) -> UInt32? {
        switch digit {
        case 65...90: return UInt32(digit - 65)
        case 97...122: return UInt32(digit - 97 + 26)
        case 48...57: return UInt32(digit - 48 + 52)
        case 43: return 62
        case 47: return 63
        default: return nil
        }
    }
}
