import CSQLite
import PortalPredicate
#if canImport(Glibc)
import Glibc
#endif
import PortalEngine

// The engine calls `register` on every connection it opens, reader and writer alike, before any
// compiled predicate runs there. Each function delegates to PortalPredicate's TextMatching, the
// same code the in-memory evaluator uses, so SQL and memory agree exactly.

/// The SQL functions compiled predicates call: Unicode case/diacritic folding, LIKE with `*`/`?`,
/// MATCHES with a cached regex, and the string tests with options.
public enum SQLFunctions {
    /// Defines the functions on the connection `db`; throws the `PortalError` SQLite reported when it refuses one.
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
        // Not innocuous: it reads the store's external data files, so a schema's own triggers
        // and views may not call it.
        try define(db, "portal_archived", 1, archived, innocuous: false)
        let locale = sqlite3_create_collation_v2(db, "portal_locale", SQLITE_UTF8, nil, localeOrder, nil)
        guard locale == SQLITE_OK else { throw refusal(locale, db, "portal_locale") }
        CollationFallback.install(on: db)
        for flags in Int32(1)...3 {
            let state = Unmanaged.passRetained(FoldOrder(flags: flags)).toOpaque()
            let code = sqlite3_create_collation_v2(db, "portal_fold\(flags)", SQLITE_UTF8, state, foldOrder, releaseFoldOrder)
            guard code == SQLITE_OK else {
                Unmanaged<FoldOrder>.fromOpaque(state).release()
                throw refusal(code, db, "portal_fold\(flags)")
            }
        }
    }

    /// The `portal_fold1` … `portal_fold3` collations (`==[c]`, `[d]`, `[cd]` against a text
    /// literal): texts in the byte order of their folds, so equal exactly when
    /// `portal_fold(a, flags) = portal_fold(b, flags)`. The right side (the literal, in what the
    /// compiler writes) keeps its fold from call to call while its bytes stay the same; the left
    /// folds into scratch memory. One state per connection, used by one thread at a time.
    private final class FoldOrder {
        let mode: TextFolding.Mode?
        /// The last right side and its fold, in memory of their own (read with no retain).
        private var right = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
        private var foldedRight = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
        /// Where the left side folds.
        private let scratch = FoldScratch()

        init(flags: Int32) {
            mode = TextFolding.Mode(caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
        }

        deinit {
            right.deallocate()
            foldedRight.deallocate()
        }

        func compare(_ left: UnsafeBufferPointer<UInt8>, _ rightBytes: UnsafeBufferPointer<UInt8>) -> Int32 {
            if !Self.same(rightBytes, UnsafeBufferPointer(right)) { keep(rightBytes) }
            let folded = UnsafeBufferPointer(foldedRight)
            // Most rows differ from the literal in their first letters: the fold's first step
            // (an ASCII run or one scalar, bytes that what follows never changes) settles those.
            if let mode, let head = scratch.fold(left, mode: mode, limit: 1) {
                let order = Self.order(head, folded, commonOnly: true)
                if order != 0 { return order }
            }
            // Folded only one byte past the right side's fold: the order is known by then (the
            // common bytes, else the longer is greater).
            let limit = folded.count + 1
            guard let mode, let leftFolded = scratch.fold(left, mode: mode, limit: limit) else {
                return SQLFunctions.withFolded(left, mode: mode, limit: limit) { Self.order($0, folded) }
            }
            return Self.order(leftFolded, folded)
        }

        /// Keeps a new right side and its fold.
        private func keep(_ bytes: UnsafeBufferPointer<UInt8>) {
            right.deallocate()
            foldedRight.deallocate()
            right = .allocate(capacity: bytes.count)
            _ = right.initialize(from: bytes)
            let folded = SQLFunctions.withFolded(UnsafeBufferPointer(right), mode: mode) { Array($0) }
            foldedRight = .allocate(capacity: folded.count)
            _ = foldedRight.initialize(from: folded)
        }

        private static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
            guard a.count == b.count else { return false }
            guard a.count > 0, let x = a.baseAddress, let y = b.baseAddress else { return a.count == 0 && b.baseAddress != nil }
            return memcmp(x, y, a.count) == 0
        }

        /// Byte order (a prefix first); with `commonOnly`, of the bytes both have (0 when one
        /// begins the other).
        private static func order(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, commonOnly: Bool = false) -> Int32 {
            let common = min(a.count, b.count)
            if common > 0, let x = a.baseAddress, let y = b.baseAddress {
                let c = memcmp(x, y, common)
                if c != 0 { return c < 0 ? -1 : 1 }
            }
            return commonOnly || a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
        }
    }

    private static let foldOrder: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32,
                                                  UnsafeRawPointer?) -> Int32 = { state, leftCount, left, rightCount, right in
        guard let state else { return 0 }
        let l = UnsafeBufferPointer(start: left?.assumingMemoryBound(to: UInt8.self), count: left == nil ? 0 : Int(leftCount))
        let r = UnsafeBufferPointer(start: right?.assumingMemoryBound(to: UInt8.self), count: right == nil ? 0 : Int(rightCount))
        return Unmanaged<FoldOrder>.fromOpaque(state)._withUnsafeGuaranteedRef { $0.compare(l, r) }
    }

    private static let releaseFoldOrder: @convention(c) (UnsafeMutableRawPointer?) -> Void = { state in
        if let state { Unmanaged<FoldOrder>.fromOpaque(state).release() }
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

    /// Registers `name` on `db` as a stand-in for a collation the database names and this
    /// program lacks (`CollationFallback`): `==[c]`'s Unicode case-insensitive order, or byte
    /// order. False when SQLite refused it.
    static func registerStandIn(on db: OpaquePointer, named name: String, caseInsensitive: Bool) -> Bool {
        if caseInsensitive {
            let state = Unmanaged.passRetained(FoldOrder(flags: 1)).toOpaque()
            guard sqlite3_create_collation_v2(db, name, SQLITE_UTF8, state, foldOrder, releaseFoldOrder) == SQLITE_OK else {
                Unmanaged<FoldOrder>.fromOpaque(state).release()
                return false
            }
            return true
        }
        return sqlite3_create_collation_v2(db, name, SQLITE_UTF8, nil, byteOrder, nil) == SQLITE_OK
    }

    /// SQLite's BINARY order: bytes, a prefix first.
    private static let byteOrder: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32,
                                                  UnsafeRawPointer?) -> Int32 = { _, leftCount, left, rightCount, right in
        let common = Int(min(leftCount, rightCount))
        if common > 0, let left, let right {
            let c = memcmp(left, right, common)
            if c != 0 { return c < 0 ? -1 : 1 }
        }
        return leftCount == rightCount ? 0 : (leftCount < rightCount ? -1 : 1)
    }

    typealias Function = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    private static func define(_ db: OpaquePointer, _ name: String, _ arguments: Int32, _ function: Function,
                               innocuous: Bool = true) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | (innocuous ? SQLITE_INNOCUOUS : 0)
        let code = sqlite3_create_function_v2(db, name, arguments, flags, nil, function, nil, nil, nil)
        guard code == SQLITE_OK else { throw refusal(code, db, name) }
    }

    /// SQLite's refusal to register `name`: the error SQLite reported, its code kept, in words
    /// that say which function it was.
    private static func refusal(_ code: Int32, _ db: OpaquePointer, _ name: String) -> PortalError {
        var error = PortalError.sqlite(code, db: db)
        error.message = "cannot register \(name): " + (error.sqliteMessage ?? "")
        return error
    }

    /// `portal_archived(x)`: a Core Data Transformable or Binary Data value as the app reads it
    /// (`ArchivedValues`): text, a number, or JSON text; an external data reference, the file's
    /// value; other values, and bytes in no format it reads, unchanged. Only the first bytes of
    /// a blob are looked at before it is decoded.
    private static let archived: Function = { context, _, arguments in
        guard let context, let arguments, let value = arguments[0] else { return }
        let count = Int(sqlite3_value_bytes(value))
        guard sqlite3_value_type(value) == SQLITE_BLOB, count > 0, let start = sqlite3_value_blob(value) else {
            return sqlite3_result_value(context, value)
        }
        let blob = UnsafeRawBufferPointer(start: start, count: count)
        let prefix = Array(blob.prefix(40))
        let decoded: Value?
        if let name = ArchivedValues.externalReference(prefix, count: count) {
            let store = sqlite3_context_db_handle(context).flatMap { sqlite3_db_filename($0, "main") }.map { String(cString: $0) }
            decoded = ArchivedValues.externalValue(name, store: store ?? "")
        } else if ArchivedValues.mayHold(prefix: Array(prefix.dropFirst(prefix.first == 1 ? 1 : 0))) {
            decoded = ArchivedValues.decoded(Array(blob))
        } else {
            decoded = nil
        }
        guard let decoded else { return sqlite3_result_value(context, value) }
        switch decoded {
        case .integer(let number): sqlite3_result_int64(context, number)
        case .real(let number): sqlite3_result_double(context, number)
        case .decimal(let number): sqlite3_result_double(context, number.double)
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress else { return sqlite3_result_text(context, "", 0, portal_sqlite_transient()) }
                    sqlite3_result_text64(context, base, UInt64(chars.count), portal_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .null: sqlite3_result_null(context)
        case .blob(let bytes):
            bytes.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return sqlite3_result_zeroblob(context, 0) }
                sqlite3_result_blob64(context, base, UInt64(raw.count), portal_sqlite_transient())
            }
        }
    }

    /// `portal_fold(x, flags)`: text folded (1 = case, 2 = diacritics); other values unchanged.
    /// Folded in scratch memory and copied by SQLite into its result, whose buffer it keeps from
    /// row to row: no allocation per row.
    private static let fold: Function = { context, _, arguments in
        guard let context, let arguments, let value = arguments[0] else { return }
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return sqlite3_result_value(context, value) }
        let flags = arguments[1].map { sqlite3_value_int($0) } ?? 0
        withFolded(bytes(of: value), mode: mode(flags)) { folded in
            folded.withMemoryRebound(to: CChar.self) { chars in
                // A nil pointer would make the result NULL: the empty text needs a real one.
                guard let base = chars.baseAddress else { return sqlite3_result_text(context, "", 0, portal_sqlite_transient()) }
                sqlite3_result_text64(context, base, UInt64(chars.count), portal_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Hands `body` the fold of UTF-8 `bytes` (the bytes as they are with no mode): folded byte
    /// by byte into scratch memory, no allocation for most text; through a Swift string when
    /// TextFolding leaves the text to Foundation or the bytes are not valid UTF-8 (read as
    /// U+FFFD, as everywhere else).
    /// With a `limit`, the fold may stop after that many bytes (for a prefix test).
    static func withFolded<R>(_ bytes: UnsafeBufferPointer<UInt8>, mode: TextFolding.Mode?, limit: Int = .max,
                              _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let mode else {
            if TextMatching.isValidUTF8(bytes) { return body(bytes) }
            return Array(String(decoding: bytes, as: UTF8.self).utf8).withUnsafeBufferPointer(body)
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextFolding.capacity(forFolding: bytes.count)) { scratch in
            if let count = TextFolding.fold(bytes, into: scratch, mode: mode, limit: limit) {
                return body(UnsafeBufferPointer(rebasing: scratch[..<count]))
            }
            let folded = TextMatching.fold(String(decoding: bytes, as: UTF8.self), caseInsensitive: mode != .diacriticInsensitive,
                                           diacriticInsensitive: mode != .caseInsensitive)
            return Array(folded.utf8).withUnsafeBufferPointer(body)
        }
    }

    /// Memory that row after row of a statement's texts fold into, kept by the function's or the
    /// collation's state (which one thread uses at a time): grown to the longest text's room,
    /// never allocated per row.
    final class FoldScratch {
        private var buffer = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
        /// Fetched with the first memory: each row's fold is then one call. (Not when the state
        /// is made: every connection makes one, and decoding the tables is most of a one-line
        /// command's start-up.)
        private var tables: TextFolding.Tables?
        deinit { buffer.deallocate() }

        /// The fold of `bytes`, in this memory until the next call; nil when it is Foundation's
        /// to fold (see `SQLFunctions.withFolded`).
        @inline(__always)
        func fold(_ bytes: UnsafeBufferPointer<UInt8>, mode: TextFolding.Mode, limit: Int) -> UnsafeBufferPointer<UInt8>? {
            if buffer.count < TextFolding.capacity(forFolding: bytes.count) { grow(for: bytes.count) }
            guard let tables, let target = buffer.baseAddress else { return nil }
            guard let source = bytes.baseAddress else { return UnsafeBufferPointer(start: target, count: 0) }
            guard let count = TextFolding.fold(source, bytes.count, into: target, mode: mode, limit: limit, tables) else { return nil }
            return UnsafeBufferPointer(start: target, count: count)
        }

        private func grow(for count: Int) {
            buffer.deallocate()
            buffer = .allocate(capacity: max(TextFolding.capacity(forFolding: count), 256))
            tables = TextFolding.Tables.shared
        }
    }

    /// The fold flags (1 = `[c]`, 2 = `[d]`) as a folding mode; nil for none.
    static func mode(_ flags: Int32) -> TextFolding.Mode? {
        TextFolding.Mode(caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
    }

    /// The UTF-8 bytes of a value's text (numbers as SQLite writes them).
    private static func bytes(of value: OpaquePointer) -> UnsafeBufferPointer<UInt8> {
        let pointer = sqlite3_value_text(value)
        return UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_value_bytes(value)))
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
        foldedTest(context, arguments, .contains)
    }

    private static let beginsWith: Function = { context, _, arguments in
        foldedTest(context, arguments, .beginsWith)
    }

    private static let endsWith: Function = { context, _, arguments in
        foldedTest(context, arguments, .endsWith)
    }

    /// The folded second argument of a string test, kept for the statement: its bytes in memory
    /// of its own, read every row without a retain of an array.
    private final class FoldedPart {
        let flags: Int32
        let mode: TextFolding.Mode?
        let bytes: UnsafeMutableBufferPointer<UInt8>
        /// Where each row's text folds.
        let scratch = FoldScratch()
        init(flags: Int32, bytes: [UInt8]) {
            self.flags = flags
            mode = SQLFunctions.mode(flags)
            self.bytes = .allocate(capacity: bytes.count)
            _ = self.bytes.initialize(from: bytes)
        }
        deinit { bytes.deallocate() }

        /// `test` of a row's text, folded by `flags`, and the part. The test is a case, not a
        /// closure: this runs once per row.
        func test(_ test: StringTest, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
            let part = UnsafeBufferPointer(bytes)
            guard let mode, let folded = scratch.fold(text, mode: mode, limit: test == .beginsWith ? part.count : .max) else {
                return SQLFunctions.withFolded(text, mode: mode) { test.run($0, part) }
            }
            return test.run(folded, part)
        }
    }

    /// The string tests on folded text.
    enum StringTest {
        case contains, beginsWith, endsWith, like

        func run(_ text: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>) -> Bool {
            switch self {
            case .contains: TextMatching.contains(utf8: text, part)
            case .beginsWith: TextMatching.beginsWith(utf8: text, part)
            case .endsWith: TextMatching.endsWith(utf8: text, part)
            case .like: TextMatching.like(utf8: text, pattern: part)
            }
        }
    }

    /// A string test on the folded UTF-8 of two values (numbers by their text, as the evaluator
    /// does); NULL when either is NULL. The second argument (a constant, in what the compiler
    /// writes) is folded once per statement; each row's text folds into the statement's scratch
    /// memory, only as far as the part's length for a prefix test.
    private static func foldedTest(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?,
                                   _ test: StringTest) {
        guard let context, let arguments, let left = arguments[0], let right = arguments[1] else { return }
        guard sqlite3_value_type(left) != SQLITE_NULL, sqlite3_value_type(right) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        let flags = arguments[2].map { sqlite3_value_int($0) } ?? 0
        let result: Bool
        if let kept = sqlite3_get_auxdata(context, 1).map({ Unmanaged<FoldedPart>.fromOpaque($0) }),
           kept._withUnsafeGuaranteedRef({ $0.flags == flags }) {
            // SQLite holds the part for the statement: read without a retain.
            result = kept._withUnsafeGuaranteedRef { $0.test(test, bytes(of: left)) }
        } else {
            // Held by this call to its end: SQLite may release what it is handed at once (a part
            // that is not a constant).
            let part = FoldedPart(flags: flags, bytes: withFolded(bytes(of: right), mode: mode(flags)) { Array($0) })
            sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(part).toOpaque(), releasePart)
            result = withExtendedLifetime(part) { part.test(test, bytes(of: left)) }
        }
        sqlite3_result_int(context, result ? 1 : 0)
    }

    private static let releasePart: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        if let pointer { Unmanaged<FoldedPart>.fromOpaque(pointer).release() }
    }

    private static let like: Function = { context, _, arguments in
        foldedTest(context, arguments, .like)
    }

    /// MATCHES: the pattern is compiled once per statement (kept as the pattern argument's
    /// auxiliary data while it stays the same), never per row.
    private static let matches: Function = { context, _, arguments in
        guard let context, let arguments, let subject = arguments[0], let pattern = arguments[1] else { return }
        guard sqlite3_value_type(subject) != SQLITE_NULL, sqlite3_value_type(pattern) != SQLITE_NULL else {
            return sqlite3_result_null(context)
        }
        let options = options(arguments[2])
        let compiled: MatchesPattern
        if let kept = sqlite3_get_auxdata(context, 1).map({ Unmanaged<MatchesPattern>.fromOpaque($0).takeUnretainedValue() }),
           kept.options == options {
            compiled = kept
        } else {
            do {
                compiled = try MatchesPattern.compiled(text(pattern), options: options)
            } catch {
                return sqlite3_result_error(context, "\(error)", -1)
            }
            // SQLite releases it when the statement ends (or at once, for a pattern that varies).
            sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(compiled).toOpaque(), releasePattern)
        }
        let bytes = sqlite3_value_text(subject)
        let count = Int(sqlite3_value_bytes(subject))
        sqlite3_result_int(context, compiled.matches(utf8: UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count)) ? 1 : 0)
    }

    private static let releasePattern: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        if let pointer { Unmanaged<MatchesPattern>.fromOpaque(pointer).release() }
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
        options(value.map { sqlite3_value_int($0) } ?? 0)
    }

    private static func options(_ flags: Int32) -> ComparisonOptions {
        var options: ComparisonOptions = []
        if flags & 1 != 0 { options.insert(.caseInsensitive) }
        if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
        return options
    }
}
