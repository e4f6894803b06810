import CSQLite
import PortalPredicate

// The engine calls `register` on every connection it opens, reader and writer alike, before any
// compiled predicate runs there. Each function delegates to PortalPredicate's TextMatching, the
// same code the in-memory evaluator uses, so SQL and memory agree exactly.

/// The SQL functions compiled predicates call: Unicode case/diacritic folding, LIKE with `*`/`?`,
/// MATCHES with a cached regex, and the string tests with options.
public enum SQLFunctions {
    /// Defines the functions on the connection `db`; throws `SQLFunctionError` when SQLite refuses one.
    public static func register(on db: OpaquePointer) throws {
        try define(db, "portal_fold", 2, fold)
        try define(db, "portal_lower", 1, lower)
        try define(db, "portal_upper", 1, upper)
        try define(db, "portal_length", 1, length)
        try define(db, "portal_contains", 3, contains)
        try define(db, "portal_beginswith", 3, beginsWith)
        try define(db, "portal_endswith", 3, endsWith)
        try define(db, "portal_like", 3, like)
        try define(db, "portal_matches", 3, matches)
        guard sqlite3_create_collation_v2(db, "portal_locale", SQLITE_UTF8, nil, localeOrder, nil) == SQLITE_OK else {
            throw SQLFunctionError(message: "cannot register portal_locale: " + (sqlite3_errmsg(db).map { String(cString: $0) } ?? ""))
        }
    }

    /// The `portal_locale` collation of `[l]`: Unicode collation order, as the evaluator has it.
    private static let localeOrder: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32,
                                                    UnsafeRawPointer?) -> Int32 = { _, leftCount, left, rightCount, right in
        func text(_ bytes: UnsafeRawPointer?, _ count: Int32) -> String {
            guard let bytes, count > 0 else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
        }
        return Int32(TextMatching.localeCompare(text(left, leftCount), text(right, rightCount)))
    }

    typealias Function = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    private static func define(_ db: OpaquePointer, _ name: String, _ arguments: Int32, _ function: Function) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        guard sqlite3_create_function_v2(db, name, arguments, flags, nil, function, nil, nil, nil) == SQLITE_OK else {
            throw SQLFunctionError(message: "cannot register \(name): " + (sqlite3_errmsg(db).map { String(cString: $0) } ?? ""))
        }
    }

    /// `portal_fold(x, flags)`: text folded (1 = case, 2 = diacritics); other values unchanged.
    private static let fold: Function = { context, _, arguments in
        guard let context, let arguments, let value = arguments[0] else { return }
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return sqlite3_result_value(context, value) }
        let options = options(arguments[1])
        if foldASCII(context, value, options) { return }
        resultText(context, TextMatching.fold(text(value), options: options))
    }

    /// ASCII text (most values) folds byte by byte into SQLite's own memory, with no Swift
    /// string made per row; false when the text is not ASCII.
    private static func foldASCII(_ context: OpaquePointer, _ value: OpaquePointer, _ options: ComparisonOptions) -> Bool {
        guard let text = sqlite3_value_text(value) else { return false }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
        let folds = !options.contains(.normalized) && (options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive))
        guard let changes = TextMatching.asciiFoldChanges(bytes, caseInsensitive: options.contains(.caseInsensitive)) else {
            return false
        }
        guard folds && changes else {
            sqlite3_result_value(context, value)
            return true
        }
        guard let memory = sqlite3_malloc64(UInt64(bytes.count)) else {
            sqlite3_result_error_nomem(context)
            return true
        }
        let out = UnsafeMutableBufferPointer(start: memory.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        TextMatching.asciiFold(bytes, into: out)
        sqlite3_result_text64(context, memory.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), sqlite3_free,
                              UInt8(SQLITE_UTF8))
        return true
    }

    /// lowercase/uppercase: numbers by their text, as the evaluator; NULL and blobs unchanged.
    private static let lower: Function = { context, _, arguments in
        guard let context, let arguments, let value = arguments[0] else { return }
        let type = sqlite3_value_type(value)
        guard type != SQLITE_NULL, type != SQLITE_BLOB else { return sqlite3_result_value(context, value) }
        resultText(context, TextMatching.lowercase(text(value)))
    }

    private static let upper: Function = { context, _, arguments in
        guard let context, let arguments, let value = arguments[0] else { return }
        let type = sqlite3_value_type(value)
        guard type != SQLITE_NULL, type != SQLITE_BLOB else { return sqlite3_result_value(context, value) }
        resultText(context, TextMatching.uppercase(text(value)))
    }

    /// `length(x)`: Unicode scalars of the text (NUL included), bytes of a blob, NULL for NULL.
    private static let length: Function = { context, _, arguments in
        guard let context, let arguments, let value = arguments[0] else { return }
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: sqlite3_result_null(context)
        case SQLITE_BLOB: sqlite3_result_int64(context, Int64(sqlite3_value_bytes(value)))
        default: sqlite3_result_int64(context, Int64(TextMatching.length(text(value))))
        }
    }

    private static let contains: Function = { context, _, arguments in
        test(context, arguments) { TextMatching.contains($0, $1, options: $2) }
    }

    private static let beginsWith: Function = { context, _, arguments in
        test(context, arguments) { TextMatching.beginsWith($0, $1, options: $2) }
    }

    private static let endsWith: Function = { context, _, arguments in
        test(context, arguments) { TextMatching.endsWith($0, $1, options: $2) }
    }

    private static let like: Function = { context, _, arguments in
        test(context, arguments) { TextMatching.like($0, pattern: $1, options: $2) }
    }

    private static let matches: Function = { context, _, arguments in
        guard let context, let arguments, let subject = arguments[0], let pattern = arguments[1] else { return }
        guard sqlite3_value_type(subject) != SQLITE_NULL, sqlite3_value_type(pattern) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        do {
            let matched = try TextMatching.matches(text(subject), regex: text(pattern), options: options(arguments[2]))
            sqlite3_result_int(context, matched ? 1 : 0)
        } catch {
            sqlite3_result_error(context, "\(error)", -1)
        }
    }

    /// A string test on the text of two values (numbers as SQLite writes them, as the evaluator
    /// does); NULL (false) when either is NULL.
    private static func test(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?,
                             _ body: (String, String, ComparisonOptions) -> Bool) {
        guard let context, let arguments, let left = arguments[0], let right = arguments[1] else { return }
        guard sqlite3_value_type(left) != SQLITE_NULL, sqlite3_value_type(right) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        sqlite3_result_int(context, body(text(left), text(right), options(arguments[2])) ? 1 : 0)
    }

    /// The text of a value, read with its byte length so that NUL bytes survive.
    private static func text(_ value: OpaquePointer) -> String {
        guard let bytes = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private static func resultText(_ context: OpaquePointer, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            // A nil pointer would make the result NULL: the empty text needs a real one.
            guard let base = buffer.baseAddress else { return sqlite3_result_text(context, "", 0, portal_sqlite_transient()) }
            sqlite3_result_text(context, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                Int32(buffer.count), portal_sqlite_transient())
        }
    }

    /// The fold flags argument (1 = `[c]`, 2 = `[d]`) as comparison options.
    private static func options(_ value: OpaquePointer?) -> ComparisonOptions {
        let flags = value.map { sqlite3_value_int($0) } ?? 0
        var options: ComparisonOptions = []
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
        return options
    }
}

/// SQLite refused to register a function.
public struct SQLFunctionError: Error, Sendable, CustomStringConvertible {
    /// SQLite's reason.
    public var message: String
    /// The message.
    public var description: String { message }
}
