/// Where a decoder reads column values: a `Row`, or the current row of a statement (so typed
/// fetches build no intermediate `Row`). One concrete class, reused for every row of a fetch,
/// so the decoding containers are one word and their calls need no generic dispatch.
final class ColumnSource {
    let columns: ColumnNames
    /// The column names, held here so the hot path reads them without going through `columns`.
    private let names: [String]
    /// The statement's columns read in place, nil when decoding a `Row` or a statement that
    /// does not read them so (a server's).
    let inPlace: InPlaceColumns?
    private let row: Row?
    /// The statement stepping over the rows, or nil when decoding a `Row`.
    private let statement: (any DatabaseStatement)?
    /// The column the next key is expected at: synthesized `init(from:)` asks for keys in
    /// declaration order, usually the column order, so a guess checked with one string
    /// comparison replaces a hash lookup.
    @exclusivity(unchecked) var next = 0
    /// The last keyed container handed out, and its key type (reused for every row);
    /// `finish()` lets it go.
    var containerKeyType: ObjectIdentifier?
    var containerHolder: AnyObject?
    /// The containers of the other key types asked for so far, so that a type decoding with
    /// two (its own and its superclass's, say) alternates between two containers rather than
    /// making one per row. Empty while there is only one key type.
    var containerHolders: [ObjectIdentifier: AnyObject] = [:]

    func finish() {
        containerHolder = nil
        containerHolders = [:]
    }

    init(statement: any DatabaseStatement) {
        self.statement = statement
        inPlace = (statement as? any ColumnReadingStatement)?.inPlaceColumns
        self.columns = statement.columns
        self.names = columns.names
        self.row = nil
    }

    init(row: Row) {
        self.statement = nil
        inPlace = nil
        self.columns = row.columns
        self.names = columns.names
        self.row = row
    }

    /// Moves the statement to its next row: false after the last (and for a lone row).
    func step() throws -> Bool {
        try statement?.step() ?? false
    }

    @inline(__always)
    func value(at index: Int) -> Value {
        if let statement { return statement.value(at: Int32(index)) }
        guard let row, index < row.count else { return .null }
        return row.value(at: index)
    }

