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
    /// `[c]`, `[d]`, `[cd]` as folding flags; `[n]` turns both off.
    public static func fold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        if !caseInsensitive && !diacriticInsensitive { return text }
        if let simple = simpleFolded(text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive) {
            return simple
        }
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return text.folding(options: options, locale: nil)
    }

    /// The fold of most text without Foundation: ASCII has no diacritics and its case fold is
    /// its lower case, and most other characters (lower-case letters with accents, CJK, …) fold
    /// to themselves (a test checks every Unicode scalar against Foundation's fold). Nil when
    /// Foundation is needed: a non-ASCII character that folds to something else, any non-ASCII
    /// character under `[d]`.
    static func simpleFolded(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { out -> String? in
                guard let changes = simpleFold(bytes, into: out, caseInsensitive: caseInsensitive,
                                               diacriticInsensitive: diacriticInsensitive) else { return nil }
                return String(decoding: changes ? UnsafeBufferPointer(rebasing: out[..<bytes.count]) : bytes, as: UTF8.self)
            }
        }
    }

    /// Folds valid UTF-8 whose fold is its ASCII lower case (see `simpleFolded`) into `out` (as
    /// many bytes), in one pass; returns whether folding changed it (an upper-case ASCII letter,
    /// folded case-insensitively). Nil when Foundation's fold is needed (`out` is then garbage).
    public static func simpleFold(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>,
                                  caseInsensitive: Bool, diacriticInsensitive: Bool) -> Bool? {
        var changed = false
        var i = 0
        // The ASCII start of the text eight bytes at a time (all of most text): an upper-case
        // letter (0x41…0x5A) is the byte whose high bit `+ 0x3F` sets and `+ 0x25` does not (no
        // carry crosses bytes below 0x80). The rest, from the first word that is not all
        // ASCII, a byte or a scalar at a time.
        if bytes.count >= 8, let base = bytes.baseAddress, let target = out.baseAddress {
            let highBits: UInt64 = 0x8080_8080_8080_8080
            while i + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                guard word & highBits == 0 else { break }
                let upper = caseInsensitive ? (word &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(word &+ 0x2525_2525_2525_2525) & highBits : 0
                changed = changed || upper != 0
                UnsafeMutableRawPointer(target + i).storeBytes(of: word | upper >> 2, as: UInt64.self)
                i += 8
            }
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 {
                let upper = caseInsensitive && byte &- 0x41 < 26
                changed = changed || upper
                out[i] = upper ? byte | 0x20 : byte
                i += 1
                continue
            }
            guard caseInsensitive && !diacriticInsensitive, let (value, length) = scalar(in: bytes, at: i),
                  foldsToItself(value) else { return nil }
            for k in i..<(i + length) { out[k] = bytes[k] }
            i += length
        }
        return changed
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

    /// Whether Foundation's case fold leaves a non-ASCII scalar as it is. Unicode's property
    /// says so for most; Foundation differs from it in three places, which always take its path:
    /// it decomposes some Greek and Latin letters (U+01F0, U+0390, U+1E96…) and folds Cherokee
    /// to lower case. Two-byte scalars come from a table, CJK and Hangul syllables need no look-up.
    @inline(__always)
    static func foldsToItself(_ value: UInt32) -> Bool {
        if value < 0x800 { return twoByteFoldsToItself[Int(value)] }
        if (0x4E00...0x9FFF).contains(value) || (0xAC00...0xD7A3).contains(value) { return true }
        return propertyFoldsToItself(value)
    }

    private static let twoByteFoldsToItself: [Bool] = (0..<0x800).map { propertyFoldsToItself(UInt32($0)) }

    /// Out of line: inlined, its Unicode property look-up made every fold fetch that type's
    /// metadata and reserve stack for it, even for ASCII.
    @inline(never)
    private static func propertyFoldsToItself(_ value: UInt32) -> Bool {
        if value < 0x80 { return !(value &- 0x41 < 26) }
        if value == 0x1F0 || (0x370...0x3FF).contains(value) || (0x13A0...0x13FF).contains(value)
            || (0x1E00...0x1FFF).contains(value) {
            return false
        }
        return Unicode.Scalar(value).map { !$0.properties.changesWhenCaseFolded } ?? false
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
        let t = Array(fold(text, options: options).utf8), p = Array(fold(part, options: options).utf8)
        // NSString's rangeOfString: finds nothing for an empty needle.
        if p.isEmpty { return false }
        if p.count > t.count { return false }
        for start in 0...(t.count - p.count) where t[start] == p[0] {
            if t[start..<(start + p.count)].elementsEqual(p) { return true }
        }
        return false
    }

    /// `text BEGINSWITH prefix`: false for an empty prefix, as NSString's hasPrefix:.
    public static func beginsWith(_ text: String, _ prefix: String, options: ComparisonOptions = []) -> Bool {
        let p = fold(prefix, options: options)
        return !p.isEmpty && fold(text, options: options).utf8.starts(with: p.utf8)
    }

    /// `text ENDSWITH suffix`: false for an empty suffix, as NSString's hasSuffix:.
    public static func endsWith(_ text: String, _ suffix: String, options: ComparisonOptions = []) -> Bool {
        let s = fold(suffix, options: options)
        return !s.isEmpty && fold(text, options: options).utf8.reversed().starts(with: s.utf8.reversed())
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
        let t = Array(fold(text, options: options).unicodeScalars)
        let p = Array(fold(pattern, options: options).unicodeScalars)
        // Greedy match with backtracking to the last star only: linear-time in practice and never
        // exponential, whatever the pattern.
        var ti = 0, pi = 0
        var starP = -1, starT = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "*" {
                starP = pi; starT = ti; pi += 1
            } else if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                ti += 1; pi += 1
            } else if starP >= 0 {
                pi = starP + 1; starT += 1; ti = starT
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// `text MATCHES regex`: the ICU regular expression must match the whole text. `[c]` makes
    /// the expression case-insensitive; `[d]` removes diacritics from both text and pattern.
    /// Compiled expressions are cached (thread-safe). An invalid pattern is a `PredicateError`.
    public static func matches(_ text: String, regex pattern: String, options: ComparisonOptions = []) throws(PredicateError) -> Bool {
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
    /// The pattern's own matcher when it is simple enough (and neither `[c]` nor `[d]`).
    private let simple: SimpleRegex?

    /// The compiled pattern, from the shared cache.
    public static func compiled(_ pattern: String, options: ComparisonOptions) throws(PredicateError) -> MatchesPattern {
        try RegexCache.shared.pattern(pattern, options: options)
    }

    init(_ pattern: String, options: ComparisonOptions) throws(PredicateError) {
        self.options = options
        let plain = options.contains(.normalized)
        let caseInsensitive = options.contains(.caseInsensitive) && !plain
        diacriticInsensitive = options.contains(.diacriticInsensitive) && !plain
        let source = diacriticInsensitive ? TextMatching.fold(pattern, caseInsensitive: false, diacriticInsensitive: true) : pattern
        expression = try RegexCache.compile(source, caseInsensitive: caseInsensitive)
        prefix = caseInsensitive || diacriticInsensitive ? [] : Self.literalPrefix(source)
        simple = caseInsensitive || diacriticInsensitive ? nil : SimpleRegex(source)
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

    func pattern(_ pattern: String, options: ComparisonOptions) throws(PredicateError) -> MatchesPattern {
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
    static func compile(_ pattern: String, caseInsensitive: Bool) throws(PredicateError) -> NSRegularExpression {
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        do {
            _ = try NSRegularExpression(pattern: pattern, options: options)
            return try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options)
        } catch {
            throw PredicateError(.invalidOperation, "invalid regular expression for MATCHES: \(pattern): \(reason(pattern))")
        }
    }
}
