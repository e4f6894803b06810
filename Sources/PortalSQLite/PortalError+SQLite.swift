import CSQLite
import PortalEngine

extension PortalError {
    /// Builds the error SQLite reported on `db` for result `code`, classifying it and filling the
    /// entity and attributes from constraint messages.
    package static func sqlite(_ code: Int32, db: OpaquePointer?, sql: String? = nil) -> PortalError {
        let extended = db.map { sqlite3_extended_errcode($0) } ?? code
        let sqliteMessage = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        return fromSQLite(code: (extended & 0xff) == (code & 0xff) ? extended : code,
                          message: sqliteMessage, sql: sql)
    }

    package static func fromSQLite(code: Int32, message sqliteMessage: String, sql: String? = nil) -> PortalError {
        let primary = code & 0xff
        var error: PortalError
        switch primary {
        case SQLITE_BUSY, SQLITE_LOCKED:
            error = PortalError(.busy, "the database is locked by another connection (\(sqliteMessage))")
        case SQLITE_READONLY:
            error = PortalError(.readOnly, "the database is read-only (\(sqliteMessage))")
        case SQLITE_FULL:
            error = PortalError(.diskFull, "the disk or database is full; nothing was written (\(sqliteMessage))")
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            error = PortalError(.notADatabase, "the file is not a database or is damaged (\(sqliteMessage))")
        case SQLITE_CANTOPEN:
            error = PortalError(.cannotOpen, "unable to open the database file (\(sqliteMessage))")
        case SQLITE_INTERRUPT:
            error = PortalError(.interrupted, "interrupted")
        case SQLITE_MISUSE:
            error = PortalError(.misuse, sqliteMessage)
        case SQLITE_CONSTRAINT:
            error = constraintError(code: code, message: sqliteMessage)
        default:
            // Classified by result code only; SQLite's message is kept as the text.
            error = PortalError(.database, sqliteMessage)
        }
        error.sqliteCode = code
        error.sqliteMessage = sqliteMessage
        error.sql = sql
        return error
    }

    /// "NOT NULL constraint failed: Track.Name", "UNIQUE constraint failed: T.a, T.b",
    /// "FOREIGN KEY constraint failed", "CHECK constraint failed: positive".
    private static func constraintError(code: Int32, message: String) -> PortalError {
        let kind: ConstraintKind
        switch code {
        case PORTAL_SQLITE_CONSTRAINT_NOTNULL: kind = .notNull
        case PORTAL_SQLITE_CONSTRAINT_UNIQUE: kind = .unique
        case PORTAL_SQLITE_CONSTRAINT_PRIMARYKEY, PORTAL_SQLITE_CONSTRAINT_ROWID: kind = .primaryKey
        case PORTAL_SQLITE_CONSTRAINT_FOREIGNKEY: kind = .foreignKey
        case PORTAL_SQLITE_CONSTRAINT_CHECK: kind = .check
        default: kind = .other
        }
        var error = PortalError(.constraint(kind), "\(kind.rawValue) constraint failed")
        if kind == .other { return otherConstraintError(code: code, message: message, error) }
        guard let detail = message.suffix(after: "failed: ") else { return error }
        if kind == .check {
            error.message += ": \(detail)"
            return error
        }
        let columns = detail.split(separator: ",").map { $0.trimmingCharacters(in: " ") }
        var entity: String?
        var attributes: [String] = []
        for column in columns {
            if let dot = column.lastIndex(of: ".") {
                entity = String(column[..<dot])
                attributes.append(String(column[column.index(after: dot)...]))
            } else {
                attributes.append(column)
            }
        }
        error.entity = entity
        error.attributes = attributes
        error.attribute = attributes.first
        error.message += ": \(detail)"
        return error
    }
}

extension PortalError {
    /// A trigger's `RAISE(ABORT, 'text')` and a STRICT table's type error say what is wrong in
    /// SQLite's message: it is the error's, not a bare "constraint failed".
    fileprivate static func otherConstraintError(code: Int32, message: String, _ generic: PortalError) -> PortalError {
        var error = generic
        switch code {
        case PORTAL_SQLITE_CONSTRAINT_TRIGGER:
            error.message = "a trigger refused the change: \(message)"
        case PORTAL_SQLITE_CONSTRAINT_DATATYPE:
            // "cannot store TEXT value in INTEGER column t.v"
            error.message = message
            if let column = message.suffix(after: " column "), let dot = column.lastIndex(of: ".") {
                error.entity = String(column[..<dot])
                error.attribute = String(column[column.index(after: dot)...])
                error.attributes = error.attribute.map { [$0] } ?? []
            }
        default:
            if !message.isEmpty && message != "constraint failed" { error.message = message }
        }
        return error
    }
}