    /// The column as an integer when it holds one (the common case, read without a `Value`).
    @inline(__always)
    func integer(at index: Int) -> Int64? {
        if let inPlace { return inPlace.integer(at: Int32(index)) }
        if let statement, case .integer(let i) = statement.value(at: Int32(index)) { return i }
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

extension ColumnSource {
    /// The current row as `T`, by Codable (`decoder` is this source's `RowDecoder`, made once
    /// per fetch). A failure is `.conversion`, naming the attribute.
    @inline(__always)
    func decodeRow<T: Decodable>(_ type: T.Type, with decoder: any Decoder, entity: String) throws -> T {
        next = 0
        do {
            return try T(from: decoder)
        } catch let error as DecodingError {
            throw PortalError.conversion(error, entity: entity)
        }
    }

    /// Every remaining row as `T`, by Codable, the way `RowDecodable._allRows` collects them in
    /// specialized code: in chunks small enough for the allocator to reuse from one fetch to
    /// the next, then one array of the exact count. (Growing one buffer by doubling touched
    /// fresh memory at every step and faulted it in: a third of the time of a large fetch went
    /// to the kernel. `Array.append` in this unspecialized code would look up `Array<T>`'s
    /// metadata for every row.) Each entity is decoded straight into its chunk.
    func decodeAll<T: Decodable>(_ type: T.Type, entity: String) throws -> [T] {
        let decoder: any Decoder = RowDecoder(source: self)
        let chunkCapacity = max(16, 65_536 / MemoryLayout<T>.stride)
        var full: [UnsafeMutablePointer<T>] = []
        var chunk = UnsafeMutablePointer<T>.allocate(capacity: chunkCapacity)
        var count = 0
        defer {
            // What is still here was not moved to the result: a fetch that threw.
            for filled in full {
                filled.deinitialize(count: chunkCapacity)
                filled.deallocate()
            }
            chunk.deinitialize(count: count)
            chunk.deallocate()
        }
        while try step() {
            if count == chunkCapacity {
                full.append(chunk)
                chunk = .allocate(capacity: chunkCapacity)
                count = 0
            }
            (chunk + count).initialize(to: try decodeRow(T.self, with: decoder, entity: entity))
            count += 1
        }
        let total = full.count * chunkCapacity + count
        let result = [T](unsafeUninitializedCapacity: total) { destination, initialized in
            guard var next = destination.baseAddress else { return }
            for filled in full {
                next.moveInitialize(from: filled, count: chunkCapacity)
                filled.deallocate()
                next += chunkCapacity
            }
            next.moveInitialize(from: chunk, count: count)
            initialized = total
        }
        // Moved out: nothing left for the deferred clean-up.
        full = []
        count = 0
        return result
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

/// The column of each key of one key type, found by name once per fetch rather than for every
/// row, with the statement they are read from: all that `RowKeyedContainer`'s hot path reads, so
/// that it loads two fields of one object rather than going through the `ColumnSource`.
/// Indexed by the key's one byte (a synthesized `CodingKeys` enum is one byte, its case number;
/// one with a single case, none): `unresolved` until the key is first asked for, then its
/// column or `missing`.
final class KeyColumns {
    let inPlace: InPlaceColumns
    let columns: UnsafeMutablePointer<Int32>

    static var unresolved: Int32 { -2 }
    static var missing: Int32 { -1 }

    init(inPlace: InPlaceColumns) {
        self.inPlace = inPlace
        columns = .allocate(capacity: 256)
        columns.initialize(repeating: Self.unresolved, count: 256)
    }

    deinit { columns.deallocate() }

    /// The column at `slot` as an integer when it is known already and holds one; nil
    /// otherwise (the caller takes the general path, which looks the key up or converts).
    @inline(__always)
    func integer(slot: Int) -> Int64? {
        let column = columns[slot]
        guard column >= 0 else { return nil }
        return inPlace.integer(at: column)
    }
}

/// A keyed container kept for reuse, with the table of columns it reads through (see
/// `RowKeyedContainer`), which lives as long as the holder.
final class ContainerHolder<Container> {
    let container: Container
    private let keyColumns: KeyColumns?

    init(_ container: Container, keyColumns: KeyColumns?) {
        self.container = container
        self.keyColumns = keyColumns
    }

    /// The kept container. Not inlined, and generic over the container type rather than its
    /// key: the container's type metadata is then read from the holder's own, where a copy
    /// made in `RowDecoder.container(keyedBy:)` would look up `KeyedDecodingContainer<Key>`'s
    /// metadata (a hashed global cache) for every row.
    @inline(never)
    func reused() -> Container { container }
}

struct RowDecoder: Decoder {
    /// Unmanaged, so that the decoder is a plain value: `init(from:)` takes its decoder owned,
    /// so a fetch hands every row a copy, which would otherwise cost a retain and a release.
    /// The source outlives every use, as in `RowKeyedContainer` (a decoder is valid only inside
    /// the `init(from:)` it is handed to): whoever makes a decoder holds the source until the
    /// decoding is over.
    private let unmanagedSource: Unmanaged<ColumnSource>

    init(source: ColumnSource) {
        unmanagedSource = Unmanaged.passUnretained(source)
    }

    /// The source, for the less common paths.
    private var source: ColumnSource { unmanagedSource.takeUnretainedValue() }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        // The container only points at the shared source, so one serves every row of a fetch
        // (no box allocated per row).
        let keyType = ObjectIdentifier(type)
        // Read without retaining the source (once per row).
        let reusable = unmanagedSource._withUnsafeGuaranteedRef { source in
            source.containerKeyType == keyType ? source.containerHolder.map(Unmanaged.passUnretained) : nil
        }
        guard let holder = reusable else {
            return newContainer(keyedBy: type)
        }
        // Same key type, so the holder is a ContainerHolder<KeyedDecodingContainer<Key>>: a bit
        // cast rather than a dynamic cast (which would look up the generic class's metadata).
        return Unmanaged<ContainerHolder<KeyedDecodingContainer<Key>>>.fromOpaque(holder.toOpaque())
            ._withUnsafeGuaranteedRef { $0.reused() }
    }

    /// The container for a key type other than the last one's: the one kept for it, else a new one.
    private func newContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        let keyType = ObjectIdentifier(type)
        if let current = source.containerKeyType, let holder = source.containerHolder {
            source.containerHolders[current] = holder
        }
        let holder: ContainerHolder<KeyedDecodingContainer<Key>>
        if let kept = source.containerHolders[keyType] as? ContainerHolder<KeyedDecodingContainer<Key>> {
            holder = kept
        } else {
            // A lone row asks for each key once: no table worth filling.
            let keyColumns = source.inPlace.flatMap { RowKeyedContainer<Key>.makeKeyColumns(inPlace: $0) }
            holder = ContainerHolder(KeyedDecodingContainer(RowKeyedContainer<Key>(source: source, keyColumns: keyColumns)),
                                     keyColumns: keyColumns)
        }
        source.containerKeyType = keyType
        source.containerHolder = holder
        return holder.container
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
    /// The column of each key (see `KeyColumns`); nil for a lone row and for other key types,
    /// which are looked up by name each time. Unmanaged like the source: owned by the
    /// `ContainerHolder` that keeps this container, which outlives every use.
    private let keyColumns: Unmanaged<KeyColumns>?

    init(source: ColumnSource, keyColumns: KeyColumns?) {
        unmanagedSource = Unmanaged.passUnretained(source)
        self.keyColumns = keyColumns.map { Unmanaged.passUnretained($0) }
    }

    /// The table for `keyColumns`, when `Key` is a plain value of at most one byte (two keys
    /// with the same byte are the same key, so have the same name).
    static func makeKeyColumns(inPlace: InPlaceColumns) -> KeyColumns? {
        guard _isPOD(Key.self), MemoryLayout<Key>.size <= 1 else { return nil }
        return KeyColumns(inPlace: inPlace)
    }

    /// The source, for the less common paths.
    private var source: ColumnSource { unmanagedSource.takeUnretainedValue() }

    /// Runs `body` on the source without retaining it (the hot paths).
    @inline(__always)
    private func withSource<R>(_ body: (ColumnSource) throws -> R) rethrows -> R {
        try unmanagedSource._withUnsafeGuaranteedRef(body)
    }
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { source.columns.names.compactMap { Key(stringValue: $0) } }

    /// Where `key` is in `keyColumns`: its byte (0 for a key of no bytes).
    @inline(__always)
    private func slot(_ key: Key) -> Int {
        MemoryLayout<Key>.size == 0 ? 0 : Int(unsafeBitCast(key, to: UInt8.self))
    }

    /// The column of `key`; nil when the row has none.
    private func index(_ key: Key) -> Int? {
        guard let columns = keyColumns?.takeUnretainedValue().columns else {
            return withSource { $0.index(of: key.stringValue) }
        }
        let slot = slot(key)
        let column = columns[slot]
        if column >= 0 { return Int(column) }
        if column == KeyColumns.missing { return nil }
        let found = withSource { $0.index(of: key.stringValue) }
        columns[slot] = found.map { Int32($0) } ?? KeyColumns.missing
        return found
    }

    private func value(_ key: Key) throws -> Value {
        guard let i = index(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no attribute '\(key.stringValue)' in the row"))
        }
        return withSource { $0.value(at: i) }
    }

    /// The column of `key` as an integer when the column is known already and holds one: the
    /// hot path, kept small (no lookup by name, no `Value`).
    @inline(__always)
    private func knownInteger(_ key: Key) -> Int64? {
        guard let keyColumns else { return nil }
        let slot = slot(key)
        return keyColumns._withUnsafeGuaranteedRef { $0.integer(slot: slot) }
    }

    /// The general path: `key`'s value converted by the Codable rules (or the error), out of
    /// line so that the hot paths stay small.
    @inline(never)
    private func converted<T>(_ key: Key, _ decode: (ValueDecoder) throws -> T) throws -> T {
        try decode(ValueDecoder(value: value(key), codingPath: [key]))
    }

    func contains(_ key: Key) -> Bool { source.columns.index(of: key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let i = index(key) else { return true }
        return withSource { $0.value(at: i).isNull }
    }

    // The integer types the synthesized code asks for most read the column directly when it
    // holds an integer; anything else (missing, NULL, another type) takes the general path,
    // which converts or throws. Inlined into the protocol witness the container box calls,
    // which would otherwise be one more call per attribute.

    @inline(__always)
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        if let integer = knownInteger(key) { return integer != 0 }
        return try converted(key) { try $0.decode(type) }
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
    // Not inlined into its witness: that witness and `Int64`'s would then compile to the same
    // code, which the optimizer merges into one function behind a thunk for each: one more call
    // per attribute for both.
    @inline(never)
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        if let integer = knownInteger(key), let exact = Int(exactly: integer) { return exact }
        return try converted(key) { try $0.decode(type) }
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try ValueDecoder(value: value(key), codingPath: [key]).decode(type) }
    @inline(__always)
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        if let integer = knownInteger(key) { return integer }
        return try converted(key) { try $0.decode(type) }
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
        if let integer = withSource({ $0.integer(at: index) }) { return integer }
        let v = withSource { $0.value(at: index) }
        return v.isNull ? nil : try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let index = index(key) else { return nil }
        if let integer = withSource({ $0.integer(at: index) }), let exact = Int(exactly: integer) { return exact }
        let v = withSource { $0.value(at: index) }
        return v.isNull ? nil : try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = index(key) else { return nil }
        let v = withSource { $0.value(at: index) }
        if case .text(let s) = v { return s }
        return v.isNull ? nil : try ValueDecoder(value: v, codingPath: [key]).decode(type)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let index = index(key) else { return nil }
        let v = withSource { $0.value(at: index) }
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
        // The nearest double of an exact decimal (`Decimal` keeps every digit).
        case .decimal(let d): return d.double
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
        case .decimal(let d):
            guard let exact = T(exactly: d.double), d.isDoubleExactly else { throw mismatch(type) }
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
