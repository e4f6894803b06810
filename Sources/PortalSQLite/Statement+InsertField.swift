import CSQLite
import PortalEngine

extension Statement {
    /// Binds `fields` to the parameters `?1`, `?2`, … in order: text from its bytes, which
    /// SQLite copies (the bindings may outlive the caller's buffer).
    public func bind(fields: [InsertField]) throws {
        try bind(fields: fields, text: portal_sqlite_transient())
    }

    /// `bind(fields:)` with `destructor` for the text fields: SQLite's copy
    /// (`SQLITE_TRANSIENT`), or the caller's bytes where they are (`SQLITE_STATIC`).
    private func bind(fields: [InsertField], text destructor: sqlite3_destructor_type?) throws {
        let handle = self.handle
        for i in fields.indices {
            let rc: Int32
            switch fields[i] {
            case .text(let bytes):
                rc = bytes.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text64(handle, Int32(i + 1), chars.baseAddress ?? emptyCString, sqlite3_uint64(chars.count),
                                        destructor, UInt8(SQLITE_UTF8))
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
    public func runToEnd(binding values: UnsafeBufferPointer<Value>) throws {
        defer { sqlite3_reset(handle) }
        try bind(values)
        while try step() {}
    }

    /// `bind(fields:)`, steps to the end, `sqlite3_reset` and clears the bindings. The text is
    /// bound where it is, not copied: SQLite reads a parameter only while the statement runs,
    /// which is inside this call, and no binding is left pointing into the caller's buffer
    /// after it. (A copy of each field, allocated and freed for every row, would be a third of
    /// the work of a CSV import.)
    public func runToEnd(binding fields: [InsertField]) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bind(fields: fields, text: portal_sqlite_static())
        while try step() {}
    }
}
