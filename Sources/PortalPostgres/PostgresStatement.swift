import CLibpqLoader
import PortalEngine
import PortalPredicate

/// A statement prepared on the server: bound, sent on the first `step`, its rows read one at a
/// time as they arrive (memory for one row). Another command on the connection while rows are
/// still arriving makes this statement take the rest first, as values (`takeRemainingRows`).
public final class PostgresStatement: DatabaseStatement {
    private let connection: PostgresConnection
    /// The SQL text.
    public let sql: String
    private var values: [Value] = []
    private var isSent = false
    /// The current row, when it came from the server: a single-row result.
    private var result: OpaquePointer?
    /// The current row, when it was taken in before it was asked for.
    private var takenRow: [Value]?
    /// Rows taken in before they were asked for, and how many of them were handed out.
    private var taken: [[Value]] = []
    private var takenIndex = 0
    /// A failure that came while the rows were taken in early: thrown after those rows.
    private var takenFailure: Error?
    /// The names of the columns, once known (from a row, or asked of the server).
    private var names: [String]?

    init(connection: PostgresConnection, sql: String) {
        self.connection = connection
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
            try connection.send(sql, values, for: self)
            isSent = true
        }
        clearRow()
        if takenIndex < taken.count {
            takenRow = taken[takenIndex]
            takenIndex += 1
            return true
        }
        if let failure = takenFailure {
            takenFailure = nil
            throw failure
        }
        guard connection.streaming === self else { return false }
        switch try connection.next(sql: sql) {
        case .row(let row):
            result = row
            if names == nil { names = connection.columnNames(of: row) }
            return true
        case .end:
            return false
        }
    }

    /// Takes the rows still to come as values, so that the connection can run another command;
    /// a failure among them is kept, to be thrown by `step` after the rows before it.
    func takeRemainingRows() {
        while connection.streaming === self {
            do {
                guard case .row(let row) = try connection.next(sql: sql) else { return }
                if names == nil { names = connection.columnNames(of: row) }
                taken.append((0..<connection.pq.nfields(row)).map { Self.value(in: row, $0, connection.pq) })
                connection.pq.clear(row)
            } catch {
                takenFailure = error
                return
            }
        }
    }

    /// True for the statements that only read: a query, `SHOW`, `EXPLAIN` (without `ANALYZE`).
    /// Readers' transactions are read-only on the server, which refuses any write anyway.
    public var isReadOnly: Bool {
        let words = Self.leadingWords(sql, 2).map { $0.uppercased() }
        switch words.first {
        case "SELECT", "VALUES", "TABLE", "SHOW": return true
        case "EXPLAIN": return words.dropFirst().first != "ANALYZE"
        // A common table expression may write (`WITH d AS (DELETE … RETURNING *) SELECT …`).
        case "WITH":
            let writes: Set<String> = ["INSERT", "UPDATE", "DELETE", "MERGE"]
            return !sql.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
                .contains { writes.contains($0.uppercased()) }
        default: return false
        }
    }

    /// The first `count` words of `sql`, read no further (a page's statement is asked each run).
    private static func leadingWords(_ sql: String, _ count: Int) -> [Substring] {
        func isSeparator(_ c: Character) -> Bool { c.isWhitespace || c == "(" }
        var words: [Substring] = []
        var rest = sql[...].drop(while: isSeparator)
        while words.count < count, !rest.isEmpty {
            let word = rest.prefix(while: { !isSeparator($0) })
            words.append(word)
            rest = rest[word.endIndex...].drop(while: isSeparator)
        }
        return words
    }

    /// The number of columns (asked of the server before the first run, when needed).
    public var columnCount: Int { columnNames.count }

    public func columnName(_ index: Int) -> String {
        columnNames.indices.contains(index) ? columnNames[index] : ""
    }

    private var columnNames: [String] {
        if let names { return names }
        let described = (try? connection.columns(of: sql)) ?? []
        names = described
        return described
    }

    /// The value by the column's type: integers, floating point, numeric (whole numbers as
    /// integers), booleans as 1/0, bytea as a blob, timestamps in UTC without their offset,
    /// everything else as its text.
    public func value(at index: Int32) -> Value {
        if let takenRow { return takenRow.indices.contains(Int(index)) ? takenRow[Int(index)] : .null }
        guard let result else { return .null }
        return Self.value(in: result, index, connection.pq)
    }

    /// Ends the run: rows not read are dropped as they arrive, none kept (the connection is free
    /// again).
    public func reset() {
        if connection.streaming === self { connection.discardRemaining() }
        clearRow()
        taken = []
        takenIndex = 0
        takenFailure = nil
        isSent = false
        values = []
    }

    private func clearRow() {
        if let result { connection.pq.clear(result) }
        result = nil
        takenRow = nil
    }

    private static func value(in result: OpaquePointer, _ index: Int32, _ pq: portal_libpq) -> Value {
        guard pq.getisnull(result, 0, index) == 0, let pointer = pq.getvalue(result, 0, index) else { return .null }
        let text = String(cString: pointer)
        switch pq.ftype(result, index) {
        case 20, 21, 23, 26: return Int64(text).map(Value.integer) ?? .text(text)
        case 700, 701: return Double(text).map(Value.real) ?? .text(text)
        // numeric: whole numbers as integers (sum() of bigint is numeric), as SQLite's NUMERIC affinity.
        case 1700: return Int64(text).map(Value.integer) ?? Double(text).map(Value.real) ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        // timestamptz: the session is in UTC, so its text ends in "+00"; without it, it is the
        // engine's date text (`YYYY-MM-DD HH:MM:SS.fff`), which SQLite's date functions and
        // typed `Date`s read.
        case 1184 where text.hasSuffix("+00"): return .text(String(text.dropLast(3)))
        case 17: return bytea(text)
        default: return .text(text)
        }
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
