import PortalEngine
import PortalTUI

/// csv (RFC 4180 quoting) and tsv (backslash escapes), one line per row, `\n` line ends.
final class DelimitedRenderer: RowRenderer {
    private let options: OutputOptions
    let stream: OutputStream
    let tab: Bool
    let null: String
    /// csv: every value written in the form `import` reads back with its type (`ValueEncoding`).
    let typed: Bool
    /// How many blobs were written as base64 text, which tsv cannot tell from text.
    private(set) var blobsAsText = 0
    /// tsv: the columns that keep any type (declared BLOB or without a type), where a number
    /// is read back as its text; set by `export` when it knows them.
    var untypedColumns: [Bool] = []
    /// How many numbers were written to those columns.
    private(set) var numbersAsText = 0

    init(_ options: OutputOptions, _ stream: OutputStream, tab: Bool) {
        self.options = options
        self.stream = stream
        self.tab = tab
        self.null = options.nullText ?? ""
        self.typed = options.typedFields && !tab
    }

    func begin(columns: [String]) {
        guard options.header else { return }
        writeLine(columns.map(Value.text), header: true)
    }

    func row(_ values: [Value]) { writeLine(values, header: false) }

    func end() {}

    private func writeLine(_ values: [Value], header: Bool) {
        for (i, value) in values.enumerated() {
            if i > 0 { stream.write(tab ? 9 : 44) }
            if !header && ValueText.isNumber(value) { countNumber(column: i) }
            if case .null = value, !header {
                stream.write(null)
            } else {
                write(value)
            }
        }
        stream.write(10)
    }

    /// A value other than NULL (the general path, for the statement fast path too).
    func write(_ value: Value) {
        if typed {
            switch value {
            case .text(let text): return writeCSV(text, quoted: true)
            case .blob(let bytes): return stream.write(ValueEncoding.blobLiteral(bytes))
            default: break
            }
        }
        if case .blob = value { blobsAsText += 1 }
        let text = ValueText.plain(value, null: null)
        // Text that reads as an infinity is written quoted or escaped: only a real is written as is.
        if case .text = value, ValueEncoding.infinity(text) != nil {
            if tab {
                stream.write(92)
                return writeTSV(text)
            }
            return writeCSV(text, quoted: true)
        }
        if tab { writeTSV(text) } else { writeCSV(text) }
    }

    /// Counts a number written to `column` when tsv reads it back as text.
    @inline(__always)
    func countNumber(column: Int) {
        if column < untypedColumns.count && untypedColumns[column] { numbersAsText += 1 }
    }

    func writeCSV(_ text: String, quoted: Bool = false) {
        var text = text
        text.withUTF8 { writeCSV($0, quoted: quoted) }
    }

    func writeCSV(_ bytes: UnsafeBufferPointer<UInt8>, quoted: Bool = false) {
        // An empty value is quoted: an empty unquoted field is NULL (see DelimitedReader).
        let needsQuotes = quoted || bytes.isEmpty || bytes.contains { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }
        guard needsQuotes else { return stream.write(bytes: bytes) }
        stream.write(34)
        for byte in bytes {
            if byte == 34 { stream.write(34) }
            stream.write(byte)
        }
        stream.write(34)
    }

    func writeTSV(_ text: String) {
        var text = text
        text.withUTF8 { writeTSV($0) }
    }

    func writeTSV(_ bytes: UnsafeBufferPointer<UInt8>) {
        let needsEscapes = bytes.contains { $0 == 9 || $0 == 10 || $0 == 13 || $0 == 92 }
        guard needsEscapes else { return stream.write(bytes: bytes) }
        for byte in bytes {
            switch byte {
            case 9: stream.write("\\t")
            case 10: stream.write("\\n")
            case 13: stream.write("\\r")
            case 92: stream.write("\\\\")
            default: stream.write(byte)
            }
        }
    }
}

/// json (one array, an object per line inside it) and ndjson (an object per line).
final class JSONRenderer: RowRenderer {
    let stream: OutputStream
    private let lines: Bool
    private(set) var keys: [String] = []
    /// The keys' bytes, for the statement fast path.
    private(set) var keyBytes: [[UInt8]] = []
    private var rows = 0

    init(_ options: OutputOptions, _ stream: OutputStream, lines: Bool) {
        self.stream = stream
        self.lines = lines
    }

    func begin(columns: [String]) {
        // Each key is escaped once, with its quotes and colon.
        keys = columns.map { JSONText.string($0) + ":" }
        keyBytes = keys.map { Array($0.utf8) }
        if !lines { stream.write("[") }
    }

    func row(_ values: [Value]) {
        beginRow()
        for (i, value) in values.enumerated() where i < keys.count {
            if i > 0 { stream.write(44) }
            stream.write(keys[i])
            JSONText.write(value, to: stream)
        }
        endRow()
    }

