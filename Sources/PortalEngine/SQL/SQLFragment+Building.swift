import PortalPredicate

// Small helpers for building SQL text together with its bound values. Names are always quoted
// and values always bound, so nothing a user types reaches the SQL text unescaped.

extension SQLFragment {
    /// SQL text without parameters.
    public static func raw(_ sql: String) -> SQLFragment { SQLFragment(sql) }

    /// One `?` bound to `value`.
    public static func bound(_ value: Value) -> SQLFragment { SQLFragment("?", [value]) }

    /// The two fragments one after the other, bindings in order.
    public static func + (left: SQLFragment, right: SQLFragment) -> SQLFragment {
        SQLFragment(left.sql + right.sql, left.bindings + right.bindings)
    }

    /// The fragment followed by SQL text without parameters.
    public static func + (left: SQLFragment, right: String) -> SQLFragment {
        SQLFragment(left.sql + right, left.bindings)
    }

    /// SQL text without parameters followed by the fragment.
    public static func + (left: String, right: SQLFragment) -> SQLFragment {
        SQLFragment(left + right.sql, right.bindings)
    }

    /// Each `?` parameter spelled by `spell` (given its 1-based number), outside quoted names
    /// and string literals, for dialects that number their parameters.
    public func numberingParameters(_ spell: (Int) -> String) -> SQLFragment {
        var result = ""
        result.reserveCapacity(sql.utf8.count + bindings.count * 2)
        var quote: Character?
        var number = 0
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }   // a doubled quote reopens at once
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "?" {
                number += 1
                result += spell(number)
                continue
            }
            result.append(character)
        }
        return SQLFragment(result, bindings)
    }

    /// `self` in parentheses.
    public var parenthesized: SQLFragment { "(" + self + ")" }

    /// The fragments separated by `separator`, bindings in order.
    public static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment("")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.sql += separator }
            result.sql += part.sql
            result.bindings += part.bindings
        }
        return result
    }
}

/// `alias."column"`.
func column(_ alias: String, _ name: String) -> String { alias + "." + quoted(name) }

extension String {
    /// Every occurrence of `target` replaced (Foundation-free).
    package func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count + 2)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}

/// A column's type affinity, from its declared type by SQLite's rules (section 3.1 of
/// "Datatypes In SQLite"): no declared type is BLOB affinity, which stores values as given.
public enum ColumnAffinity: Sendable {
    case integer, text, blob, real, numeric

    /// The affinity of a column declared with this type (`NVARCHAR(200)` is text).
    public init(declaredType: String) {
        let type = Array(declaredType.utf8)
        func has(_ word: StaticString) -> Bool { containsIgnoringASCIICase(type, word) }
        if has("INT") { self = .integer }
        else if has("CHAR") || has("CLOB") || has("TEXT") { self = .text }
        else if has("BLOB") || type.isEmpty { self = .blob }
        else if has("REAL") || has("FLOA") || has("DOUB") { self = .real }
        else { self = .numeric }
    }
}

/// Whether `bytes` contains the upper-case ASCII `word`, ignoring ASCII case (as SQLite reads
/// declared types), without allocating.
private func containsIgnoringASCIICase(_ bytes: [UInt8], _ word: StaticString) -> Bool {
    let count = word.utf8CodeUnitCount
    guard bytes.count >= count else { return false }
    return word.withUTF8Buffer { target in
        for start in 0...(bytes.count - count) {
            var matched = true
            for offset in 0..<count {
                var byte = bytes[start + offset]
                if byte >= 97 && byte <= 122 { byte -= 32 }
                if byte != target[offset] { matched = false; break }
            }
            if matched { return true }
        }
        return false
    }
}
