
/// A type that reads itself from a row by column position, without Codable: what `generate swift`
/// writes beside each struct, and what a hand-written conformance looks like. Typed fetches
/// prefer it to `Decodable` when the type conforms.
///
///     extension Hike: RowDecodable {
///         static let decodedColumns = ["id", "name", "km"]
///         init(row: borrowing RowReader) throws {
///             id = try row[0]      // the column named decodedColumns[0]
///             name = try row[1]
///             km = try row[2]
///         }
///     }
public protocol RowDecodable {
    /// The columns `init(row:)` reads: `row[i]` is the column named `decodedColumns[i]`,
    /// wherever the result holds it (found once per fetch, by name).
    static var decodedColumns: [String] { get }
    /// The value of the row being read. Throw the reader's errors as they come. (`borrowing`
    /// spares a copy of the reader per row; a conformance may leave it out.)
    init(row: borrowing RowReader) throws

    /// Every remaining row of a fetch, decoded. Keep the default: it is inlined into the module
    /// of the conforming type, where the loop is specialized for it.
    static func _allRows(_ reader: RowReader) throws -> [Self]
    /// Each remaining row of a fetch, decoded and handed to `body`. Keep the default (as above).
    static func _forEachRow(_ reader: RowReader, _ body: (Self) throws -> Void) throws
}

extension RowDecodable {
    /// Every remaining row of a fetch, decoded (the loop the engine runs for `[Self]`).
    @inlinable
    public static func _allRows(_ reader: RowReader) throws -> [Self] {
        // Chunks of a fixed size, then one array of the exact count: the memory is written
        // once and copied once, where doubling an array would allocate (and fault in) twice
        // the result and copy it again at each step.
        var chunks: [[Self]] = []
        var chunk: [Self] = []
        chunk.reserveCapacity(1024)
        while try reader._step() {
            if chunk.count == 1024 {
                chunks.append(chunk)
                chunk = []
                chunk.reserveCapacity(1024)
            }
            chunk.append(try Self(row: reader))
        }
        if chunks.isEmpty { return chunk }
        var rows: [Self] = []
        rows.reserveCapacity(chunks.count * 1024 + chunk.count)
        for full in chunks { rows.append(contentsOf: full) }
        rows.append(contentsOf: chunk)
        return rows
    }

    /// Each remaining row of a fetch, decoded and handed to `body` (the engine's cursor loop).
    @inlinable
    public static func _forEachRow(_ reader: RowReader, _ body: (Self) throws -> Void) throws {
        while try reader._step() { try body(try Self(row: reader)) }
    }
}

/// A type that writes itself as a row of values, without Codable: `insert`, `update`, `upsert`
/// and `Portal.create` prefer it to `Encodable` when the type conforms.
///
///     extension Hike: RowEncodable {
///         static let encodedColumns = ["id", "name", "km"]
///         func encode(into row: inout RowWriter) {
///             row.append(id); row.append(name); row.append(km)
///         }
///     }
public protocol RowEncodable {
    /// The columns `encode(into:)` writes, in the order it appends their values.
    static var encodedColumns: [String] { get }
    /// Appends one value for each of `encodedColumns`, in order.
    func encode(into row: inout RowWriter) throws
}

/// Reads the current row of a fetch for `RowDecodable.init(row:)`: `row[i]` converts the column
/// named `decodedColumns[i]` to the type asked for, by the engine's one value conversion (the
/// rules of `DatabaseValueConvertible`, and of the Codable decoder for numbers and text). A value
/// that does not convert throws `.conversion` naming the attribute. Valid only inside the
/// `init(row:)` it was handed to.
public struct RowReader {
    let source: ColumnSource
    /// The statement stepping over the rows (nil when decoding a lone `Row`), read directly on
    /// the hot path (inlined into the conforming type's module).
    @usableFromInline let inPlace: InPlaceColumns?
    /// The result column of each decoded column.
    @usableFromInline let positions: [Int32]
    let names: [String]
    let entity: String

    /// A reader of `source` for `T`. A column the result lacks reads as NULL (so an optional
    /// property is nil, as with Codable); reading it as a non-optional throws.
    init<T: RowDecodable>(_ type: T.Type, source: ColumnSource, entity: String) {
        let names = T.decodedColumns
        positions = names.map { source.columns.index(of: $0).map(Int32.init) ?? -1 }
        self.source = source
        inPlace = source.inPlace
        self.names = names
        self.entity = entity
    }

