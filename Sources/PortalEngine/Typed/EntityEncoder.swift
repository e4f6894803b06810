/// Encodes an entity into its attributes, in the order its `encode(to:)` writes them (stable, so
/// the same INSERT text — and the same cached statement — serves every entity of a type).
/// `nil` optionals are written as NULL, so an update clears them.
final class EntityEncoder: Encoder {
    @exclusivity(unchecked) var columns: [String] = []
    @exclusivity(unchecked) var values: [Value] = []
    /// How a date is stored (`DateForm`).
    var dates = DateForm.text
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func encode<T: Encodable>(_ entity: T) throws -> (columns: [String], values: [Value]) {
        let encoder = EntityEncoder()
        defer { encoder.finish() }
        try encoder.encode(entity)
        return (encoder.columns, encoder.values)
    }

    /// Encodes `entity` into `columns` and `values`, reusing their storage (one encoder serves
    /// a whole batch without reallocating).
    func encode<T: Encodable>(_ entity: T) throws {
        columns.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        try entity.encode(to: self)
    }

    /// The last keyed container handed out (it only points back at this encoder, so one serves
    /// a whole batch); `finish()` breaks the cycle.
    private var containerKeyType: ObjectIdentifier?
    private var containerHolder: AnyObject?

    func finish() { containerHolder = nil }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let keyType = ObjectIdentifier(type)
        if containerKeyType == keyType, let holder = containerHolder {
            // Same key type: a bit cast rather than a dynamic cast (see RowDecoder).
            return Unmanaged<EncodingContainerHolder<Key>>.fromOpaque(Unmanaged.passUnretained(holder).toOpaque())
                .takeUnretainedValue().container
        }
        let container = KeyedEncodingContainer(EntityKeyedContainer<Key>(encoder: self))
        containerKeyType = keyType
        containerHolder = EncodingContainerHolder(container)
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ValueEncoder(codingPath: []).unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ValueEncoder(codingPath: []) }

    @inline(__always)
    func append(_ key: some CodingKey, _ value: Value) {
        columns.append(key.stringValue)
        values.append(value)
    }
}

final class EncodingContainerHolder<Key: CodingKey> {
    let container: KeyedEncodingContainer<Key>
    init(_ container: KeyedEncodingContainer<Key>) { self.container = container }
}

