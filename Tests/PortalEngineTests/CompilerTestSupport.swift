import CSQLite
import Foundation
import PortalEngine
import PortalSQLite

/// A raw sqlite3 connection for the compiler's and schema reader's tests (they do not depend on
/// the engine's connection type). Values are bound with their byte lengths, so NUL bytes survive.
final class TestDatabase {
    let db: OpaquePointer

    /// Chinook, opened read-only in place.
    static func chinook() throws -> TestDatabase {
        try TestDatabase(path: chinookPath, readOnly: true)
    }


    init(path: String = ":memory:", readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            throw TestFailure("cannot open \(path)")
        }
        db = handle
        try SQLFunctions.register(on: db)
    }

    deinit { sqlite3_close_v2(db) }

    func schema() throws -> Schema { try SchemaReader.read(db) }

    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
            defer { sqlite3_free(error) }
            throw TestFailure("\(sql): " + (error.map { String(cString: $0) } ?? ""))
        }
    }

    /// The rows of `sql` with `bindings`.
    func query(_ sql: String, _ bindings: [Value] = []) throws -> [[Value]] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        return try rows(statement, bindings)
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw TestFailure("cannot prepare \(sql): " + String(cString: sqlite3_errmsg(db)))
        }
        return statement
    }

    func rows(_ statement: OpaquePointer, _ bindings: [Value]) throws -> [[Value]] {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (index, value) in bindings.enumerated() { bind(statement, Int32(index + 1), value) }
        var result: [[Value]] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return result }
            guard rc == SQLITE_ROW else {
                throw TestFailure("step failed: " + String(cString: sqlite3_errmsg(db)))
            }
            result.append((0..<sqlite3_column_count(statement)).map { column(statement, $0) })
        }
    }

    /// The first column of every row.
    func column(_ sql: String, _ bindings: [Value] = []) throws -> [Value] {
        try query(sql, bindings).map { $0[0] }
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ value: Value) {
        switch value {
        case .null: sqlite3_bind_null(statement, index)
        case .integer(let v): sqlite3_bind_int64(statement, index, v)
        case .real(let v): sqlite3_bind_double(statement, index, v)
        case .decimal(let v): sqlite3_bind_double(statement, index, v.double)
        case .text(let v):
            var text = v
            text.withUTF8 { buffer in
                if let base = buffer.baseAddress {
                    _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                          Int32(buffer.count), portal_sqlite_transient())
                } else {
                    _ = sqlite3_bind_text(statement, index, "", 0, portal_sqlite_transient())
                }
            }
        case .blob(let bytes):
            _ = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), portal_sqlite_transient())
            }
        }
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> Value {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