    /// The column as a `Value`, as stored (NULL is `.null`).
    public subscript(_ index: Int) -> Value {
        get throws { try value(index) }
    }

    /// The column as a `Value`; nil for NULL.
    public subscript(_ index: Int) -> Value? {
        get throws {
            // Not `isNull ? nil : value`: `Value` takes `nil` as a literal, so that would be `.null`.
            let value = try value(index)
            if value.isNull { return nil }
            return value
        }
    }

    /// An integer column: inlined where it is read, one lookup of the column and no `Value`.
    @inlinable
    public subscript(_ index: Int) -> Int64 {
        get throws {
            if let inPlace, index >= 0 && index < positions.count, let integer = inPlace.integer(at: positions[index]) {
                return integer
            }
            return try int64(index)
        }
    }

    /// The other cases of an `Int64` column: a lone row, a conversion, an error.
    @usableFromInline
    func int64(_ index: Int) throws -> Int64 {
        if let integer = try integer(index) { return integer }
        return try converted(index, Int64.self) { try $0.decode(Int64.self) }
    }

    /// An integer column; nil for NULL.
    public subscript(_ index: Int) -> Int64? {
        get throws {
            if let integer = try integer(index) { return integer }
            return try optional(index) { try $0.decode(Int64.self) }
        }
    }

    /// An integer column that fits in `Int`.
    public subscript(_ index: Int) -> Int {
        get throws {
            if let integer = try integer(index), let exact = Int(exactly: integer) { return exact }
            return try converted(index, Int.self) { try $0.decode(Int.self) }
        }
    }

    /// An integer column that fits in `Int`; nil for NULL.
    public subscript(_ index: Int) -> Int? {
        get throws { try optional(index) { try $0.decode(Int.self) } }
    }

    /// A number column (an integer reads as its `Double`).
    public subscript(_ index: Int) -> Double {
        get throws {
            let value = try value(index)
            if case .real(let real) = value { return real }
            return try converted(index, value, Double.self) { try $0.decode(Double.self) }
        }
    }

    /// A number column; nil for NULL.
    public subscript(_ index: Int) -> Double? {
        get throws {
            let value = try value(index)
            if case .real(let real) = value { return real }
            return value.isNull ? nil : try converted(index, value, Double.self) { try $0.decode(Double.self) }
        }
    }

    /// A text column.
    public subscript(_ index: Int) -> String {
        get throws {
            let value = try value(index)
            if case .text(let text) = value { return text }
            return try converted(index, value, String.self) { try $0.decode(String.self) }
        }
    }

    /// A text column; nil for NULL.
    public subscript(_ index: Int) -> String? {
        get throws {
            let value = try value(index)
            if case .text(let text) = value { return text }
            return value.isNull ? nil : try converted(index, value, String.self) { try $0.decode(String.self) }
        }
    }

    /// A blob's bytes.
    public subscript(_ index: Int) -> [UInt8] {
        get throws { try converted(index, [UInt8].self) { try $0.decode([UInt8].self) } }
    }

    /// A blob's bytes; nil for NULL.
    public subscript(_ index: Int) -> [UInt8]? {
        get throws { try optional(index) { try $0.decode([UInt8].self) } }
    }

    /// `Bool`, `Date`, `UUID`, `Data`, `Decimal`, `URL`, enums with raw values, and any other
    /// `DatabaseValueConvertible` type.
    public subscript<V: DatabaseValueConvertible>(_ index: Int) -> V {
        get throws {
            let value = try value(index)
            guard let converted = V(databaseValue: value) else {
                throw positions[index] < 0 ? missing(index) : mismatch(index, value, V.self)
            }
            return converted
        }
    }

    /// A `DatabaseValueConvertible` value; nil for NULL.
    public subscript<V: DatabaseValueConvertible>(_ index: Int) -> V? {
        get throws {
            let value = try value(index)
            if value.isNull { return nil }
            guard let converted = V(databaseValue: value) else { throw mismatch(index, value, V.self) }
            return converted
        }
    }

    /// Moves to the next row of the fetch: false after the last.
    @usableFromInline
    func _step() throws -> Bool { try source.step() }

