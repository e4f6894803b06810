import CLibpqLoader
import PortalEngine
import PortalPredicate

/// A statement prepared on the server: bound, run on the first `step`, its rows read from the
/// result one by one.
public final class PostgresStatement: DatabaseStatement {
    private let connection: PostgresConnection
    private let name: String
    private let sql: String
    private var values: [Value] = []
    private var result: OpaquePointer?
    private var row = -1

    init(connection: PostgresConnection, name: String, sql: String) {
        self.connection = connection
        self.name = name
        self.sql = sql
    }

    deinit { if let result { connection.pq.clear(result) } }

    /// The values of the next run (a result still open is dropped).
    public func bind(_ values: [Value]) throws {
        reset()
        self.values = values
    }

    public func step() throws -> Bool {
        if result == nil { result = try connection.run(name, sql, values) }
        guard let result else { return false }
        row += 1
        return row < Int(connection.pq.ntuples(result))
    }

    public var columnCount: Int { result.map { Int(connection.pq.nfields($0)) } ?? 0 }

    public func columnName(_ index: Int) -> String {
        guard let result, let name = connection.pq.fname(result, Int32(index)) else { return "" }
        return String(cString: name)
    }

    /// The value by the column's type: integers, floating point, numeric (whole numbers as
    /// integers), booleans as 1/0,
    /// bytea as a blob, everything else as its text.
    public func value(at index: Int32) -> Value {
        guard let result, row >= 0, connection.pq.getisnull(result, Int32(row), index) == 0,
              let pointer = connection.pq.getvalue(result, Int32(row), index) else { return .null }
        let text = String(cString: pointer)
        switch connection.pq.ftype(result, index) {
        case 20, 21, 23, 26: return Int64(text).map(Value.integer) ?? .text(text)
        case 700, 701: return Double(text).map(Value.real) ?? .text(text)
        // numeric: whole numbers as integers (sum() of bigint is numeric), as SQLite's NUMERIC affinity.
        case 1700: return Int64(text).map(Value.integer) ?? Double(text).map(Value.real) ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        case 17: return Self.bytea(text)
        default: return .text(text)
        }
    }

    public func reset() {
        if let result { connection.pq.clear(result) }
        result = nil
        row = -1
        values = []
    }

    /// bytea's hex text form (`\x0aff`) as bytes.
    private static func bytea(_ text: String) -> Value {
        var bytes: [UInt8] = []
        var digits = Array(text.utf8.dropFirst(2))
        if digits.count % 2 == 1 { digits.append(UInt8(ascii: "0")) }
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hex(digits[index]), let low = hex(digits[index + 1]) else { return .text(text) }
            bytes.append(high << 4 | low)
            index += 2
        }
        return .blob(bytes)
    }

    private static func hex(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
