#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The column names of one result set, shared by all its rows (one allocation per query, not per row).
public final class ColumnNames: Sendable, Hashable {
    /// The names, in column order.
    public let names: [String]
    private let positions: [String: Int]

    /// Column names in this order (duplicates allowed: lookups find the first).
    public init(_ names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (i, name) in names.enumerated() where positions[name] == nil { positions[name] = i }
        self.positions = positions
    }

    /// The position of `name`: exact match, else the first case-insensitive match (as SQLite).
    @inline(__always)
    public func index(of name: String) -> Int? {
        if let i = positions[name] { return i }
        let lowered = name.lowercased()
        return names.firstIndex { $0.lowercased() == lowered }
    }

    /// Equal when the names are.
    public static func == (a: ColumnNames, b: ColumnNames) -> Bool { a === b || a.names == b.names }
    /// Hashes the names.
    public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}

/// One row of a result: ordered attributes (name and value), in the order of the query's columns.
///
/// The rows of one fetch share one `RowStorage` holding all their values back to back, so a
/// fetch makes no allocation per row; a row is that storage and the position of its first cell.
public struct Row: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    // Usable from inlinable code: `value(at:)` is inlined where rows are read cell by cell (the
    // browser draws every cell of a screen through it).
    @usableFromInline let storage: RowStorage
    /// The index in `storage` of this row's first cell.
    @usableFromInline let start: Int

    /// Inlinable: a backend's fetch makes one for every row it reads.
    @inlinable
    package init(storage: RowStorage, start: Int) {
        self.storage = storage
        self.start = start
    }

    /// A row of `values` under `columns` (as many of each).
    public init(columns: ColumnNames, values: [Value]) {
        let storage = RowStorage(columns: columns, width: values.count)
        // Out of memory: an empty row rather than a trap (every read of it gives .null).
        _ = storage.append(values)
        self.init(storage: storage, start: 0)
    }

    /// A row from name/value pairs, in order.
    public init(_ pairs: KeyValuePairs<String, Value>) {
        self.init(columns: ColumnNames(pairs.map(\.key)), values: pairs.map(\.value))
    }

    /// The names of the values, shared with the other rows of the same result.
    public var columns: ColumnNames { storage.columns }
    /// The attribute names, in order.
    public var names: [String] { storage.columns.names }

    /// The values in order (built on each call: prefer `value(at:)` or `row[name]` to read one).
    public var values: [Value] {
        get { (0..<storage.width).map { storage.value(at: start + $0) } }
        set { self = Row(columns: columns, values: newValue) }
    }

    /// The value at `position` (0-based, in column order).
    @inlinable @inline(__always)
    public func value(at position: Int) -> Value { storage.value(at: start + position) }

    /// The value of the attribute `name` (case-insensitive fallback), nil when the row has none.
    public subscript(name: String) -> Value? {
        guard let i = storage.columns.index(of: name), i < storage.width else { return nil }
        return storage.value(at: start + i)
    }

    /// The position of the first attribute.
    @inlinable public var startIndex: Int { 0 }
    /// The position after the last attribute.
    @inlinable public var endIndex: Int { storage.width }
    /// How many attributes the row has.
    @inlinable public var count: Int { storage.width }

    /// The attribute at `position`: its name and value.
    public subscript(position: Int) -> (name: String, value: Value) {
        (storage.columns.names[position], storage.value(at: start + position))
    }

    /// `[name: value, …]`, for debugging.
    public var description: String {
        "[" + indices.map { "\(names[$0]): \(value(at: $0))" }.joined(separator: ", ") + "]"
    }

    /// Equal when the names and the values are.
    public static func == (a: Row, b: Row) -> Bool {
        guard a.columns == b.columns, a.count == b.count else { return false }
        if a.storage === b.storage && a.start == b.start { return true }
        return a.indices.allSatisfy { a.value(at: $0) == b.value(at: $0) }
    }

    /// Hashes the names and the values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(columns)
        hasher.combine(count)
        for i in indices { hasher.combine(value(at: i)) }
    }
}

