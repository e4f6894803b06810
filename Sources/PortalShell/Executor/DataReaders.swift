import PortalEngine

/// A record read from an import file: values by header name, and the line it started on.
struct ImportRecord {
    var line: Int
    var fields: [(name: String, value: Value)]
}

/// RFC 4180 CSV and backslash-escaped TSV, read a record at a time. The first row names the
/// attributes.
///
/// An empty field is empty text in a TEXT column and NULL in any other, as a spreadsheet means
/// it (and as sqlite3 stores text) — unless the file tells NULL and empty text apart, as
/// `export` does: a csv file with some field written `""`, or whose header's names are all
/// quoted, has its unquoted empty fields NULL (and `""` empty text) in every column; a tsv file
/// with some field written `\N` has `\N` NULL and its empty fields empty text in every column.
/// (csv's `""` is always empty text.) A csv file whose header's names are all quoted is read
/// with its values' types (`ValueEncoding`); in any other file, a field is text, except `Inf`
/// and `-Inf` written as they are in a column of numeric affinity.
///
/// The file is read once: the reader takes it as not telling NULL from empty text until a field
/// shows that it does. Should a record read before that have an empty field that reads
/// otherwise once the file tells them apart, `next` throws `Remark`, and the caller reads the
/// file again from the start, `marked`.
struct DelimitedReader {
    /// The file tells NULL from empty text, which records already read did not know: read it again, marked.
    struct Remark: Error {}

    /// How tsv writes NULL where it must differ from empty text (`export … as tsv`).
    static let tsvNull = "\\N"

    private let input: ImportInput
    private let tab: Bool
    /// True when the file tells NULL from empty text (see above): known from the start (a
    /// second reading), or from a field read so far, or a typed csv file.
    private var marked: Bool
    /// csv whose header's names are all quoted, as `export` writes it: its unquoted fields are
    /// NULL, numbers and blob literals, its quoted fields text (`ValueEncoding`).
    private(set) var typed = false
    /// Which of the header's columns are TEXT; set once the header is matched to the entity.
    var textColumns: [Bool] = []
    /// Which of them have SQLite's numeric affinity: there, `Inf` and `-Inf` written as they are
    /// (not quoted, not escaped) are the reals, as csv and tsv write them.
    var numericColumns: [Bool] = []
    /// The line the next record starts on.
    private var line = 1
    /// The fields of the record being read (reused: no allocation per record).
    private var fields: [Field] = []
    /// Where the record being read is in the window, its line end included.
    private var recordBytes = 0..<0
    /// True when one of them tells NULL from empty text: csv's `""`, tsv's `\N`.
    private var marks = false
    /// The values of the record being read, and its unescaped text (reused).
    private let record = RecordBuffer()

    /// A field's bytes in the window: `start..<end`, inside its quotes when `quoted`.
    fileprivate struct Field {
        var start: Int
        var end: Int
        var quoted: Bool
        /// Holds `""` (csv) or a backslash (tsv) to undo.
        var escaped: Bool
    }

    init(_ input: ImportInput, tab: Bool, marked: Bool) {
        self.input = input
        self.tab = tab
        self.marked = marked
    }

    /// The header row: the names and its line. An empty file is an error.
    mutating func header() throws(ShellError) -> (names: [String], line: Int) {
        try input.skipByteOrderMark()
        guard let headerLine = try nextRecord(columns: nil) else {
            throw ShellError(line: 1, message: "the file is empty (a header row naming the attributes is needed)")
        }
        let names = input.withWindow { window in
            record.unescape(fields, in: window, tab: tab)
            return fields.indices.map { String(decoding: bytes($0, window), as: UTF8.self) }
        }
        if !tab && fields.allSatisfy(\.quoted) {
            typed = true
            marked = true
        }
        if marks { marked = true }
        return (names, headerLine)
    }

