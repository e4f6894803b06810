/// The one error type of the engine: what went wrong (`kind`), in words a user can read
/// (`message`), where (entity, attribute, constraint, file), and the database's own code for it
/// (`code`: SQLite's extended result code, PostgreSQL's SQLSTATE).
public struct PortalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which constraint a write violated.
    public enum ConstraintKind: String, Sendable, Hashable {
        case notNull = "NOT NULL", unique = "UNIQUE", primaryKey = "PRIMARY KEY"
        case foreignKey = "FOREIGN KEY", check = "CHECK", other = "constraint"
    }

    /// What went wrong, for code to switch on.
    public enum Kind: Sendable, Hashable {
        /// The database file does not exist (and `create` was false).
        case fileNotFound
        /// The file exists but cannot be opened (permissions, a folder…).
        case cannotOpen
        /// The file is not an SQLite database, or it is damaged.
        case notADatabase
        /// Another connection holds the lock past the busy timeout.
        case busy
        /// A write to a database that is read-only: a read-only file or server session, a store
        /// opened read-only.
        case readOnly
        /// A statement that changes the database, run where only reads are (a read context, a
        /// prepared statement of a read): run it in a write.
        case writeInRead
        /// What was to be written cannot be: a view, or a write whose bookkeeping the store
        /// could not keep (a Core Data store without its model, a table kept by its triggers).
        case notWritable
        case constraint(ConstraintKind)
        /// The disk (or `PRAGMA max_page_count`) is full.
        case diskFull
        case unknownEntity
        case unknownAttribute
        /// A row the operation needed is not there (e.g. `Portal.update` of a deleted entity).
        case rowNotFound
        /// The predicate or sort key did not compile; `predicateError` has the details.
        case predicate
        /// The API was used wrongly: a context outside its closure, a closed store, a commit
        /// without a transaction…
        case misuse
        /// A statement was interrupted (`Store.interrupt()`).
        case interrupted
        /// A value could not be converted to or from an entity's type.
        case conversion
        /// Any other error the database reported: its own code is in `code`, its words in
        /// `message`.
        case database
        /// A Core Data model could not be read, or does not match its store.
        case coreDataModel
    }

    /// The database's own code for an error it reported.
    public enum DatabaseCode: Sendable, Hashable {
        /// SQLite's extended result code (`SQLiteCode`).
        case sqlite(Int32)
        /// PostgreSQL's SQLSTATE (`SQLState`).
        case sqlState(String)
    }

    /// What went wrong.
    public var kind: Kind
    /// What went wrong, in a sentence a user can read (without an "error:" prefix).
    public var message: String
    /// The entity involved, when known.
    public var entity: String?
    /// The attribute involved, when known (the first one when the constraint names several).
    public var attribute: String?
    /// Every column the violated constraint names (`UNIQUE constraint failed: T.a, T.b`).
    public var attributes: [String] = []
    /// The violated constraint when `kind` is `.constraint`, else nil.
    public var constraint: ConstraintKind? {
        if case .constraint(let c) = kind { return c } else { return nil }
    }
    /// The database file, for errors about opening it.
    public var path: String?
    /// The database's own code, when the database reported the error.
    public var code: DatabaseCode?
    /// SQLite's extended result code, when SQLite reported the error.
    public var sqliteCode: Int32? {
        get { if case .sqlite(let code)? = code { code } else { nil } }
        set { code = newValue.map(DatabaseCode.sqlite) }
    }
    /// PostgreSQL's SQLSTATE, when PostgreSQL reported the error.
    public var sqlState: String? {
        get { if case .sqlState(let state)? = code { state } else { nil } }
        set { code = newValue.map(DatabaseCode.sqlState) }
    }
    /// SQLite's own message, when SQLite reported the error.
    public var sqliteMessage: String?
    /// A close name the user may have meant ("did you mean 'Track'?").
    public var suggestion: String?
    /// The parse or compile error, when `kind` is `.predicate`.
    public var predicateError: PortalPredicateError?
    /// The part of a selection (`ReadContext.find(_:select:…)`) the predicate error is in; its
    /// range is within that part's text.
    public var selectionPart: SelectionPart?
    /// The SQL that failed, when there was one.
    public var sql: String?
    /// A server's detail of its message (PostgreSQL's `DETAIL`: the key that already exists).
    public var detail: String?
    /// A server's hint at what to do (PostgreSQL's `HINT`).
    public var hint: String?
    /// The row a bulk load failed at, counted from 1 (PostgreSQL's `COPY … line N`).
    public var row: Int?

    /// An error of `kind` with `message`, and where it happened when known.
    public init(_ kind: Kind, _ message: String, entity: String? = nil, attribute: String? = nil,
                path: String? = nil, suggestion: String? = nil) {
        self.kind = kind
        self.message = message
        self.entity = entity
        self.attribute = attribute
        self.path = path
        self.suggestion = suggestion
    }

    /// The message, with the suggestion ("did you mean …?") and the predicate error's details.
    public var description: String {
        var text = message
        if let suggestion { text += " (did you mean '\(suggestion)'?)" }
        if let predicateError, !message.contains(predicateError.message) { text += ": \(predicateError.message)" }
        return text
    }

    /// A predicate error on its own (no entity to name): `.predicate` in the predicate error's
    /// words, `.interrupted` for an interrupted parse or compile; the error is kept.
    package init(wrapping error: PortalPredicateError) {
        self.init(error.kind == .interrupted ? .interrupted : .predicate, error.message, suggestion: error.suggestion)
        predicateError = error
    }

    package static func misuse(_ message: String) -> PortalError { PortalError(.misuse, message) }

    /// A predicate that did not parse or compile for `entity`: `.predicate`, with the error and its
    /// suggestion kept; an interrupted parse or compile is `.interrupted`.
    static func invalidPredicate(_ error: PortalPredicateError, entity: String) -> PortalError {
        guard error.kind != .interrupted else { return PortalError(.interrupted, "interrupted") }
        var wrapped = PortalError(.predicate, "invalid predicate for \(entity): \(error.message)", entity: entity,
                                  suggestion: error.suggestion)
        wrapped.predicateError = error
        return wrapped
    }
}

