import CSQLite

/// Where a decoder reads column values: a `Row`, or the current row of a statement (so typed
/// fetches build no intermediate `Row`). One concrete class, reused for every row of a fetch,
/// so the decoding containers are one word and their calls need no generic dispatch.
final class ColumnSource {
    let columns: ColumnNames
    /// The column names, held here so the hot path reads them without going through `columns`.
    private let names: [String]
    /// The statement stepping over the rows, or nil when decoding a `Row`.
    let handle: OpaquePointer?
    private let row: Row?
    /// The statement (kept alive while its handle is read); a server's is read through it.
    private let statement: (any DatabaseStatement)?
    /// A server's statement, whose values are read by `value(at:)` (no handle).
    private let server: (any DatabaseStatement)?
    /// The column the next key is expected at: synthesized `init(from:)` asks for keys in
    /// declaration order, usually the column order, so a guess checked with one string
    /// comparison replaces a hash lookup.
    @exclusivity(unchecked) var next = 0
    /// The last keyed container handed out, and its key type (reused for every row);
    /// `finish()` lets it go.
    var containerKeyType: ObjectIdentifier?
    var containerHolder: AnyObject?

    func finish() { containerHolder = nil }

    init(statement: any DatabaseStatement) {
        self.statement = statement
        let sqlite = statement as? Statement
        self.handle = sqlite?.handle
        self.server = sqlite == nil ? statement : nil
        self.columns = statement.columns
        self.names = columns.names
        self.row = nil
    }

    init(row: Row) {
        self.statement = nil
        self.handle = nil
        self.server = nil
        self.columns = row.columns
        self.names = columns.names
        self.row = row
    }

    /// Moves the statement to its next row: false after the last (and for a lone row).
    func step() throws -> Bool { try statement?.step() ?? false }

    @inline(__always)
    func value(at index: Int) -> Value {
        if let handle { return Statement.value(of: handle, at: Int32(index)) }
        if let server { return server.value(at: Int32(index)) }
        guard let row, index < row.count else { return .null }
        return row.value(at: index)
    }

    /// The column as an integer when it holds one (the common case, read without a `Value`).
    @inline(__always)
    func integer(at index: Int) -> Int64? {
        if let handle {
            guard let value = sqlite3_column_value(handle, Int32(index)), sqlite3_value_type(value) == SQLITE_INTEGER else {
                return nil
            }
            return sqlite3_value_int64(value)
        }
        if let server, case .integer(let i) = server.value(at: Int32(index)) { return i }
        if let row, index < row.count, case .integer(let i) = row.value(at: index) { return i }
        return nil
    }

    @inline(__always)
    func index(of name: String) -> Int? {
        let guess = next
        if guess < names.count && names[guess] == name {
            next = guess + 1
            return guess
        }
        guard let found = columns.index(of: name) else { return nil }
        next = found + 1
        return found
    }
}

extension Row {
    /// Decodes the row as `T` (attributes by name, as the synthesized `Decodable` asks for them).
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        let source = ColumnSource(row: self)
        defer { source.finish() }
        return try T(from: RowDecoder(source: source))
    }
}

final class ContainerHolder<Key: CodingKey> {
    let container: KeyedDecodingContainer<Key>
    init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
}

struct RowDecoder: Decoder {
    let source: ColumnSource
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        // The container only points at the shared source, so one serves every row of a fetch
        // (no box allocated per row).
        let keyType = ObjectIdentifier(type)
        if source.containerKeyType == keyType, let holder = source.containerHolder {
            // Same key type, so the holder is a ContainerHolder<Key>: a bit cast rather than a
            // dynamic cast (which would look up the generic class's metadata for every row).
            return Unmanaged<ContainerHolder<Key>>.fromOpaque(Unmanaged.passUnretained(holder).toOpaque())
                .takeUnretainedValue().container
        }
        let container = KeyedDecodingContainer(RowKeyedContainer<Key>(source: source))
        source.containerKeyType = keyType
        source.containerHolder = ContainerHolder(container)
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Value].self, .init(codingPath: [], debugDescription: "a row decodes as a keyed value"))
    }

    /// A single-column row decodes as that column's value.
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard source.columns.names.count == 1 else {
            throw DecodingError.typeMismatch(Value.self, .init(codingPath: [], debugDescription: "the row has several columns"))
        }
        return ValueDecoder(value: source.value(at: 0), codingPath: [])
    }
}

struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Unmanaged: `KeyedDecodingContainer`'s box copies the container for every `decode` call,
    /// and a strong reference would cost a retain and a release each time (and each use another
    /// pair). The source outlives every use: it is held by the fetch (or `Row.decode`) for the
    /// whole decoding, and a container, like any decoder state, is valid only inside the
    /// `init(from:)` it was handed to.
    private let unmanagedSource: Unmanaged<ColumnSource>

    init(source: ColumnSource) { unmanagedSource = Unmanaged.passUnretained(source) }

    /// The source, for the less common paths.
    private var source: ColumnSource { unmanagedSource.takeUnretainedValue() }

    /// Runs `body` on the source without retaining it (the hot paths).
    @inline(__always)
    private func withSource<R>(_ body: (ColumnSource) throws -> R) rethrows -> R {
        try unmanagedSource._withUnsafeGuaranteedRef(body)
    }
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { source.columns.names.compactMap { Key(stringValue: $0) } }

    @inline(__always)
    private func index(_ key: Key) -> Int? { source.index(of: key.stringValue) }

    @inline(__always)
    private func value(_ key: Key) throws -> Value {
        guard let i = index(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no attribute '\(key.stringValue)' in the row"))
        }
        return source.value(at: i)
    }

    func contains(_ key: Key) -> Bool { source.columns.index(of: key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let i = index(key) else { return true }
        return source.value(at: i).isNull
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let v = try value(key)
        if case .integer(let i) = v { return i != 0 }
        return try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let v = try value(key)
        if case .text(let s) = v { return s }
        return try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let v = try value(key)
        if case .real(let d) = v { return d }
        return try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let v = try value(key)
        if case .integer(let i) = v { return Int(i) }
        return try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        let name = key.stringValue
        if let integer = withSource({ source in source.index(of: name).flatMap { source.integer(at: $0) } }) {
            return integer
        }
        // Missing (keyNotFound) or not an integer: the general path.
        return try ValueDecoder(value: value(key), codingPath: [key]).decode(type)
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ValueDecoder(value: value(key), codingPath: [key]).decode(type)
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let index = index(key) else { return nil }
        let v = source.value(at: index)
        if case .integer(let i) = v { return i }
        return v.isNull ? nil : try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let index = index(key) else { return nil }
        let v = source.value(at: index)
        if case .integer(let i) = v { return Int(i) }
        return v.isNull ? nil : try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = index(key) else { return nil }
        let v = source.value(at: index)
        if case .text(let s) = v { return s }
        return v.isNull ? nil : try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let index = index(key) else { return nil }
        let v = source.value(at: index)
        if case .real(let d) = v { return d }
        return v.isNull ? nil : try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "attributes hold plain values"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: value(key), codingPath: [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { RowDecoder(source: source) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try ValueDecoder(value: value(key), codingPath: [key]) }
}

/// Decodes one value: numbers, text, booleans (0/1), blobs as `[UInt8]`, and types that decode
/// from one of those (enums with raw values, wrappers).
struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: Value
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw mismatch(type)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .blob(let bytes) = value else { throw mismatch([UInt8].self) }
        return BlobDecoder(bytes: bytes, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .integer(let i) = value else { throw mismatch(type) }
        return i != 0
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .text(let s) = value else { throw mismatch(type) }
        return s
    }

    func decode(_ type: Double.Type) throws -> Double {
        switch value {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: throw mismatch(type)
        }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        switch value {
        case .integer(let i):
            guard let exact = T(exactly: i) else { throw mismatch(type) }
            return exact
        case .real(let d):
            guard let exact = T(exactly: d) else { throw mismatch(type) }
            return exact
        default: throw mismatch(type)
        }
    }

    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 {
        if case .integer(let i) = value { return i }
        return try integer(type)
    }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == [UInt8].self, case .blob(let bytes) = value, let result = bytes as? T { return result }
        if T.self == Value.self, let result = value as? T { return result }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let result = convertible.init(databaseValue: value) as? T else { throw mismatch(type) }
            return result
        }
        return try T(from: self)
    }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "cannot read \(value) as \(type)"))
    }
}

/// A blob read as a sequence of bytes (how `Data` and `[UInt8]` decode).
struct BlobDecoder: UnkeyedDecodingContainer {
    let bytes: [UInt8]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { bytes.count }
    var isAtEnd: Bool { currentIndex >= bytes.count }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "end of blob"))
        }
        let byte = bytes[currentIndex]
        currentIndex += 1
        return try ValueDecoder(value: .integer(Int64(byte)), codingPath: codingPath).decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "a blob holds bytes"))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([UInt8].self, .init(codingPath: codingPath, debugDescription: "a blob holds bytes"))
    }

    mutating func superDecoder() throws -> any Decoder {
        throw DecodingError.typeMismatch([UInt8].self, .init(codingPath: codingPath, debugDescription: "a blob holds bytes"))
    }
}