    /// Reads the next record and hands its values to `body` (in header order), with its line:
    /// text as `InsertField.text`, read in place and valid only inside `body`. Returns the
    /// line, or nil at the end. Throws `ShellError`, `Remark` (see above), or `body`'s error.
    mutating func next(_ body: (_ values: [InsertField], _ line: Int) throws -> Void) throws -> Int? {
        guard let recordLine = try nextRecord(columns: textColumns.count) else { return nil }
        if marks && !marked {
            if record.readOtherwiseMarked { throw Remark() }
            marked = true
        }
        // The array of values is taken from the record's buffer and given back, overwritten in
        // place (emptying it for each record cost more than filling it).
        var values: [InsertField] = []
        swap(&values, &record.values)
        defer { swap(&values, &record.values) }
        if values.count != fields.count { values = Array(repeating: .value(.null), count: fields.count) }
        try input.withWindow { window in
            record.unescape(fields, in: window, tab: tab)
            // The record's bytes checked at once: its fields are split at ASCII bytes, and
            // undoing an escape removes ASCII bytes, so each field of a well-formed record is
            // well-formed too (only a field of a record that is not is checked on its own).
            let wellFormed = TextMatching.isValidUTF8(UnsafeBufferPointer(rebasing: window[recordBytes]))
            for column in fields.indices {
                values[column] = value(column, window, wellFormed: wellFormed)
            }
            try body(values, recordLine)
        }
        return recordLine
    }

    /// Reads the next record that is not a blank line into `fields` and consumes it; returns
    /// its line. `columns`: the header's count, to check it against (nil for the header).
    private mutating func nextRecord(columns: Int?) throws(ShellError) -> Int? {
        while true {
            if input.start == input.end, !(try input.refill(line: line)) { return nil }
            let recordLine = line
            var scanned: (next: Int, newlines: Int)?
            while true {
                scanned = try input.withWindow { window throws(ShellError) in
                    try scan(window, from: input.start, limit: input.end, atEnd: input.atEndOfFile)
                }
                if scanned != nil { break }
                // The record goes on past the window: read more and scan it again from its start.
                _ = try input.refill(line: recordLine)
            }
            guard let (next, newlines) = scanned else { return nil }
            line += newlines
            let isBlank = fields.count == 1 && !fields[0].quoted && fields[0].start == fields[0].end
            // A blank line is skipped, except in a one-column file whose empty fields are text.
            if isBlank && !(tab && marked && columns == 1) {
                if tab && columns == 1 { record.readOtherwiseMarked = true }
                input.start = next
                continue
            }
            if let columns, fields.count != columns {
                throw ShellError(line: recordLine, message: "\(fields.count) field\(fields.count == 1 ? "" : "s"), but the header names \(columns)")
            }
            // The caller reads the fields from the window before the next refill moves it.
            recordBytes = input.start..<next
            input.start = next
            return recordLine
        }
    }

    /// Splits the record at `from` into `fields`: where the next record starts and how many
    /// lines this one spans, or nil when the window ends before the record does.
    private mutating func scan(_ window: UnsafeBufferPointer<UInt8>, from: Int, limit: Int, atEnd: Bool)
        throws(ShellError) -> (next: Int, newlines: Int)? {
        let separator: UInt8 = tab ? 9 : 44
        fields.removeAll(keepingCapacity: true)
        marks = false
        var i = from
        var newlines = 0
        while true {
            if !tab && i < limit && window[i] == 34 {
                // A quoted field: to the closing quote; `""` inside is one quote.
                var j = i + 1
                var escaped = false
                while true {
                    j = ByteScan.first(of: 34, 10, 10, in: window, from: j, to: limit)
                    guard j < limit else {
                        if atEnd { throw ShellError(line: line, message: "a quoted field is not closed") }
                        return nil
                    }
                    let byte = window[j]
                    if byte == 34 {
                        guard j + 1 < limit || atEnd else { return nil }
                        if j + 1 < limit && window[j + 1] == 34 {
                            escaped = true
                            j += 2
                            continue
                        }
                        break
                    }
                    if byte == 10 { newlines += 1 }
                    j += 1
                }
                fields.append(Field(start: i + 1, end: j, quoted: true, escaped: escaped))
                if j == i + 1 { marks = true }
                i = j + 1
                if i < limit && window[i] != separator && window[i] != 10 && window[i] != 13 {
                    throw ShellError(line: line + newlines, message: "unexpected character after a closing quote")
                }
            } else {
                var j = i
                var escaped = false
                if tab {
                    while j < limit {
                        let byte = window[j]
                        if byte == separator || byte == 10 || byte == 13 { break }
                        if byte == 92 { escaped = true }
                        j += 1
                    }
                } else {
                    j = ByteScan.first(of: separator, 10, 13, in: window, from: j, to: limit)
                }
                fields.append(Field(start: i, end: j, quoted: false, escaped: escaped))
                if escaped && j - i == 2 && window[i] == 92 && window[i + 1] == UInt8(ascii: "N") { marks = true }
                i = j
            }
            // After a field: a separator, the end of the line, or the end of the file.
            guard i < limit else { return atEnd ? (i, newlines) : nil }
            let byte = window[i]
            if byte == separator {
                i += 1
                continue
            }
            if byte == 13 {
                guard i + 1 < limit || atEnd else { return nil }
                if i + 1 < limit && window[i + 1] == 10 { i += 1 }
            }
            return (i + 1, newlines + 1)
        }
    }

