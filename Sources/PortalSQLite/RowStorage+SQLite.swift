import CSQLite
import PortalEngine

extension RowStorage {
    /// Appends the current row of the statement `handle` (`width` columns); false when memory
    /// ran out. One column lookup per value (sqlite3_column_value), then typed reads: integers
    /// and reals never become a `Value`.
    @inline(__always)
    func appendRow(of handle: OpaquePointer) -> Bool {
        guard reserve(width) else { return false }
        for i in 0..<Int32(width) {
            guard let value = sqlite3_column_value(handle, i) else {
                put(0, .null)
                continue
            }
            switch sqlite3_value_type(value) {
            case SQLITE_INTEGER: put(sqlite3_value_int64(value), .integer)
            case SQLITE_FLOAT: put(Int64(bitPattern: sqlite3_value_double(value).bitPattern), .real)
            case SQLITE_NULL: put(0, .null)
            default: append(Statement.value(of: handle, at: i))
            }
        }
        return true
    }
}
