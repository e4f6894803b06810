import PortalEngine
import PortalTUI

/// A renderer that reads each row straight from the prepared statement, without building a
/// `Value` (and a `String`) per cell: the hot path of csv, tsv, json and ndjson exports.
/// Text that is not plain ASCII goes through `Value` so that invalid UTF-8 is repaired exactly
/// as on the general path.
protocol StatementRowRenderer: RowRenderer {
    func row(statement: any ColumnReadingStatement, columnCount: Int32)
}

enum StatementCell {
    /// The bytes of a text cell when they are all ASCII, else nil.
    @inline(__always)
    static func asciiText(_ statement: any ColumnReadingStatement, _ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        let bytes = statement.textBytes(at: column)
        for byte in bytes where byte >= 0x80 { return nil }
        return bytes
    }

    /// The bytes of a text cell when they are well-formed UTF-8 (what `String(decoding:)` would
    /// keep unchanged), else nil.
    @inline(__always)
    static func validText(_ statement: any ColumnReadingStatement, _ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        let bytes = statement.textBytes(at: column)
        return TextMatching.isValidUTF8(bytes) ? bytes : nil
    }

    /// The cell as a `Value`, for everything the fast paths leave to the general one.
    static func value(_ statement: any ColumnReadingStatement, _ column: Int32) -> Value {
        statement.value(at: column)
    }
}

extension DelimitedRenderer: StatementRowRenderer {
    func row(statement: any ColumnReadingStatement, columnCount: Int32) {
        var column: Int32 = 0
        while column < columnCount {
            if column > 0 { stream.write(tab ? 9 : 44) }
            switch statement.storedType(at: column) {
            case .null: stream.write(null)
            case .integer:
                countNumber(column: Int(column))
                stream.write(integer: statement.int64(at: column))
            case .real:
                countNumber(column: Int(column))
                write(StatementCell.value(statement, column))
            case .text:
                if let bytes = StatementCell.validText(statement, column), !ValueEncoding.isInfinityWord(bytes) {
                    if tab { writeTSV(bytes) } else { writeCSV(bytes, quoted: typed) }
                } else {
                    write(StatementCell.value(statement, column))
                }
            default: write(StatementCell.value(statement, column))
            }
            column += 1
        }
        stream.write(10)
    }
}

extension JSONRenderer: StatementRowRenderer {
    func row(statement: any ColumnReadingStatement, columnCount: Int32) {
        beginRow()
        var column: Int32 = 0
        while column < columnCount && Int(column) < keys.count {
            if column > 0 { stream.write(44) }
            keyBytes[Int(column)].withUnsafeBufferPointer { stream.write(bytes: $0) }
            switch statement.storedType(at: column) {
            case .null: stream.write("null")
            case .integer: stream.write(integer: statement.int64(at: column))
            case .text:
                if let bytes = StatementCell.validText(statement, column) {
                    JSONText.writeString(bytes, to: stream)
                } else {
                    JSONText.write(StatementCell.value(statement, column), to: stream)
                }
            default: JSONText.write(StatementCell.value(statement, column), to: stream)
            }
            column += 1
        }
        endRow()
    }
}

extension TableRenderer: StatementRowRenderer {
    /// The display width of valid UTF-8 text without control or invisible format characters; nil
    /// when it has some (they are shown escaped, through the general path).
    static func plainWidth(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var width = 0
        var previous = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 {
                if b < 0x20 || b == 0x7F { return nil }
                width += 1
                previous = 1
                i += 1
                continue
            }
            // Valid UTF-8 is guaranteed by the caller: decode one scalar.
            var scalar: UInt32
            let length: Int
            if b < 0xE0 {
                scalar = UInt32(b & 0x1F); length = 2
            } else if b < 0xF0 {
                scalar = UInt32(b & 0x0F); length = 3
            } else {
                scalar = UInt32(b & 0x07); length = 4
            }
            for k in 1..<length { scalar = scalar << 6 | UInt32(bytes[i + k] & 0x3F) }
            i += length
            // C1 controls and invisible format characters are shown escaped, by the general path.
            if let unicode = Unicode.Scalar(scalar), TerminalText.mayNeedEscape(unicode) { return nil }
            if scalar == 0xFE0F {
                if previous == 1 { width += 1 }
                previous = 2
                continue
            }
            previous = Unicode.Scalar(scalar).map { DisplayWidth.of($0) } ?? 1
            width += previous
        }
        return width
    }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 }
    }

    /// Characters of `value` in decimal, sign included.
    static func decimalLength(_ value: Int64) -> Int {
        var magnitude = value.magnitude
        var length = value < 0 ? 2 : 1
        while magnitude >= 10 {
            magnitude /= 10
            length += 1
        }
        return length
    }

    /// After the sample, plain ASCII text and integers are written straight from the statement;
    /// everything else (escapes, wide characters, cuts, NULL, reals, blobs) takes the general path.
    func row(statement: any ColumnReadingStatement, columnCount: Int32) {
        let count = Int(columnCount)
        if sampling {
            row((0..<count).map { StatementCell.value(statement, Int32($0)) })
            return
        }
        let shown = min(count, widths.count)
        for i in 0..<shown {
            if i > 0 { stream.write(" | ") }
            let column = Int32(i)
            let last = i == count - 1
            let type = statement.storedType(at: column)
            if type == .text, let bytes = StatementCell.validText(statement, column),
               let width = Self.plainWidth(bytes), width <= widths[i] || Self.isASCII(bytes) {
                if width <= widths[i] {
                    stream.write(bytes: bytes)
                    if !last { pad(widths[i] - width) }
                } else {
                    // Wider than its column: one column per byte, so the cut is a byte slice.
                    stream.write(bytes: UnsafeBufferPointer(rebasing: bytes[0..<(widths[i] - 1)]))
                    stream.write("…")
                }
            } else if type == .real {
                let digits = ValueText.real(statement.double(at: column))
                if digits.utf8.count <= widths[i] {
                    pad(widths[i] - digits.utf8.count)
                    stream.write(digits)
                } else {
                    writeCell(digits, width: widths[i], rightAligned: true, style: nil, last: last)
                }
            } else if type == .integer {
                let value = statement.int64(at: column)
                let length = Self.decimalLength(value)
                if length <= widths[i] {
                    pad(widths[i] - length)
                    stream.write(integer: value)
                } else {
                    writeCell(String(value), width: widths[i], rightAligned: true, style: nil, last: last)
                }
            } else {
                let value = StatementCell.value(statement, column)
                let style: String? = options.color && value.isNull ? "\u{1B}[2m" : nil
                writeCell(text(value), width: widths[i], rightAligned: ValueText.isNumber(value), style: style, last: last)
            }
        }
        stream.write(10)
    }
}