    /// The text of the field of `column`, quotes or backslash escapes undone (`record` holds
    /// the unescaped text of the record's escaped fields).
    private func bytes(_ column: Int, _ window: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let field = fields[column]
        return field.escaped ? record.unescaped(column) : UnsafeBufferPointer(rebasing: window[field.start..<field.end])
    }

    /// The value of the field of `column`, by the rule above: text read in place, from the
    /// window or the record's unescaped bytes. Text that is not well-formed UTF-8 is read as a
    /// Swift string reads it (each bad sequence U+FFFD). `wellFormed`: the whole record is
    /// known to be well-formed UTF-8.
    private func value(_ column: Int, _ window: UnsafeBufferPointer<UInt8>, wellFormed: Bool) -> InsertField {
        let field = fields[column]
        let textColumn = textColumns[column]
        if field.start == field.end {
            if field.quoted { return .value(.text("")) }
            // The two rules differ here: csv in a TEXT column, tsv in any other.
            if !marked && (tab ? !textColumn : textColumn) { record.readOtherwiseMarked = true }
            if tab { return marked || textColumn ? .value(.text("")) : .value(.null) }
            return !marked && textColumn ? .value(.text("")) : .value(.null)
        }
        if tab && field.end - field.start == 2 && window[field.start] == 92 && window[field.start + 1] == UInt8(ascii: "N") {
            return .value(.null)
        }
        let bytes = bytes(column, window)
        if typed && !field.quoted { return .value(ValueEncoding.unquotedField(String(decoding: bytes, as: UTF8.self))) }
        if !field.quoted && !field.escaped && numericColumns.indices.contains(column) && numericColumns[column],
           ValueEncoding.isInfinityWord(bytes) {
            return .value(.real(bytes.count == 3 ? .infinity : -.infinity))
        }
        guard wellFormed || TextMatching.isValidUTF8(bytes) else { return .value(.text(String(decoding: bytes, as: UTF8.self))) }
        return .text(bytes)
    }
}

/// A record's values as `DelimitedReader.next` hands them out, and the unescaped text of its
/// escaped fields, kept from one record to the next (no allocation per record): a class, so
/// the reader fills it while it reads its own window.
///
/// Its state is unchecked: one reader uses it, and the dynamic exclusivity checks would cost
/// more than a record's own work on it.
private final class RecordBuffer {
    @exclusivity(unchecked) var values: [InsertField] = []
    /// True once an empty field (or a blank line) was read whose value differs between a file
    /// that tells NULL from empty text and one that does not.
    @exclusivity(unchecked) var readOtherwiseMarked = false
    /// The unescaped bytes of the record's escaped fields, and where each field's are.
    @exclusivity(unchecked) private var bytes: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity = 256
    /// Per column: where its unescaped bytes are (read only for escaped fields).
    @exclusivity(unchecked) private var ranges: [Range<Int>] = []

    init() { bytes = .allocate(capacity: capacity) }

    deinit { bytes.deallocate() }