    func beginRow() {
        if !lines { stream.write(rows == 0 ? "\n" : ",\n") }
        rows += 1
        stream.write(123)
    }

    func endRow() {
        stream.write(125)
        if lines { stream.write(10) }
    }

    func end() {
        if !lines { stream.write(rows == 0 ? "]\n" : "\n]\n") }
    }
}

enum JSONText {
    static func write(_ value: Value, to stream: OutputStream) {
        switch value {
        case .null: stream.write("null")
        case .integer(let i): stream.write(String(i))
        case .real(let r): writeReal(r, to: stream)
        // Every digit, as a JSON number (JSON's numbers have no limit of digits).
        case .decimal(let d): stream.write(d.text)
        case .text(let t): writeString(t, to: stream)
        case .blob(let b): writeBlob(b, to: stream)
        }
    }

    /// A real; infinity and NaN, which JSON has no number for, encoded (`ValueEncoding`).
    static func writeReal(_ value: Double, to stream: OutputStream) {
        guard let word = ValueEncoding.nonFiniteWord(value) else { return stream.write(value.description) }
        stream.write("{\"\(ValueEncoding.realKey)\":\"\(word)\"}")
    }

    /// A blob, encoded as sqlite-utils writes it (`ValueEncoding`).
    static func writeBlob(_ bytes: [UInt8], to stream: OutputStream) {
        stream.write("{\"\(ValueEncoding.base64Key)\":true,\"\(ValueEncoding.encodedKey)\":")
        writeString(Base64.encode(bytes), to: stream)
        stream.write(125)
    }

    static func string(_ text: String) -> String {
        let stream = OutputStream()
        writeString(text, to: stream)
        return stream.text
    }

    static func writeString(_ text: String, to stream: OutputStream) {
        var text = text
        text.withUTF8 { writeString($0, to: stream) }
    }

    static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, to stream: OutputStream) {
        stream.write(34)
        if !bytes.contains(where: { $0 < 0x20 || $0 == 34 || $0 == 92 }) {
            stream.write(bytes: bytes)
            stream.write(34)
            return
        }
        for byte in bytes {
            switch byte {
            case 34: stream.write("\\\"")
            case 92: stream.write("\\\\")
            case 10: stream.write("\\n")
            case 13: stream.write("\\r")
            case 9: stream.write("\\t")
            case 0..<0x20: stream.write("\\u00" + ValueText.hex2(UInt32(byte)))
            default: stream.write(byte)
            }
        }
        stream.write(34)
    }
}

/// `attribute = value`, one per line, a blank line between entities.
final class LineRenderer: RowRenderer {
    private let options: OutputOptions
    private let stream: OutputStream
    private var names: [String] = []
    private var rows = 0
    private let null: String

    init(_ options: OutputOptions, _ stream: OutputStream) {
        self.options = options
        self.stream = stream
        self.null = options.nullText ?? "NULL"
    }

    func begin(columns: [String]) { names = columns.map(TerminalText.escaped) }

    func row(_ values: [Value]) {
        if rows > 0 { stream.write(10) }
        rows += 1
        for (i, value) in values.enumerated() where i < names.count {
            stream.write(names[i])
            stream.write(" = ")
            stream.write(ValueText.display(value, null: null, escape: options.escapeControlCharacters))
            stream.write(10)
        }
    }

    func end() {}
}

/// A GitHub table: `|` in values escaped as `\|`, line breaks as `<br>`.
final class MarkdownRenderer: RowRenderer {
    private let options: OutputOptions
    private let stream: OutputStream
    private let null: String

    init(_ options: OutputOptions, _ stream: OutputStream) {
        self.options = options
        self.stream = stream
        self.null = options.nullText ?? "NULL"
    }

    func begin(columns: [String]) {
        guard options.header else { return }
        writeLine(columns.map(TerminalText.escaped))
        writeLine(columns.map { _ in "---" })
    }

    func row(_ values: [Value]) {
        writeLine(values.map { ValueText.display($0, null: null, escape: true) })
    }

    func end() {}

    private func writeLine(_ cells: [String]) {
        stream.write("|")
        for cell in cells {
            stream.write(" ")
            stream.write(escape(cell))
            stream.write(" |")
        }
        stream.write(10)
    }

    private func escape(_ cell: String) -> String {
        guard cell.utf8.contains(where: { $0 == 124 || $0 == 10 || $0 == 13 }) else { return cell }
        return cell.replacingOccurrences("|", with: "\\|").replacingOccurrences("\r\n", with: "<br>")
            .replacingOccurrences("\n", with: "<br>").replacingOccurrences("\r", with: "<br>")
    }
}

extension String {
    /// Replaces every occurrence of `target` (Foundation-free).
    func replacingOccurrences(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        result += rest
        return result
    }
}