/// The values of one or more rows of the same columns, back to back. Integers, reals and nulls
/// are stored inline as plain bits with a kind byte beside them (nothing to retain or destroy,
/// 9 bytes a value); text and blobs go to a side array. The buffers grow with `realloc`, as a C
/// array would. Filled by the engine before any row is handed out and immutable once shared (a
/// storage is refilled only while the engine holds its sole reference), hence `@unchecked Sendable`.
///
/// `@usableFromInline`: without it the compiler keeps the `@inlinable` methods below out of
/// another module's code (a package declaration's body is not offered for inlining), and a
/// backend's fetch made a call for every value it stored.
@usableFromInline
package final class RowStorage: @unchecked Sendable {
    @usableFromInline
    package enum Kind: UInt8 { case null, integer, real, other }

    let columns: ColumnNames
    /// Values per row.
    @usableFromInline package let width: Int
    /// The integer, the real's bits, or the index of the value in `others`, per value.
    // Usable from inlinable code: a backend's row reader (another module) fills the storage
    // through the inlined `reserve`, `appendRow` and `write`. Unchecked, as `others`: seen from
    // another module the compiler can no longer prove the accesses exclusive, and a dynamic
    // check on every value written doubled a fetch's time.
    @exclusivity(unchecked) @usableFromInline var bits: UnsafeMutablePointer<Int64>?
    @exclusivity(unchecked) @usableFromInline var kinds: UnsafeMutablePointer<Kind>?
    @exclusivity(unchecked) @usableFromInline var count = 0
    @exclusivity(unchecked) @usableFromInline var capacity = 0
    // Unchecked: only the engine mutates, before sharing (dynamic checks cost more than the reads).
    @exclusivity(unchecked) @usableFromInline var others: [Value] = []

    package init(columns: ColumnNames, width: Int) {
        self.columns = columns
        self.width = width
    }

    deinit {
        free(bits)
        free(kinds)
    }

    @inlinable @inline(__always)
    package func value(at index: Int) -> Value {
        guard index >= 0, index < count, let bits, let kinds else { return .null }
        switch kinds[index] {
        case .null: return .null
        case .integer: return .integer(bits[index])
        case .real: return .real(Double(bitPattern: UInt64(bitPattern: bits[index])))
        case .other: return others[Int(bits[index])]
        }
    }

    /// Empties the storage for reuse (only while nothing else references it).
    package func removeAll() {
        count = 0
        if !others.isEmpty { others.removeAll(keepingCapacity: true) }
    }

    /// Room for `more` values; false when memory ran out.
    @inlinable @inline(__always)
    package func reserve(_ more: Int) -> Bool {
        if count + more <= capacity { return true }
        let grown = max(capacity * 2, count + more, 16)
        guard let newBits = realloc(bits, grown * MemoryLayout<Int64>.stride) else { return false }
        bits = newBits.assumingMemoryBound(to: Int64.self)
        guard let newKinds = realloc(kinds, grown * MemoryLayout<Kind>.stride) else { return false }
        kinds = newKinds.assumingMemoryBound(to: Kind.self)
        capacity = grown
        return true
    }

    /// Appends one row: `fill` writes each of its `width` values into the row's cells (a value's
    /// bits and kind at its position, as `write` does), handed to it as plain pointers so that a
    /// backend's loop over the columns goes back to the storage for none of them. False when
    /// memory ran out.
    @inlinable @inline(__always)
    package func appendRow(_ fill: (_ bits: UnsafeMutablePointer<Int64>, _ kinds: UnsafeMutablePointer<Kind>) -> Void) -> Bool {
        guard reserve(width) else { return false }
        // Nil only while nothing was ever reserved: a row of no values.
        guard let bits, let kinds else { return true }
        fill(bits + count, kinds + count)
        count += width
        return true
    }

    /// Writes `value` into one cell: integers, reals and nulls as their bits, anything else kept
    /// aside (`others`) and found by its index there.
    @inlinable @inline(__always)
    package func write(_ value: Value, to bits: UnsafeMutablePointer<Int64>, _ kind: UnsafeMutablePointer<Kind>) {
        switch value {
        case .null: bits.pointee = 0; kind.pointee = .null
        case .integer(let i): bits.pointee = i; kind.pointee = .integer
        case .real(let d): bits.pointee = Int64(bitPattern: d.bitPattern); kind.pointee = .real
        case .text, .blob, .decimal:
            bits.pointee = Int64(others.count)
            kind.pointee = .other
            others.append(value)
        }
    }

    func append(_ values: [Value]) -> Bool {
        guard reserve(values.count) else { return false }
        for value in values { append(value) }
        return true
    }

    /// Appends one value (room reserved by the caller).
    private func append(_ value: Value) {
        guard let bits, let kinds else { return }
        write(value, to: bits + count, kinds + count)
        count += 1
    }
}
