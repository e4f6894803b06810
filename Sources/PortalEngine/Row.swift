/// The column names of one result set, shared by all its rows (one allocation per query, not per row).
public final class ColumnNames: Sendable, Hashable {
    public let names: [String]
    private let positions: [String: Int]

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

    public static func == (a: ColumnNames, b: ColumnNames) -> Bool { a === b || a.names == b.names }
    public func hash(into hasher: inout Hasher) { hasher.combine(names) }
}

/// One row of a result: ordered attributes (name and value), in the order of the query's columns.
public struct Row: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    public let columns: ColumnNames
    public var values: [Value]

    public init(columns: ColumnNames, values: [Value]) {
        self.columns = columns
        self.values = values
    }

    /// A row from name/value pairs, in order.
    public init(_ pairs: KeyValuePairs<String, Value>) {
        self.init(columns: ColumnNames(pairs.map(\.key)), values: pairs.map(\.value))
    }

    public var names: [String] { columns.names }

    /// The value of the attribute `name` (case-insensitive fallback), nil when the row has none.
    public subscript(name: String) -> Value? {
        columns.index(of: name).map { values[$0] }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { values.count }

    /// The attribute at `position`: its name and value.
    public subscript(position: Int) -> (name: String, value: Value) {
        (columns.names[position], values[position])
    }

    public var description: String {
        "[" + indices.map { "\(names[$0]): \(values[$0])" }.joined(separator: ", ") + "]"
    }
}
