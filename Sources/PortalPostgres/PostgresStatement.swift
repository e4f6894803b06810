import CLibpqLoader
import PortalEngine
import PortalPredicate

/// A statement prepared on the server: bound, sent on the first `step`, its rows read one at a
/// time as they arrive (memory for one row). Another command on the connection while rows are
/// still arriving makes this statement take the rest first (`takeRemainingRows`).
public final class PostgresStatement: DatabaseStatement {
    private let connection: PostgresConnection
    private let name: String
    private let sql: String
    private var values: [Value] = []
    private var isSent = false
    /// The current row: a single-row result.
    private var result: OpaquePointer?
    /// Rows taken in before they were asked for, when the connection had to run something else.
    private var waiting: [OpaquePointer] = []
    private var waitingIndex = 0

    init(connection: PostgresConnection, name: String, sql: String) {
        self.connection = connection
        self.name = name
        self.sql = sql
    }

    deinit { reset() }

    /// The values of the next run (a run still going is ended).
    public func bind(_ values: [Value]) throws {
        reset()
        self.values = values
    }

    public func step() throws -> Bool {
        if !isSent {
            try connection.send(name, values, for: self)
            isSent = true
        }
        if let result { connection.pq.clear(result) }
        result = nil
        if waitingIndex < waiting.count {
            result = waiting[waitingIndex]
            waitingIndex += 1
            return true
        }
        guard connection.streaming === self else { return false }
        result = try connection.nextRow(sql: sql)
        return result != nil
    }

    /// Takes the rows still to come, so that the connection can run another command.
    func takeRemainingRows() throws {
        while connection.streaming === self, let row = try connection.nextRow(sql: sql) { waiting.append(row) }
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
        guard let result, connection.pq.getisnull(result, 0, index) == 0,
              let pointer = connection.pq.getvalue(result, 0, index) else { return .null }
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

    /// Ends the run: rows not read are taken in and dropped (the connection is free again).
    public func reset() {
        if connection.streaming === self { try? takeRemainingRows() }
        if let result { connection.pq.clear(result) }
        for row in waiting[waitingIndex...] { connection.pq.clear(row) }
        result = nil
        waiting = []
        waitingIndex = 0
        isSent = false
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