extension PortalError.Kind {
    /// Any other error the database reported.
    @available(*, deprecated, renamed: "database")
    public static var sqlite: PortalError.Kind { .database }
}

/// PostgreSQL's error codes the engine tells apart (its manual, Appendix A).
public enum SQLState {
    public static let notNullViolation = "23502"
    public static let foreignKeyViolation = "23503"
    public static let uniqueViolation = "23505"
    public static let checkViolation = "23514"
    public static let readOnlySQLTransaction = "25006"
    public static let serializationFailure = "40001"
    public static let deadlockDetected = "40P01"
    public static let insufficientPrivilege = "42501"
    public static let undefinedColumn = "42703"
    public static let undefinedTable = "42P01"
    public static let diskFull = "53100"
    public static let lockNotAvailable = "55P03"
    public static let queryCanceled = "57014"
    public static let adminShutdown = "57P01"
    public static let crashShutdown = "57P02"
    public static let cannotConnectNow = "57P03"
    /// The class of connection exceptions (`08…`).
    public static let connectionExceptionClass = "08"
}

/// SQLite's extended result codes the engine and the shell tell apart (sqlite3.h's values,
/// which SQLite keeps stable).
public enum SQLiteCode {
    /// A hot journal that a read-only connection cannot roll back.
    public static let readOnlyRollback: Int32 = 776
    /// A write through a read-only connection or file.
    public static let readOnly: Int32 = 8
    public static let constraintNotNull: Int32 = 1299
    public static let constraintUnique: Int32 = 2067
    public static let constraintPrimaryKey: Int32 = 1555
    public static let constraintForeignKey: Int32 = 787
    public static let constraintCheck: Int32 = 275
}

extension String {
    /// The text after the first occurrence of `marker`, nil when it does not occur.
    package func suffix(after marker: String) -> Substring? {
        var start = startIndex
        while start < endIndex {
            if self[start...].hasPrefix(marker) { return self[index(start, offsetBy: marker.count)...] }
            start = index(after: start)
        }
        return nil
    }
}

extension Substring {
    package func trimmingCharacters(in set: Character) -> String {
        var s = self
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}