    // MARK: Helpers

    /// The result column of decoded column `index`; -1 when the result lacks it.
    @inline(__always)
    private func position(_ index: Int) throws -> Int {
        guard index >= 0 && index < positions.count else {
            throw PortalError(.conversion, "cannot convert \(entity): column \(index) read, but decodedColumns names "
                              + "\(positions.count)", entity: entity)
        }
        return Int(positions[index])
    }

    /// The column as an integer when it holds one (the common case, read without a `Value`).
    @inline(__always)
    private func integer(_ index: Int) throws -> Int64? {
        if let inPlace, index >= 0 && index < positions.count {
            // A missing column (-1) reads as NULL: not an integer.
            return inPlace.integer(at: positions[index])
        }
        let position = try position(index)
        return position < 0 ? nil : source.integer(at: position)
    }

    @inline(__always)
    private func value(_ index: Int) throws -> Value {
        let position = try position(index)
        return position < 0 ? .null : source.value(at: position)
    }

    /// The column converted by the Codable decoder's rules (one value conversion for both).
    private func converted<T>(_ index: Int, _ type: T.Type, _ decode: (ValueDecoder) throws -> T) throws -> T {
        try converted(index, value(index), type, decode)
    }

    private func converted<T>(_ index: Int, _ value: Value, _ type: T.Type,
                              _ decode: (ValueDecoder) throws -> T) throws -> T {
        if positions[index] < 0 { throw missing(index) }
        do {
            return try decode(ValueDecoder(value: value, codingPath: [ColumnKey(names[index])]))
        } catch {
            throw PortalError.conversion(error, entity: entity)
        }
    }

    private func optional<T>(_ index: Int, _ decode: (ValueDecoder) throws -> T) throws -> T? {
        let value = try value(index)
        if value.isNull { return nil }
        return try converted(index, value, T.self, decode)
    }

    private func missing(_ index: Int) -> PortalError {
        let name = names[index]
        return PortalError(.conversion, "cannot convert \(entity).\(name): the result has no column '\(name)'",
                           entity: entity, attribute: name)
    }

    private func mismatch(_ index: Int, _ value: Value, _ type: Any.Type) -> PortalError {
        let name = names[index]
        return PortalError(.conversion, "cannot convert \(entity).\(name): cannot read \(value) as \(type)",
                           entity: entity, attribute: name)
    }
}

/// Collects the values of `RowEncodable.encode(into:)`: `append` each attribute, in the order of
/// `encodedColumns` (optionals: nil is NULL). Conversions are the engine's one value conversion.
public struct RowWriter {
    var values: [Value] = []
    /// How a date is stored (`DateForm`).
    var dates = DateForm.text

    init(capacity: Int) { values.reserveCapacity(capacity) }

    /// A value as it is.
    public mutating func append(_ value: Value) { values.append(value) }
    /// A value, NULL for nil.
    public mutating func append(_ value: Value?) { values.append(value ?? .null) }
    /// An integer.
    public mutating func append(_ value: Int64) { values.append(.integer(value)) }
    /// An integer, NULL for nil.
    public mutating func append(_ value: Int64?) { values.append(value.map(Value.integer) ?? .null) }
    /// An integer.
    public mutating func append(_ value: Int) { values.append(.integer(Int64(value))) }
    /// An integer, NULL for nil.
    public mutating func append(_ value: Int?) { values.append(value.map { .integer(Int64($0)) } ?? .null) }
    /// A real number.
    public mutating func append(_ value: Double) { values.append(.real(value)) }
    /// A real number, NULL for nil.
    public mutating func append(_ value: Double?) { values.append(value.map(Value.real) ?? .null) }
    /// Text.
    public mutating func append(_ value: String) { values.append(.text(value)) }
    /// Text, NULL for nil.
    public mutating func append(_ value: String?) { values.append(value.map(Value.text) ?? .null) }
    /// A blob.
    public mutating func append(_ value: [UInt8]) { values.append(.blob(value)) }
    /// A blob, NULL for nil.
    public mutating func append(_ value: [UInt8]?) { values.append(value.map(Value.blob) ?? .null) }
    /// `Bool`, `Date`, `UUID`, `Data`, …: the type's `databaseValue`.
    public mutating func append<V: DatabaseValueConvertible>(_ value: V) { values.append(stored(value)) }
    /// The type's `databaseValue`, NULL for nil.
    public mutating func append<V: DatabaseValueConvertible>(_ value: V?) { values.append(value.map(stored) ?? .null) }

