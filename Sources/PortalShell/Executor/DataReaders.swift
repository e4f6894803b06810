import PortalEngine

/// A record read from an import file: values by header name, and the line it started on.
struct ImportRecord {
    var line: Int
    var fields: [(name: String, value: Value)]
    /// The line that names the fields: the header row in csv/tsv, the record itself in json.
    var namesLine: Int
    init(line: Int, fields: [(name: String, value: Value)], namesLine: Int? = nil) {
        self.line = line
        self.fields = fields
        self.namesLine = namesLine ?? line
    }
}

/// Why an import file could not be read: which line or record, and why.
struct ImportError: Error {
    var line: Int
    var message: String
}

/// RFC 4180 CSV and backslash-escaped TSV. The first row names the attributes. In csv an empty
/// unquoted field is NULL and a quoted empty field is empty text. tsv has no quotes: `\N` is
/// NULL, and an empty field is NULL too unless the file writes its NULLs as `\N` (as `export`
/// does), in which case it is empty text.
enum DelimitedReader {
    /// How tsv writes NULL where it must differ from empty text (`export … as tsv`).
    static let tsvNull = "\\N"

    static func records(_ bytes: [UInt8], tab: Bool) throws(ImportError)
        -> (header: [String], rows: [(line: Int, values: [Value])], headerLine: Int) {
        let emptyIsText = tab && marksNulls(bytes)
        var rows: [(line: Int, values: [Value])] = []
        var header: [String]?
        var headerLine = 1
        var i = 0
        var line = 1
        let count = bytes.count
        // Skip a UTF-8 byte order mark.
        if count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        while i < count {
            let recordLine = line
            var values: [Value] = []
            var field: [UInt8] = []
            var quoted = false
            var endOfRecord = false
            while !endOfRecord {
                if i >= count {
                    endOfRecord = true
                } else if !tab && bytes[i] == 34 && field.isEmpty && !quoted {
                    quoted = true
                    i += 1
                    var closed = false
                    while i < count {
                        if bytes[i] == 34 {
                            if i + 1 < count && bytes[i + 1] == 34 {
                                field.append(34)
                                i += 2
                                continue
                            }
                            i += 1
                            closed = true
                            break
                        }
                        if bytes[i] == 10 { line += 1 }
                        field.append(bytes[i])
                        i += 1
                    }
                    if !closed { throw ImportError(line: recordLine, message: "a quoted field is not closed") }
                    if i < count && bytes[i] != 44 && bytes[i] != 10 && bytes[i] != 13 {
                        throw ImportError(line: line, message: "unexpected character after a closing quote")
                    }
                    continue
                } else if bytes[i] == (tab ? 9 : 44) {
                    values.append(value(field, quoted: quoted || emptyIsText, tab: tab))
                    field = []
                    quoted = false
                    i += 1
                    continue
                } else if bytes[i] == 10 || bytes[i] == 13 {
                    if bytes[i] == 13 && i + 1 < count && bytes[i + 1] == 10 { i += 1 }
                    i += 1
                    line += 1
                    endOfRecord = true
                } else {
                    field.append(bytes[i])
                    i += 1
                    continue
                }
            }
            let isBlankLine = values.isEmpty && field.isEmpty && !quoted
            values.append(value(field, quoted: quoted || emptyIsText, tab: tab))
            // A blank line is skipped, except in a one-column file whose empty fields are text.
            if isBlankLine && !(emptyIsText && header?.count == 1) { continue }
            if header == nil {
                header = values.map { ValueText.plain($0, null: "") }
                headerLine = recordLine
            } else if let header, values.count != header.count {
                throw ImportError(line: recordLine, message: "\(values.count) field\(values.count == 1 ? "" : "s"), but the header names \(header.count)")
            } else {
                rows.append((recordLine, values))
            }
        }
        guard let header else { throw ImportError(line: 1, message: "the file is empty (a header row naming the attributes is needed)") }
        return (header, rows, headerLine)
    }

    /// True when some tsv field is exactly `\N`: the file marks its NULLs.
    private static func marksNulls(_ bytes: [UInt8]) -> Bool {
        var start = 0
        for (i, byte) in bytes.enumerated() where byte == 9 || byte == 10 || byte == 13 {
            if i - start == 2 && bytes[start] == 92 && bytes[start + 1] == 78 { return true }
            start = i + 1
        }
        return bytes.count - start == 2 && bytes[start] == 92 && bytes[start + 1] == 78
    }