    /// Undoes the quotes' `""` (csv) or the backslash escapes (tsv) of each escaped field.
    func unescape(_ fields: [DelimitedReader.Field], in window: UnsafeBufferPointer<UInt8>, tab: Bool) {
        // Unescaped text is never longer than the field: room for all of them, made once.
        let needed = fields.reduce(0) { $0 + ($1.escaped ? $1.end - $1.start : 0) }
        guard needed > 0 else { return }
        if ranges.count < fields.count { ranges = Array(repeating: 0..<0, count: fields.count) }
        if needed > capacity {
            bytes.deallocate()
            capacity = max(needed, capacity * 2)
            bytes = .allocate(capacity: capacity)
        }
        guard let base = window.baseAddress else { return }
        // The bytes up to the next quote (csv) or backslash (tsv) are copied as they are.
        let special: UInt8 = tab ? 92 : 34
        var end = 0
        for (column, field) in fields.enumerated() where field.escaped {
            let start = end
            var i = field.start
            while i < field.end {
                let next = ByteScan.first(of: special, special, special, in: window, from: i, to: field.end)
                (bytes + end).update(from: base + i, count: next - i)
                end += next - i
                guard next < field.end else { break }
                if tab && next + 1 < field.end {
                    switch window[next + 1] {
                    case UInt8(ascii: "t"): bytes[end] = 9
                    case UInt8(ascii: "n"): bytes[end] = 10
                    case UInt8(ascii: "r"): bytes[end] = 13
                    case let other: bytes[end] = other
                    }
                } else {
                    // csv: `""` inside quotes is one quote (tsv: a lone backslash at the end).
                    bytes[end] = special
                }
                end += 1
                i = next + 2
            }
            ranges[column] = start..<end
        }
    }

    /// The unescaped bytes of the field of `column`.
    func unescaped(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        let range = ranges[column]
        return UnsafeBufferPointer(start: bytes + range.lowerBound, count: range.count)
    }
}

/// Finding the next of a few bytes in a window a word at a time: imports spend most of their
/// reading inside fields, looking for the byte that ends one.
enum ByteScan {
    /// The index of the first byte in `window[from..<to]` equal to `a`, `b` or `c`; `to` when none is.
    @inline(__always)
    static func first(of a: UInt8, _ b: UInt8, _ c: UInt8, in window: UnsafeBufferPointer<UInt8>,
                      from: Int, to: Int) -> Int {
        guard let base = window.baseAddress else { return to }
        var i = from
        #if _endian(little)
        while i + 8 <= to {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let found = matches(word, a) | matches(word, b) | matches(word, c)
            // Little-endian: the lowest flagged byte is the first match (the bits above it may be
            // false alarms, never the bits below).
            if found != 0 { return i + found.trailingZeroBitCount / 8 }
            i += 8
        }
        #endif
        while i < to && window[i] != a && window[i] != b && window[i] != c { i += 1 }
        return i
    }

    /// The high bit of each byte of `word` that equals `byte` (and maybe of bytes above one that does).
    @inline(__always)
    private static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & (ones &* 0x80)
    }
}

/// A small JSON reader for imports, a record at a time: an array of flat objects (json) or one
/// object per line (ndjson).
struct JSONReader {
    private let input: ImportInput
    private let lines: Bool
    private var line = 1
    /// json: the array's `[` has been read; its `]` has been read.
    private var opened = false
    private var closed = false

    init(_ input: ImportInput, lines: Bool) {
        self.input = input
        self.lines = lines
    }