    private func stored<V: DatabaseValueConvertible>(_ value: V) -> Value {
        if let stored = dates.stored(value) { return stored }
        return value.databaseValue
    }
}

/// A coding key naming a column, for the conversion errors of `RowReader`.
struct ColumnKey: CodingKey {
    let stringValue: String
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

// MARK: Choosing the coding

extension RowDecodable {
    /// Decodes one row as `Self`, handed back as `T` (the caller checked that `T` is `Self`).
    static func rowDecoder<T>(as type: T.Type, reader: RowReader) -> () throws -> T {
        { unsafeBitCast(try Self(row: reader), to: T.self) }
    }

    /// `_allRows`, as `[T]` (the caller checked that `T` is `Self`).
    static func allRows<T>(as type: T.Type, _ reader: RowReader) throws -> [T] {
        unsafeBitCast(try _allRows(reader), to: [T].self)
    }

    /// `_forEachRow`, for a `body` taking `T` (the caller checked that `T` is `Self`).
    static func forEachRow<T>(as type: T.Type, _ reader: RowReader, _ body: (T) throws -> Void) throws {
        try withoutActuallyEscaping(body) { body in
            try _forEachRow(reader, unsafeBitCast(body, to: ((Self) throws -> Void).self))
        }
    }
}

extension RowEncodable {
    /// Encodes each of `entities` (the caller checked that `T` is `Self`) into reused storage
    /// and hands `body` the columns and values of each in turn.
    static func encodeEach<T>(_ entities: [T], entity: String, dates: DateForm,
                              _ body: ([String], [Value]) throws -> Void) throws {
        let columns = encodedColumns
        var writer = RowWriter(capacity: columns.count)
        writer.dates = dates
        for item in unsafeBitCast(entities, to: [Self].self) {
            writer.values.removeAll(keepingCapacity: true)
            try item.encode(into: &writer)
            guard writer.values.count == columns.count else {
                throw PortalError(.conversion, "cannot convert \(entity): \(Self.self).encode(into:) wrote "
                                  + "\(writer.values.count) values for \(columns.count) columns", entity: entity)
            }
            try body(columns, writer.values)
        }
    }
}

extension ColumnSource {
    /// How each row of a fetch becomes a `T`: by `RowDecodable` when `T` conforms, else by Codable.
    func decoder<T: Decodable>(for type: T.Type, entity: String) throws -> () throws -> T {
        if let decodable = T.self as? any RowDecodable.Type {
            return decodable.rowDecoder(as: T.self, reader: RowReader(decodable, source: self, entity: entity))
        }
        let decoder: any Decoder = RowDecoder(source: self)
        return { try self.decodeRow(T.self, with: decoder, entity: entity) }
    }
}

extension Row {
    /// The row as `T`: by `RowDecodable` when `T` conforms, else by Codable. A failure is
    /// `.conversion`, naming the attribute.
    func decoded<T: Decodable>(as type: T.Type, entity: String) throws -> T {
        let source = ColumnSource(row: self)
        defer { source.finish() }
        return try source.decoder(for: T.self, entity: entity)()
    }
}

/// Encodes entities by `RowEncodable` when their type conforms, else by Codable.
enum EntityEncoding {
    /// Hands `body` the columns and values of each entity in turn (storage reused between them).
    /// `dates`: how the store keeps a date (`DateForm`).
    static func each<T: Encodable>(_ entities: [T], entity: String, dates: DateForm = .text,
                                   _ body: ([String], [Value]) throws -> Void) throws {
        if let encodable = T.self as? any RowEncodable.Type {
            return try encodable.encodeEach(entities, entity: entity, dates: dates, body)
        }
        let encoder = EntityEncoder()
        encoder.dates = dates
        defer { encoder.finish() }
        for item in entities {
            do {
                try encoder.encode(item)
            } catch let error as EncodingError {
                throw PortalError.conversion(error, entity: entity)
            }
            try body(encoder.columns, encoder.values)
        }
    }
}
