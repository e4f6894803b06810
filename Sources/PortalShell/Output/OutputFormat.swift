import PortalEngine
import PortalTUI

/// The output formats of SPEC section 4.
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
        case .text(let t): return t
        case .blob(let b): return Base64.encode(b)
        }
    }

    /// The text shown on a terminal (table, line): control characters escaped, blobs summarised.
    static func display(_ value: Value, null: String, escape: Bool) -> String {
        switch value {
        case .blob(let b): return "<blob \(b.count) bytes>"
        case .text(let t): return escape ? TerminalText.escaped(t) : t
        default: return plain(value, null: null)
        }
    }

    static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .integer, .real: return true
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
}
