import Foundation

/// The text primitives of the predicate language, shared by the in-memory evaluator and the SQL
/// functions PortalEngine registers on every connection, so that SQL and memory agree exactly.
///
/// Rules both sides follow:
/// - `[c]` folds case with Unicode full case folding (`"Straße" ==[c] "STRASSE"`), `[d]` removes
///   diacritics, `[cd]` does both, `[n]` (or no option) compares the UTF-8 bytes as they are.
/// - Only text is folded; other values are compared as they are.
/// - Equality and ordering of text are by UTF-8 bytes (SQLite's BINARY collation), never by
///   Swift's canonical equivalence.
/// - A "character" for `LIKE`'s `?` is one Unicode scalar (SQLite counts code points the same way).
public enum TextMatching {
    /// `[c]`, `[d]`, `[cd]` as folding flags; `[n]` turns both off. Folded by `TextFolding`,
    /// byte by byte; the rare text its tables cannot take by Foundation, whose answer it gives.
    public static func fold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        guard let mode = TextFolding.Mode(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive) else {
            return text
        }
        var text = text
        let folded = text.withUTF8 { bytes -> String? in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextFolding.capacity(forFolding: bytes.count)) { out in
                TextFolding.fold(bytes, into: out, mode: mode).map {
                    String(decoding: UnsafeBufferPointer(rebasing: out[..<$0]), as: UTF8.self)
                }
            }
        }
        return folded ?? TextFolding.foldedByFoundation(text, mode: mode)
    }

    /// The scalar value of the UTF-8 sequence starting at `i` (a non-ASCII byte) and its length;
    /// nil when it is not valid UTF-8 (overlong, a surrogate, cut short, …).
    @inline(__always)
    static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (UInt32, Int)? {
        let lead = bytes[i]
        func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> UInt32? {
            guard i + k < bytes.count, bytes[i + k] >= low, bytes[i + k] <= high else { return nil }
            return UInt32(bytes[i + k] & 0x3F)
        }
        switch lead {
        case 0xC2...0xDF:
            guard let b1 = continuation(1) else { return nil }
            return (UInt32(lead & 0x1F) << 6 | b1, 2)
        case 0xE0...0xEF:
            let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80, high: UInt8 = lead == 0xED ? 0x9F : 0xBF
            guard let b1 = continuation(1, low, high), let b2 = continuation(2) else { return nil }
            return (UInt32(lead & 0x0F) << 12 | b1 << 6 | b2, 3)
        case 0xF0...0xF4:
            let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80, high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
            guard let b1 = continuation(1, low, high), let b2 = continuation(2), let b3 = continuation(3) else { return nil }
            return (UInt32(lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3, 4)
        default:
            return nil
        }
    }

    /// Whether the bytes are valid UTF-8 (a Swift string of them would keep them as they are).
    public static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        // ASCII, the common case, eight bytes at a time.
        if let base = bytes.baseAddress {
            while i + 8 <= bytes.count && UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
        }
        while i < bytes.count {
            if bytes[i] < 0x80 {
                i += 1
            } else if let (_, length) = scalar(in: bytes, at: i) {
                i += length
            } else {
                return false
            }
        }
        return true
    }

    /// Folds `text` as `options` say (`[n]` supersedes `[c]` and `[d]`).
    public static func fold(_ text: String, options: ComparisonOptions) -> String {
        if options.contains(.normalized) { return text }
        return fold(text, caseInsensitive: options.contains(.caseInsensitive),
                    diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// True when the two texts are equal byte for byte after folding.
    public static func equal(_ a: String, _ b: String, options: ComparisonOptions = []) -> Bool {
        fold(a, options: options).utf8.elementsEqual(fold(b, options: options).utf8)
    }

    /// SQLite's BINARY ordering of two texts: -1, 0 or 1.
    public static func compare(_ a: String, _ b: String) -> Int {
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    /// `text CONTAINS part`.
    public static func contains(_ text: String, _ part: String, options: ComparisonOptions = []) -> Bool {
        var text = fold(text, options: options), part = fold(part, options: options)
        return text.withUTF8 { t in part.withUTF8 { p in contains(utf8: t, p) } }
    }

    /// `text BEGINSWITH prefix`.
    public static func beginsWith(_ text: String, _ prefix: String, options: ComparisonOptions = []) -> Bool {
        var text = fold(text, options: options), prefix = fold(prefix, options: options)
        return text.withUTF8 { t in prefix.withUTF8 { p in beginsWith(utf8: t, p) } }
    }

    /// `text ENDSWITH suffix`.
    public static func endsWith(_ text: String, _ suffix: String, options: ComparisonOptions = []) -> Bool {
        var text = fold(text, options: options), suffix = fold(suffix, options: options)
        return text.withUTF8 { t in suffix.withUTF8 { s in endsWith(utf8: t, s) } }
    }

    /// CONTAINS on UTF-8 bytes (folded already): false for an empty part, as NSString's
    /// rangeOfString: finds nothing for an empty needle.
    public static func contains(utf8 text: UnsafeBufferPointer<UInt8>, _ part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let t = text.baseAddress, let p = part.baseAddress, !part.isEmpty, part.count <= text.count else { return false }
        let first = Int32(p[0]), last = text.count - part.count
        var start = 0
        // Each place the first byte is found (memchr), compared whole (memcmp).
        while start <= last, let found = memchr(t + start, first, last - start + 1) {
            let at = UnsafeRawPointer(found) - UnsafeRawPointer(t)
            if memcmp(t + at, p, part.count) == 0 { return true }
            start = at + 1
        }
        return false
    }

    /// BEGINSWITH on UTF-8 bytes: false for an empty prefix, as NSString's hasPrefix:.
    public static func beginsWith(utf8 text: UnsafeBufferPointer<UInt8>, _ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let t = text.baseAddress, let p = prefix.baseAddress, !prefix.isEmpty, prefix.count <= text.count else { return false }
        return memcmp(t, p, prefix.count) == 0
    }

    /// ENDSWITH on UTF-8 bytes: false for an empty suffix, as NSString's hasSuffix:.
    public static func endsWith(utf8 text: UnsafeBufferPointer<UInt8>, _ suffix: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let t = text.baseAddress, let s = suffix.baseAddress, !suffix.isEmpty, suffix.count <= text.count else { return false }
        return memcmp(t + (text.count - suffix.count), s, suffix.count) == 0
    }

    /// `[l]`: the order of two texts in Unicode collation order (the root locale), -1, 0 or 1.
    /// Texts the collation finds equal (canonically equivalent ones) compare as equal.
    public static func localeCompare(_ a: String, _ b: String) -> Int {
        switch a.compare(b, options: [], range: nil, locale: collationLocale) {
        case .orderedAscending: return -1
        case .orderedDescending: return 1
        case .orderedSame: return 0
        }
    }

    // English collation is CLDR's root order (en_US_POSIX would be byte order).
    private static let collationLocale = Locale(identifier: "en")

    /// Why `pattern` is not a valid regular expression for MATCHES, in the engine's words; nil
    /// when it is valid.
    public static func regexProblem(_ pattern: String) -> String? {
        do {
            _ = try NSRegularExpression(pattern: pattern, options: [])
            return nil
        } catch {
            return RegexCache.reason(pattern)
        }
    }

    /// `text LIKE pattern`: the whole text matches; `*` is any run of characters, `?` exactly one
    /// Unicode scalar; no other character (not even `\`) is special.
    public static func like(_ text: String, pattern: String, options: ComparisonOptions = []) -> Bool {
        var text = fold(text, options: options), pattern = fold(pattern, options: options)
        return text.withUTF8 { t in pattern.withUTF8 { p in like(utf8: t, pattern: p) } }
    }

    /// `LIKE` on valid UTF-8, already folded: the bytes of literal characters compare as they
    /// are (`*` and `?` never occur inside a multi-byte character), `?` takes one whole scalar.
    public static func like(utf8 t: UnsafeBufferPointer<UInt8>, pattern p: UnsafeBufferPointer<UInt8>) -> Bool {
        let star = UInt8(ascii: "*"), one = UInt8(ascii: "?")
        // The length of the scalar a lead byte starts, within what is left.
        func scalarLength(at i: Int) -> Int {
            let lead = t[i]
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            return min(length, t.count - i)
        }
        // Greedy match with backtracking to the last star only: linear-time in practice and never
        // exponential, whatever the pattern.
        var ti = 0, pi = 0
        var starP = -1, starT = 0
        while ti < t.count {
            if pi < p.count, p[pi] == star {
                starP = pi; starT = ti; pi += 1
            } else if pi < p.count, p[pi] == one {
                ti += scalarLength(at: ti); pi += 1
            } else if pi < p.count, p[pi] == t[ti] {
                ti += 1; pi += 1
            } else if starP >= 0 {
                pi = starP + 1
                starT += scalarLength(at: starT)
                // A literal after the star can only match where its first byte is (a lead byte
                // or ASCII, never inside another character): skip to the next one.
                if pi < p.count, p[pi] != star, p[pi] != one, starT < t.count, let base = t.baseAddress {
                    guard let found = memchr(base + starT, Int32(p[pi]), t.count - starT) else { return false }
                    starT = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                }
                ti = starT
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == star { pi += 1 }
        return pi == p.count
    }

    /// `text MATCHES regex`: the ICU regular expression must match the whole text. `[c]` makes
    /// the expression case-insensitive; `[d]` removes diacritics from both text and pattern.
    /// Compiled expressions are cached (thread-safe). An invalid pattern is a `PortalPredicateError`.
    public static func matches(_ text: String, regex pattern: String, options: ComparisonOptions = []) throws(PortalPredicateError) -> Bool {
        try MatchesPattern.compiled(pattern, options: options).matches(text)
    }

    /// `lowercase(x)`: Unicode lowercase mapping.
    public static func lowercase(_ text: String) -> String { text.lowercased() }

    /// `uppercase(x)`: Unicode uppercase mapping.
    public static func uppercase(_ text: String) -> String { text.uppercased() }

    /// `length(x)`: the number of Unicode scalars (what SQLite calls characters).
    public static func length(_ text: String) -> Int { text.unicodeScalars.count }
}

/// A MATCHES pattern compiled for its options, once: the SQL function keeps it for the whole
/// statement, the evaluator takes it from `RegexCache`.
public final class MatchesPattern: Sendable {
    /// The comparison options it was compiled for.
    public let options: ComparisonOptions
    private let expression: NSRegularExpression
    private let diacriticInsensitive: Bool
    /// Bytes every text it matches starts with (the pattern's literal start), compared before
    /// ICU is asked: most texts that do not match stop there. Empty when none is known.
    private let prefix: [UInt8]
    /// The pattern's own matcher when it is simple enough (and not `[d]`).
    private let simple: SimpleRegex?

    /// The compiled pattern, from the shared cache.
    public static func compiled(_ pattern: String, options: ComparisonOptions) throws(PortalPredicateError) -> MatchesPattern {
        try RegexCache.shared.pattern(pattern, options: options)
    }

    init(_ pattern: String, options: ComparisonOptions) throws(PortalPredicateError) {
        self.options = options
        let plain = options.contains(.normalized)
        let caseInsensitive = options.contains(.caseInsensitive) && !plain
        diacriticInsensitive = options.contains(.diacriticInsensitive) && !plain
        let source = diacriticInsensitive ? TextMatching.fold(pattern, caseInsensitive: false, diacriticInsensitive: true) : pattern
        expression = try RegexCache.compile(source, caseInsensitive: caseInsensitive)
        prefix = caseInsensitive || diacriticInsensitive ? [] : Self.literalPrefix(source)
        simple = diacriticInsensitive ? nil : SimpleRegex(source, caseInsensitive: caseInsensitive)
    }

    /// Whether the whole text matches.
    public func matches(_ text: String) -> Bool {
        var text = text
        if !prefix.isEmpty && !text.withUTF8({ $0.starts(with: prefix) }) { return false }
        if let simple { return simple.matches(text) }
        if diacriticInsensitive { text = TextMatching.fold(text, caseInsensitive: false, diacriticInsensitive: true) }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, options: [], range: range) != nil
    }

    /// Whether the whole text of these UTF-8 bytes matches (invalid bytes read as U+FFFD). An
    /// ASCII prefix is compared on the bytes, before any string is made.
    public func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if !prefix.isEmpty && !bytes.starts(with: prefix) { return false }
        if let simple { return simple.matches(utf8: bytes) }
        return matches(String(decoding: bytes, as: UTF8.self))
    }

    /// The ASCII characters a pattern starts with that every match must start with: up to the
    /// first character with a meaning in ICU's syntax, less the last when a quantifier follows
    /// it (`ab*`). None when the pattern has a `|` anywhere (the alternatives may start apart).
    static func literalPrefix(_ pattern: String) -> [UInt8] {
        let bytes = Array(pattern.utf8)
        let special = Set("\\^$.|?*+()[]{}#".utf8)
        guard !bytes.contains(UInt8(ascii: "|")) else { return [] }
        var prefix: [UInt8] = []
        for byte in bytes {
            if byte < 0x20 || byte >= 0x7F || special.contains(byte) { break }
            prefix.append(byte)
        }
        if !prefix.isEmpty, prefix.count < bytes.count, Set("?*+{".utf8).contains(bytes[prefix.count]) { prefix.removeLast() }
        return prefix
    }
}

/// Compiled MATCHES patterns by (pattern, options). Bounded: cleared when full.
///
/// Caching also matters because swift-corelibs-foundation leaks about 600 bytes for each
/// compilation of a pattern longer than 256 UTF-16 units.
///
/// Guarded by an `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`, whose futex
/// implementation ThreadSanitizer cannot see, so the stress test under TSan stays meaningful.
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private struct Key: Hashable { var pattern: String; var options: ComparisonOptions }
    private let lock = NSLock()
    private var entries: [Key: MatchesPattern] = [:]
    private let capacity = 256

    func pattern(_ pattern: String, options: ComparisonOptions) throws(PortalPredicateError) -> MatchesPattern {
        let key = Key(pattern: pattern, options: options)
        lock.lock()
        let found = entries[key]
        lock.unlock()
        if let found { return found }
        let compiled = try MatchesPattern(pattern, options: options)
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = compiled
        lock.unlock()
        return compiled
    }

    /// Why ICU refused a pattern. Foundation on Linux reports only "the value is invalid", so the
    /// reason comes from Swift's own regex parser (`expected ')'`), which reads the same syntax
    /// for everything a typo breaks; when it accepts the pattern, ICU's verdict is all there is.
    static func reason(_ pattern: String) -> String {
        do {
            _ = try Regex(pattern)
            return "ICU does not accept this pattern"
        } catch {
            return "\(error)"
        }
    }

    /// The pattern must be valid on its own; it is then anchored at both ends of the text so that
    /// it matches the whole string, with ICU's backtracking (like `uregex_matches`).
    static func compile(_ pattern: String, caseInsensitive: Bool) throws(PortalPredicateError) -> NSRegularExpression {
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        do {
            _ = try NSRegularExpression(pattern: pattern, options: options)
            return try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options)
        } catch {
            throw PortalPredicateError(.invalidOperation, "invalid regular expression for MATCHES: \(pattern): \(reason(pattern))")
        }
    }
}