struct EntityKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: EntityEncoder
    var codingPath: [any CodingKey] { [] }

    func encodeNil(forKey key: Key) { encoder.append(key, .null) }
    func encode(_ value: Bool, forKey key: Key) { encoder.append(key, .integer(value ? 1 : 0)) }
    func encode(_ value: String, forKey key: Key) { encoder.append(key, .text(value)) }
    func encode(_ value: Double, forKey key: Key) { encoder.append(key, .real(value)) }
    func encode(_ value: Float, forKey key: Key) { encoder.append(key, .real(Double(value))) }
    func encode(_ value: Int, forKey key: Key) { encoder.append(key, .integer(Int64(value))) }
    func encode(_ value: Int8, forKey key: Key) { encoder.append(key, .integer(Int64(value))) }
    func encode(_ value: Int16, forKey key: Key) { encoder.append(key, .integer(Int64(value))) }
    func encode(_ value: Int32, forKey key: Key) { encoder.append(key, .integer(Int64(value))) }
    func encode(_ value: Int64, forKey key: Key) { encoder.append(key, .integer(value)) }
    func encode(_ value: UInt, forKey key: Key) throws { encoder.append(key, try ValueEncoder.integer(value, key)) }
    func encode(_ value: UInt8, forKey key: Key) { encoder.append(key, .integer(Int64(value))) }
    func encode(_ value: UInt16, forKey key: Key) { encoder.append(key, .integer(Int64(value))) }
    func encode(_ value: UInt32, forKey key: Key) { encoder.append(key, .integer(Int64(value))) }
    func encode(_ value: UInt64, forKey key: Key) throws { encoder.append(key, try ValueEncoder.integer(value, key)) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let stored = encoder.dates.stored(value) { return encoder.append(key, stored) }
        encoder.append(key, try ValueEncoder.value(of: value, codingPath: [key]))
    }

    // Optionals: NULL rather than a missing column.
    func encodeIfPresent(_ value: Bool?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: String?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: Double?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: Float?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: Int?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: Int8?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: Int16?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: Int32?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: Int64?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: UInt8?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: UInt16?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: UInt32?, forKey key: Key) { value.map { encode($0, forKey: key) } ?? encodeNil(forKey: key) }
    func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }
    func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }
    func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { encodeNil(forKey: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(codingPath: [key]).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(codingPath: [key]).unkeyedContainer()
    }

    func superEncoder() -> any Encoder { encoder }
    func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// Encodes one attribute value: a primitive, `[UInt8]` as a blob, or a type that encodes itself
/// as a single primitive (enums with raw values, wrappers). Anything else is refused.
final class ValueEncoder: Encoder, SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var result: Value?
    var failure: EncodingError?

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    static func value<T: Encodable>(of value: T, codingPath: [any CodingKey]) throws -> Value {
        if let bytes = value as? [UInt8] { return .blob(bytes) }
        if let value = value as? Value { return value }
        // Dates, UUIDs, Data, … by the one value conversion rather than by their Codable form
        // (a Date would otherwise be seconds since 2001, which no predicate compares as a date).
        if let convertible = value as? any DatabaseValueConvertible { return convertible.databaseValue }
        let encoder = ValueEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        if let failure = encoder.failure { throw failure }
        guard let result = encoder.result else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "encoded no value"))
        }
        return result
    }

    static func integer<T: BinaryInteger>(_ value: T, _ key: any CodingKey) throws -> Value {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: "\(value) does not fit in a 64-bit integer"))
        }
        return .integer(exact)
    }

    private func refuse() {
        failure = EncodingError.invalidValue(codingPath, .init(codingPath: codingPath,
            debugDescription: "an attribute holds one value; nested structures are not supported"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        refuse()
        return KeyedEncodingContainer(EntityKeyedContainer<Key>(encoder: EntityEncoder()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { BlobEncoder(owner: self) }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() { result = .null }
    func encode(_ value: Bool) { result = .integer(value ? 1 : 0) }
    func encode(_ value: String) { result = .text(value) }
    func encode(_ value: Double) { result = .real(value) }
    func encode(_ value: Float) { result = .real(Double(value)) }
    func encode(_ value: Int) { result = .integer(Int64(value)) }
    func encode(_ value: Int8) { result = .integer(Int64(value)) }
    func encode(_ value: Int16) { result = .integer(Int64(value)) }
    func encode(_ value: Int32) { result = .integer(Int64(value)) }
    func encode(_ value: Int64) { result = .integer(value) }
    func encode(_ value: UInt) throws { result = try ValueEncoder.integer(value, codingPath.last ?? EntityKey.value) }
    func encode(_ value: UInt8) { result = .integer(Int64(value)) }
    func encode(_ value: UInt16) { result = .integer(Int64(value)) }
    func encode(_ value: UInt32) { result = .integer(Int64(value)) }
    func encode(_ value: UInt64) throws { result = try ValueEncoder.integer(value, codingPath.last ?? EntityKey.value) }
    func encode<T: Encodable>(_ value: T) throws { result = try ValueEncoder.value(of: value, codingPath: codingPath) }
}

/// A placeholder coding key for errors about a lone value.
enum EntityKey: String, CodingKey { case value }

/// Bytes written one by one (how `Data` encodes) collected into a blob.
struct BlobEncoder: UnkeyedEncodingContainer {
    let owner: ValueEncoder
    var codingPath: [any CodingKey] { owner.codingPath }
    var count = 0
    private var bytes: [UInt8] = []

    init(owner: ValueEncoder) {
        self.owner = owner
        owner.result = .blob([])
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard let byte = value as? UInt8 else {
            owner.failure = EncodingError.invalidValue(value, .init(codingPath: codingPath,
                debugDescription: "only byte sequences are stored, as blobs"))
            return
        }
        bytes.append(byte)
        count += 1
        owner.result = .blob(bytes)
    }

    mutating func encodeNil() throws {
        owner.failure = EncodingError.invalidValue(Value.null, .init(codingPath: codingPath, debugDescription: "nil in a byte sequence"))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        owner.container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { BlobEncoder(owner: ValueEncoder(codingPath: codingPath)) }
    mutating func superEncoder() -> any Encoder { owner }
}
