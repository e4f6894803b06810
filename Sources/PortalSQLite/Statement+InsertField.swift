import CSQLite
import PortalEngine

extension Statement {
    /// Binds `fields` to the parameters `?1`, `?2`, … in order: text from its bytes in place.
    public func bind(fields: [InsertField]) throws {
        let handle = self.handle
        for i in fields.indices {
            let rc: Int32
            switch fields[i] {
            case .text(let bytes):
                rc = bytes.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text64(handle, Int32(i + 1), chars.baseAddress ?? emptyCString, sqlite3_uint64(chars.count),
                                        portal_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            case .value(let value):
                try bind(value, at: Int32(i + 1))
                continue
            }
            guard rc == SQLITE_OK else { throw bindError(rc) }
        }
    }

    /// `bind`, steps to the end and `sqlite3_reset` (bindings kept), each a direct call: an
    /// insert's run costs one call through the statement protocol, not one per step.
    public func runToEnd(binding values: [Value]) throws {
        defer { sqlite3_reset(handle) }
        try bind(values)
        while try step() {}
    }

    /// `bind(fields:)`, steps to the end and `sqlite3_reset` (bindings kept).
    public func runToEnd(binding fields: [InsertField]) throws {
        defer { sqlite3_reset(handle) }
        try bind(fields: fields)
        while try step() {}
    }
}
