import CSQLite
import PortalEngine

extension RowStorage {
    /// Appends the current row of the statement `handle` (`width` columns); false when memory
    /// ran out. One column lookup per value (sqlite3_column_value), then typed reads: integers
    /// and reals never become a `Value`.
    @inline(__always)
    func appendRow(of handle: OpaquePointer) -> Bool {
        let width = self.width
        return appendRow { bits, kinds in
            for i in 0..<width {
                // `width` is the statement's column count, itself an Int32.
                let column = Int32(truncatingIfNeeded: i)
                guard let value = sqlite3_column_value(handle, column) else {
                    bits[i] = 0
                    kinds[i] = .null
                    continue
                }
                switch sqlite3_value_type(value) {
                case SQLITE_INTEGER:
                    bits[i] = sqlite3_value_int64(value)
                    kinds[i] = .integer
                case SQLITE_FLOAT:
                    bits[i] = Int64(bitPattern: sqlite3_value_double(value).bitPattern)
                    kinds[i] = .real
                case SQLITE_NULL:
                    bits[i] = 0
                    kinds[i] = .null
                default: write(Statement.value(of: handle, at: column), to: bits + i, kinds + i)
                }
            }
        }
    }
}
