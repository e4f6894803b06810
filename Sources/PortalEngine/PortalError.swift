/// The one error type of the engine: what went wrong (`kind`), in words a user can read
/// (`message`), and where (entity, attribute, constraint, file, SQLite's code and message).
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
        /// A write on a read-only store or file.
        case readOnly
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
        /// Any other SQLite error.
        case sqlite
        /// A Core Data model could not be read, or does not match its store.
        case coreDataModel
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
    /// SQLite's extended result code and message, when SQLite reported the error.
    public var sqliteCode: Int32?
    /// SQLite's own message, when SQLite reported the error.
    public var sqliteMessage: String?
    /// A close name the user may have meant ("did you mean 'Track'?").
    public var suggestion: String?
    /// The parse or compile error, when `kind` is `.predicate`.
    public var predicateError: PortalPredicateError?
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
