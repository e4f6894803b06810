import CSQLite

/// One value of a row for `WriteContext.insert(_:columns:fields:)`: a `Value`, or UTF-8 text
/// read in place from a buffer the caller keeps valid for the call. A bulk load (a CSV import)
/// binds its fields straight from its read buffer: no `String` made per field, and SQLite copies
/// the bytes as it would a `String`'s. The text must be well-formed UTF-8: SQLite stores the
/// bytes as they are.
public enum InsertField {
    case value(Value)
    case text(UnsafeBufferPointer<UInt8>)
}

/// What an insert binds to its statement's parameters in order: values, or `InsertField`s.
protocol InsertArguments {
    /// Binds every parameter of an SQLite statement, straight from where the arguments are.
    func bind(to statement: Statement) throws
    /// The arguments as values, for another database's statement.
    var values: [Value] { get }
}

struct ValueArguments: InsertArguments {
    let values: [Value]

    @inline(__always)
    func bind(to statement: Statement) throws { try statement.bind(values) }
}

struct FieldArguments: InsertArguments {
    let fields: [InsertField]

    @inline(__always)
    func bind(to statement: Statement) throws { try statement.bind(fields) }

    var values: [Value] {
        fields.map { field in
            switch field {
            case .value(let value): return value
            case .text(let bytes): return .text(String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}

extension Statement {
    /// Binds `fields` to the parameters `?1`, `?2`, … in order: text from its bytes in place.
    func bind(_ fields: [InsertField]) throws {
        let handle = self.handle
        for i in fields.indices {
            let rc: Int32
            switch fields[i] {
            case .text(let bytes):
                rc = bytes.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text64(handle, Int32(i + 1), chars.baseAddress ?? emptyCString, sqlite3_uint64(chars.count),
                                        portal_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            case .value(let value):
                try bind(value, at: Int32(i + 1))
                continue
            }
            guard rc == SQLITE_OK else { throw PortalError.sqlite(rc, db: connection.handle, sql: sql) }
        }
    }
}