    /// Every object of a small file at once (an import reads them one by one with `next()`).
    static func records(_ input: ImportInput, lines: Bool) throws(ShellError) -> [ImportRecord] {
        var reader = JSONReader(input, lines: lines)
        var records: [ImportRecord] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    /// The next object, or nil at the end.
    mutating func next() throws(ShellError) -> ImportRecord? {
        if !begun {
            begun = true
            try input.skipByteOrderMark()
        }
        return try lines ? nextLine() : nextInArray()
    }

    /// Whether the file's first bytes have been looked at for a byte order mark.
    private var begun = false

    private func fail(_ message: String) -> ShellError { ShellError(line: line, message: message) }

    /// The next byte that is not white space (not consumed), or nil at the end of the file.
    private mutating func skipSpace() throws(ShellError) -> UInt8? {
        while try input.ensure(1, line: line) {
            let byte = input.withWindow { $0[input.start] }
            guard byte == 9 || byte == 10 || byte == 13 || byte == 32 else { return byte }
            if byte == 10 { line += 1 }
            input.start += 1
        }
        return nil
    }

    private mutating func nextLine() throws(ShellError) -> ImportRecord? {
        guard try skipSpace() != nil else { return nil }
        let objectLine = line
        let record = try object()
        while try input.ensure(1, line: line) {
            let byte = input.withWindow { $0[input.start] }
            if byte == 10 { break }
            guard byte == 32 || byte == 9 || byte == 13 else { throw ShellError(line: objectLine, message: "expected one object per line") }
            input.start += 1
        }
        return record
    }

    private mutating func nextInArray() throws(ShellError) -> ImportRecord? {
        if closed { return nil }
        if !opened {
            guard try skipSpace() == 91 else { throw fail("expected '[' (a JSON array of objects)") }
            input.start += 1
            opened = true
            if try skipSpace() == 93 {
                input.start += 1
                return try end()
            }
        } else {
            switch try skipSpace() {
            case 44?: input.start += 1
            case 93?:
                input.start += 1
                return try end()
            case nil: throw fail("the array is not closed")
            default: throw fail("expected ',' or ']' after an object")
            }
        }
        _ = try skipSpace()
        return try object()
    }

    /// After the array's `]`: nothing but white space.
    private mutating func end() throws(ShellError) -> ImportRecord? {
        closed = true
        if try skipSpace() != nil { throw fail("unexpected text after the array") }
        return nil
    }

    /// The object at the window's start, read whole into the window first and then parsed.
    private mutating func object() throws(ShellError) -> ImportRecord {
        var frameEnd: Int?
        while true {
            frameEnd = input.withWindow { Self.objectEnd($0, from: input.start, limit: input.end) }
            if frameEnd != nil { break }
            guard try input.refill(line: line) else { break }
        }
        let end = frameEnd ?? input.end
        let startLine = line
        let (record, parsedLine) = try input.withWindow { window throws(ShellError) in
            var parser = JSONObjectParser(bytes: UnsafeBufferPointer(rebasing: window[input.start..<end]), line: startLine)
            return (try parser.object(), parser.line)
        }
        input.start += record.length
        line = parsedLine
        return record.record
    }

    /// One past the end of the object starting at `from` (a `{`): its closing brace, or the first
    /// byte its parser refuses (an object nested twice, `[` or `]`, a newline inside a string);
    /// nil when the window ends first. A value may be an object one level down: an encoded
    /// blob or real (`ValueEncoding`).
    private static func objectEnd(_ window: UnsafeBufferPointer<UInt8>, from: Int, limit: Int) -> Int? {
        guard from < limit else { return nil }
        // Not an object: the parser refuses its first byte.
        guard window[from] == 123 else { return from + 1 }
        var i = from + 1
        var inString = false
        var nested = false
        while i < limit {
            let byte = window[i]
            if inString {
                if byte == 92 {
                    i += 2
                    continue
                }
                if byte == 34 { inString = false } else if byte == 10 { return i + 1 }
            } else if byte == 34 {
                inString = true
            } else if byte == 123 && !nested {
                nested = true
            } else if byte == 125 && nested {
                nested = false
            } else if byte == 125 || byte == 123 || byte == 91 || byte == 93 {
                return i + 1
            }
            i += 1
        }
        return nil
    }
}

/// Parses one flat JSON object held whole in `bytes`.
struct JSONObjectParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var line: Int
    private var i = 0
    /// Inside an object that is a value: an object there is refused (encoded values are flat).
    private var inEncodedValue = false

    init(bytes: UnsafeBufferPointer<UInt8>, line: Int) {
        self.bytes = bytes
        self.line = line
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 9 || bytes[i] == 10 || bytes[i] == 13 || bytes[i] == 32 {
            if bytes[i] == 10 { line += 1 }
            i += 1
        }
    }

    private func fail(_ message: String) -> ShellError { ShellError(line: line, message: message) }

