/// One value of a row for `WriteContext.insert(_:columns:fields:)`: a `Value`, or UTF-8 text
/// read in place from a buffer the caller keeps valid for the call. A bulk load (a CSV import)
/// binds its fields straight from its read buffer: no `String` made per field, and SQLite reads
/// the bytes where they are while the insert runs (no copy). The text must be well-formed UTF-8:
/// SQLite stores the bytes as they are.
public enum InsertField {
    case value(Value)
    case text(UnsafeBufferPointer<UInt8>)
}

/// What an insert binds to its statement's parameters in order: values, or `InsertField`s.
/// Each is one call to the statement, whose own type binds every argument (no call per value).
protocol InsertArguments {
    /// Binds every parameter of `statement`, straight from where the arguments are.
    func bind(to statement: any DatabaseStatement) throws
    /// Binds them, runs `statement` to its end and leaves it ready to run again (bindings kept).
    func runToEnd(_ statement: any DatabaseStatement) throws
}

struct ValueArguments: InsertArguments {
    let values: UnsafeBufferPointer<Value>

    @inline(__always)
    func bind(to statement: any DatabaseStatement) throws { try statement.bind(values) }

    @inline(__always)
    func runToEnd(_ statement: any DatabaseStatement) throws { try statement.runToEnd(binding: values) }
}

struct FieldArguments: InsertArguments {
    let fields: [InsertField]

    @inline(__always)
    func bind(to statement: any DatabaseStatement) throws { try statement.bind(fields: fields) }

    @inline(__always)
    func runToEnd(_ statement: any DatabaseStatement) throws { try statement.runToEnd(binding: fields) }
}

extension InsertField {
    /// The field as a value (text decoded into a `String`), for a statement that binds values only.
    public var value: Value {
        switch self {
        case .value(let value): value
        case .text(let bytes): .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}
