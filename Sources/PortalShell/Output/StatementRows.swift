import CSQLite
import PortalEngine

/// A renderer that reads each row straight from the prepared statement, without building a
/// `Value` (and a `String`) per cell: the hot path of csv, tsv, json and ndjson exports.
/// Text that is not plain ASCII goes through `Value` so that invalid UTF-8 is repaired exactly
/// as on the general path.
protocol StatementRowRenderer: RowRenderer {
    func row(statement: OpaquePointer, columnCount: Int32)
}

enum StatementCell {
    /// The bytes of a text cell when they are all ASCII, else nil.
    @inline(__always)
    static func asciiText(_ statement: OpaquePointer, _ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard let pointer = sqlite3_column_text(statement, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        let bytes = UnsafeBufferPointer(start: pointer, count: count)
        for byte in bytes where byte >= 0x80 { return nil }
        return bytes
    }

    /// The cell as a `Value`, for everything the fast paths leave to the general one.
    static func value(_ statement: OpaquePointer, _ column: Int32) -> Value {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

extension DelimitedRenderer: StatementRowRenderer {
    func row(statement: OpaquePointer, columnCount: Int32) {
        var column: Int32 = 0
        while column < columnCount {
            if column > 0 { stream.write(tab ? 9 : 44) }
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: stream.write(null)
            case SQLITE_INTEGER: stream.write(String(sqlite3_column_int64(statement, column)))
            case SQLITE_TEXT:
                if let bytes = StatementCell.asciiText(statement, column) {
                    if tab { writeTSV(bytes) } else { writeCSV(bytes) }
                } else {
                    let text = ValueText.plain(StatementCell.value(statement, column), null: null)
                    if tab { writeTSV(text) } else { writeCSV(text) }
                }
            default:
                let text = ValueText.plain(StatementCell.value(statement, column), null: null)
                if tab { writeTSV(text) } else { writeCSV(text) }
            }
            column += 1
        }
        stream.write(10)
    }
}

extension JSONRenderer: StatementRowRenderer {
    func row(statement: OpaquePointer, columnCount: Int32) {
        beginRow()
        var column: Int32 = 0
        while column < columnCount && Int(column) < keys.count {
            if column > 0 { stream.write(44) }
            stream.write(keys[Int(column)])
            switch sqlite3_column_type(statement, column) {
            case SQLITE_NULL: stream.write("null")
            case SQLITE_INTEGER: stream.write(String(sqlite3_column_int64(statement, column)))
            case SQLITE_TEXT:
                if let bytes = StatementCell.asciiText(statement, column) {
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