    /// The object and how many bytes it took.
    mutating func object() throws(ShellError) -> (record: ImportRecord, length: Int) {
        let start = line
        guard i < bytes.count, bytes[i] == 123 else { throw fail("expected an object ('{')") }
        i += 1
        var fields: [(name: String, value: Value)] = []
        skipSpace()
        if i < bytes.count && bytes[i] == 125 {
            i += 1
            return (ImportRecord(line: start, fields: fields), i)
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
        return (ImportRecord(line: start, fields: fields), i)
    }

    private mutating func value(_ key: String) throws(ShellError) -> Value {
        guard i < bytes.count else { throw fail("expected a value for \"\(key)\"") }
        switch bytes[i] {
        case 34: return .text(try string())
        case 123 where !inEncodedValue: return try encodedValue(key)
        case 123: throw encodedValueRefusal(key, line: line)
        case 91: throw fail("\"\(key)\" holds an array; only strings, numbers, booleans, null and encoded blobs and reals can be imported")
        default:
            var end = i
            while end < bytes.count, !(bytes[end] == 44 || bytes[end] == 125 || bytes[end] == 93 || [9, 10, 13, 32].contains(bytes[end])) { end += 1 }
            let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<end]), as: UTF8.self)
            i = end
            switch word {
            case "null": return .null
            case "true": return .integer(1)
            case "false": return .integer(0)
            default:
                guard Self.isJSONNumber(word.utf8) else { throw fail("'\(word)' is not a JSON value") }
                if let n = Int64(word) { return .integer(n) }
                // Past the 64-bit range an integer keeps its digits, as text: the import refuses
                // it in a column that would round it to a real.
                if ValueEncoding.isInteger(word) { return .text(word) }
                if let d = ExactDecimal.literal(word) { return .decimal(d) }
                if let r = Double(word), r.isFinite { return .real(r) }
                throw fail("'\(word)' is not a JSON value")
            }
        }
    }

    /// An object as a value: an encoded blob or real (`ValueEncoding`), and nothing else.
    private mutating func encodedValue(_ key: String) throws(ShellError) -> Value {
        let start = line
        inEncodedValue = true
        let (record, _) = try object()
        inEncodedValue = false
        let fields = record.fields
        let refusal = encodedValueRefusal(key, line: start)
        if fields.count == 1, fields[0].name == ValueEncoding.realKey, case .text(let word) = fields[0].value,
           let real = ValueEncoding.nonFinite(word) {
            return .real(real)
        }
        let flag = fields.first { $0.name == ValueEncoding.base64Key }?.value
        let encoded = fields.first { $0.name == ValueEncoding.encodedKey }?.value
        guard fields.count == 2, case .integer(1)? = flag, case .text(let text)? = encoded else { throw refusal }
        guard let bytes = Base64.decode(text) else {
            throw ShellError(line: start, message: "\"\(key)\": '\(text.prefix(40))' is not base64")
        }
        return .blob(bytes)
    }

    private func encodedValueRefusal(_ key: String, line: Int) -> ShellError {
        ShellError(line: line, message: "\"\(key)\" holds an object that is not an encoded value "
            + "({\"\(ValueEncoding.base64Key)\": true, \"\(ValueEncoding.encodedKey)\": \"…\"} or {\"\(ValueEncoding.realKey)\": \"Infinity\"})")
    }

    private mutating func string() throws(ShellError) -> String {
        i += 1
        // Without escapes (the common case) the text is taken straight from the bytes.
        var plain = i
        while plain < bytes.count && bytes[plain] != 34 && bytes[plain] != 92 && bytes[plain] != 10 { plain += 1 }
        if plain < bytes.count && bytes[plain] == 34 {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<plain]), as: UTF8.self)
            i = plain + 1
            return text
        }
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
                        if low >= 0xDC00 && low < 0xE000 {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            // A high surrogate without its low half: U+FFFD, then the other escape.
                            out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                            scalar = low
                        }
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

    /// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (Swift's own
    /// parsers also take `+5`, `inf`, `nan` and hexadecimal, which JSON has not).
    static func isJSONNumber(_ word: String.UTF8View) -> Bool {
        var rest = Substring(String(decoding: word, as: UTF8.self)).utf8[...]
        func digits() -> Int {
            let count = rest.prefix { (48...57).contains($0) }.count
            rest = rest.dropFirst(count)
            return count
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        if rest.first == UInt8(ascii: "0") { rest = rest.dropFirst() } else if digits() == 0 { return false }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            if digits() == 0 { return false }
        }
        if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
            if digits() == 0 { return false }
        }
        return rest.isEmpty
    }

    private mutating func hex4() throws(ShellError) -> UInt32 {
        let hexDigits = i + 4 <= bytes.count && bytes[i..<(i + 4)].allSatisfy { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }
        guard hexDigits, let v = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<(i + 4)]), as: UTF8.self), radix: 16) else {
            throw fail("bad \\u escape")
        }
        i += 4
        return v
    }
}
