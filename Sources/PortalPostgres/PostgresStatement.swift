import CLibpqLoader
import PortalEngine
import PortalPredicate

/// A statement prepared on the server: bound, sent on the first `step`, its rows read one at a
/// time as they arrive (memory for one row). Another command on the connection while rows are
/// still arriving makes this statement take the rest first, as values (`takeRemainingRows`).
public final class PostgresStatement: DatabaseStatement {
    private let connection: PostgresConnection
    /// The SQL text (its named parameters numbered once bound by name, `bind(named:)`).
    public private(set) var sql: String
    private var values: [Value] = []
    private var isSent = false
    /// The current row, when it came from the server: row `row` of a result of `rowCount`.
    private var result: OpaquePointer?
    private var row: Int32 = 0
    private var rowCount: Int32 = 0
    /// The current row, when it was taken in before it was asked for.
    private var takenRow: [Value]?
    /// Rows taken in before they were asked for, and how many of them were handed out.
    private var taken: [[Value]] = []
    private var takenIndex = 0
    /// A failure that came while the rows were taken in early: thrown after those rows.
    private var takenFailure: Error?
    /// The names of the columns, once known (from the first result).
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
        isBound = true
    }

    /// Binds each parameter by name: `$1` to `values["1"]`, `$n` to `values["n"]`, which is
    /// numbered for the server (`PostgresParameters`).
    public func bind(named values: [String: Value]) throws {
        let (numbered, ordered) = try PostgresParameters.numbered(sql, from: values)
        if numbered != sql {
            sql = numbered
            names = nil
        }
        try bind(ordered)
    }

    public func step() throws -> Bool {
        if let failure = runFailure ?? describeFailure {
            (runFailure, describeFailure) = (nil, nil)
            throw failure
        }
        if !isSent {
            try connection.send(sql, values, for: self)
            isSent = true
        }
        if result != nil, row + 1 < rowCount {
            row += 1
            return true
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
        case .rows(let rows):
            result = rows
            row = 0
            rowCount = connection.pq.ntuples(rows)
            if names == nil { names = connection.columnNames(of: rows) }
            return true
        case .end:
            if names == nil { names = connection.lastResultColumns }
            return false
        }
    }

    /// Takes the rows still to come as values, so that the connection can run another command;
    /// a failure among them is kept, to be thrown by `step` after the rows before it.
    func takeRemainingRows() {
        while connection.streaming === self {
            do {
                guard case .rows(let rows) = try connection.next(sql: sql) else {
                    if names == nil { names = connection.lastResultColumns }
                    return
                }
                if names == nil { names = connection.columnNames(of: rows) }
                let pq = connection.pq
                for row in 0..<pq.ntuples(rows) {
                    taken.append((0..<pq.nfields(rows)).map { Self.value(in: rows, row, $0, pq) })
                }
                pq.clear(rows)
            } catch {
                takenFailure = error
                return
            }
        }
    }

    /// True for the statements that only read: a query, `SHOW`, `EXPLAIN` (without `ANALYZE`).
    /// Readers' transactions are read-only on the server, which refuses any write anyway.
    public var isReadOnly: Bool {
        let words = SQLStatements.leadingWords(sql, 2).map { $0.uppercased() }
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

    /// The number of columns (from the first result: asked before the first step, a bound
    /// statement runs then).
    public var columnCount: Int { columnNames.count }

    public func columnName(_ index: Int) -> String {
        columnNames.indices.contains(index) ? columnNames[index] : ""
    }

    /// The server's refusal of the statement, when describing it found one (no such column, a
    /// syntax error): the next `step` throws it. Running the statement again would only fail in
    /// the transaction the refusal aborted, with a message that hides it.
    private var describeFailure: Error?
    /// The failure of the run begun for the columns (`runForColumns`): that run's, thrown by
    /// the next `step`, dropped with it by `reset`.
    private var runFailure: Error?
    /// True once values are bound for the next run (`bind`), until `reset`.
    private var isBound = false

    /// The names, from the first result. Asked before the statement runs, a bound statement
    /// runs then (its rows are then stepped through as usual): its first result brings them,
    /// where a Describe would cost a round trip of its own on every run. Only a statement asked
    /// before it is bound is described.
    private var columnNames: [String] {
        if let names { return names }
        guard !isSent else { return [] }
        do {
            if isBound {
                try runForColumns()
            } else {
                names = try connection.columns(of: sql)
            }
        } catch {
            if isBound { runFailure = error } else { describeFailure = error }
        }
        return names ?? []
    }

    /// Runs the statement and takes its columns from the first result.
    private func runForColumns() throws {
        try connection.send(sql, values, for: self)
        isSent = true
        switch try connection.next(sql: sql) {
        case .rows(let rows):
            result = rows
            row = -1
            rowCount = connection.pq.ntuples(rows)
            names = connection.columnNames(of: rows)
        case .end:
            names = connection.lastResultColumns
        }
    }

    /// The value by the column's type: integers, floating point, numeric (whole numbers without
    /// a scale as integers, the others as exact decimals), booleans as 1/0, bytea as a blob, timestamptz as the server's text (with its offset),
    /// everything else as its text.
    public func value(at index: Int32) -> Value {
        if let takenRow { return takenRow.indices.contains(Int(index)) ? takenRow[Int(index)] : .null }
        guard let result else { return .null }
        return Self.value(in: result, row, index, connection.pq)
    }

    /// Ends the run: rows not read are dropped as they arrive, none kept (the connection is free
    /// again).
    public func reset() {
        if connection.streaming === self { connection.discardRemaining() }
        clearRow()
        taken = []
        takenIndex = 0
        takenFailure = nil
        runFailure = nil
        isSent = false
        isBound = false
        values = []
    }

    private func clearRow() {
        if let result { connection.pq.clear(result) }
        result = nil
        takenRow = nil
    }

    private static func value(in result: OpaquePointer, _ row: Int32, _ index: Int32, _ pq: portal_libpq) -> Value {
        guard pq.getisnull(result, row, index) == 0, let pointer = pq.getvalue(result, row, index) else { return .null }
        let type = pq.ftype(result, index)
        switch type {
        // Integers, and numeric's whole numbers (sum() of bigint is numeric, as SQLite's NUMERIC
        // affinity makes them integers), are read in place: a page of them makes no strings.
        case 20, 21, 23, 26, 1700: if let integer = integer(at: pointer) { return .integer(integer) }
        case 16: return .integer(pointer.pointee == CChar(UInt8(ascii: "t")) ? 1 : 0)
        default: break
        }
        let text = String(cString: pointer)
        switch type {
        // numeric keeps every digit and its scale (`4.10`); its NaN and infinities are reals.
        case 1700: return ExactDecimal(text).map(Value.decimal) ?? Double(text).map(Value.real) ?? .text(text)
        case 700, 701: return Double(text).map(Value.real) ?? .text(text)
        // timestamptz stays as the server writes it, in the session's time zone with its offset
        // (`2026-03-01 10:00:00+01`), as psql shows it; typed `Date`s read the offset.
        case 17: return bytea(text)
        default: return .text(text)
        }
    }

    /// The decimal integer at `pointer` (as PostgreSQL writes them: an optional minus, digits),
    /// or nil when it is something else or beyond Int64.
    static func integer(at pointer: UnsafePointer<CChar>) -> Int64? {
        var index = pointer.pointee == CChar(UInt8(ascii: "-")) ? 1 : 0
        let negative = index == 1
        var value: Int64 = 0
        // Summed negatively, so that Int64.min fits.
        while pointer[index] != 0 {
            let digit = Int64(pointer[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            let (shifted, over) = value.multipliedReportingOverflow(by: 10)
            let (next, under) = shifted.subtractingReportingOverflow(digit)
            guard !over, !under else { return nil }
            value = next
            index += 1
        }
        guard index > (negative ? 1 : 0) else { return nil }
        if negative { return value }
        return value == .min ? nil : -value
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