    private static func value(_ field: [UInt8], quoted: Bool, tab: Bool) -> Value {
        if field.isEmpty && !quoted { return .null }
        guard tab, field.contains(92) else { return .text(String(decoding: field, as: UTF8.self)) }
        var out: [UInt8] = []
        var i = 0
        while i < field.count {
            if field[i] == 92 && i + 1 < field.count {
                switch field[i + 1] {
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "N") where field.count == 2: return .null
                default: out.append(field[i + 1])
                }
                i += 2
            } else {
                out.append(field[i])
                i += 1
            }
        }
        return .text(String(decoding: out, as: UTF8.self))
    }
}

/// A small JSON reader for imports: an array of flat objects (json) or one object per line (ndjson).
struct JSONReader {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1

    static func records(_ bytes: [UInt8], lines: Bool) throws(ImportError) -> [ImportRecord] {
        var reader = JSONReader(bytes: bytes)
        return try lines ? reader.objectPerLine() : reader.array()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func skipSpace() {
        while i < bytes.count, [9, 10, 13, 32].contains(bytes[i]) {
            if bytes[i] == 10 { line += 1 }
            i += 1
        }
    }

    private func fail(_ message: String) -> ImportError { ImportError(line: line, message: message) }

    private mutating func array() throws(ImportError) -> [ImportRecord] {
        skipSpace()
        guard i < bytes.count, bytes[i] == 91 else { throw fail("expected '[' (a JSON array of objects)") }
        i += 1
        var records: [ImportRecord] = []
        skipSpace()
        if i < bytes.count && bytes[i] == 93 { i += 1 } else {
            while true {
                skipSpace()
                records.append(try object())
                skipSpace()
                guard i < bytes.count else { throw fail("the array is not closed") }
                if bytes[i] == 44 { i += 1; continue }
                if bytes[i] == 93 { i += 1; break }
                throw fail("expected ',' or ']' after an object")
            }
        }
        skipSpace()
        if i < bytes.count { throw fail("unexpected text after the array") }
        return records
    }

    private mutating func objectPerLine() throws(ImportError) -> [ImportRecord] {
        var records: [ImportRecord] = []
        while true {
            skipSpace()
            if i >= bytes.count { return records }
            let objectLine = line
            records.append(try object())
            while i < bytes.count && (bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 13) { i += 1 }
            if i < bytes.count && bytes[i] != 10 { throw ImportError(line: objectLine, message: "expected one object per line") }
        }
    }

    private mutating func object() throws(ImportError) -> ImportRecord {
        let start = line
        guard i < bytes.count, bytes[i] == 123 else { throw fail("expected an object ('{')") }
        i += 1
        var fields: [(String, Value)] = []
        skipSpace()
        if i < bytes.count && bytes[i] == 125 {
            i += 1
            return ImportRecord(line: start, fields: fields)
        }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == 34 else { throw fail("expected a key (a string)") }
            let key = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == 58 else { throw fail("expected ':' after \"\(key)\"") }
            i += 1
            skipSpace()
            fields.append((key, try value(key)))
            skipSpace()
            guard i < bytes.count else { throw fail("the object is not closed") }
            if bytes[i] == 44 { i += 1; continue }
            if bytes[i] == 125 { i += 1; break }
            throw fail("expected ',' or '}' in an object")
        }
        return ImportRecord(line: start, fields: fields)
    }

    private mutating func value(_ key: String) throws(ImportError) -> Value {
        guard i < bytes.count else { throw fail("expected a value for \"\(key)\"") }
        switch bytes[i] {
        case 34: return .text(try string())
        case 123, 91: throw fail("\"\(key)\" holds an object or array; only strings, numbers, booleans and null can be imported")
        default:
            var end = i
            while end < bytes.count, !(bytes[end] == 44 || bytes[end] == 125 || bytes[end] == 93 || [9, 10, 13, 32].contains(bytes[end])) { end += 1 }
            let word = String(decoding: bytes[i..<end], as: UTF8.self)
            i = end
            switch word {
            case "null": return .null
            case "true": return .integer(1)
            case "false": return .integer(0)
            default:
                if let n = Int64(word) { return .integer(n) }
                if let r = Double(word), word.first.map({ $0 == "-" || $0.isNumber }) ?? false { return .real(r) }
                throw fail("'\(word)' is not a JSON value")
            }
        }
    }

    private mutating func string() throws(ImportError) -> String {
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let b = bytes[i]
            if b == 34 {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b == 10 { throw fail("a string is not closed on its line") }
            if b == 92 {
                guard i + 1 < bytes.count else { break }
                let e = bytes[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00, i + 1 < bytes.count, bytes[i] == 92, bytes[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let low = try hex4()
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8))
                default: out.append(e)
                }
                continue
            }
            out.append(b)
            i += 1
        }
        throw fail("a string is not closed")
    }

    private mutating func hex4() throws(ImportError) -> UInt32 {
        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16) else {
            throw fail("bad \\u escape")
        }
        i += 4
        return v
    }
}
