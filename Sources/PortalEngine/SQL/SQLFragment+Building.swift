import PortalPredicate

// Small helpers for building SQL text together with its bound values. Names are always quoted
// and values always bound, so nothing a user types reaches the SQL text unescaped.

extension SQLFragment {
    /// SQL text without parameters.
    public static func raw(_ sql: String) -> SQLFragment { SQLFragment(sql) }

    /// One parameter bound to `value`.
    public static func bound(_ value: Value) -> SQLFragment {
        SQLFragment(sql: "?", bindings: [value], parameterOffsets: [0])
    }

    /// `?, ?, ?`: one parameter bound to each value.
    public static func bound(_ values: [Value]) -> SQLFragment {
        var result = parameters(values.count)
        result.bindings = values
        return result
    }

    /// `?, ?, ?` for `count` parameters the caller binds when it runs the statement.
    public static func parameters(_ count: Int) -> SQLFragment {
        var result = SQLFragment("")
        result.sql.reserveCapacity(count * 3)
        result.parameterOffsets.reserveCapacity(count)
        for i in 0..<count {
            if i > 0 { result.sql += ", " }
            result.parameterOffsets.append(result.sql.utf8.count)
            result.sql += "?"
        }
        return result
    }

    /// Appends SQL text without parameters.
    public mutating func append(_ text: String) { sql += text }

    /// Appends a fragment, its parameters after this one's.
    public mutating func append(_ other: SQLFragment) {
        let shift = sql.utf8.count
        sql += other.sql
        bindings += other.bindings
        parameterOffsets += other.parameterOffsets.map { $0 + shift }
    }

    /// The two fragments one after the other, bindings in order.
    public static func + (left: SQLFragment, right: SQLFragment) -> SQLFragment {
        var result = left
        result.append(right)
        return result
    }

    /// The fragment followed by SQL text without parameters.
    public static func + (left: SQLFragment, right: String) -> SQLFragment {
        var result = left
        result.sql += right
        return result
    }

    /// SQL text without parameters followed by the fragment.
    public static func + (left: String, right: SQLFragment) -> SQLFragment {
        var result = SQLFragment(left)
        result.append(right)
        return result
    }

    /// The same text with other values in its parameters (as many as it has).
    func rebound(_ values: [Value]) -> SQLFragment {
        var result = self
        result.bindings = values
        return result
    }

    /// The text with each parameter spelled by `spell` (given its 1-based number) where it was
    /// recorded: for dialects that number their parameters. Nothing else in the text changes.
    /// The result has no `?` parameters left (numbering it again changes nothing).
    public func numberingParameters(_ spell: (Int) -> String) -> SQLFragment {
        guard !parameterOffsets.isEmpty else { return self }
        let utf8 = sql.utf8
        var result = SQLFragment("")
        result.sql.reserveCapacity(utf8.count + parameterOffsets.count * 2)
        result.bindings = bindings
        var start = utf8.startIndex, position = 0
        for (number, offset) in parameterOffsets.enumerated() {
            let at = utf8.index(start, offsetBy: offset - position)
            position = offset + 1
            result.sql += Substring(utf8[start..<at])
            result.sql += spell(number + 1)
            start = utf8.index(after: at)   // past the `?`
        }
        result.sql += Substring(utf8[start...])
        return result
    }

    /// `self` in parentheses.
    public var parenthesized: SQLFragment { "(" + self + ")" }

    /// The fragments separated by `separator`, bindings in order.
    public static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment("")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.sql += separator }
            result.append(part)
        }
        return result
    }
}

/// `alias."column"`, quoted by `dialect`.
func column(_ alias: String, _ name: String, _ dialect: some SQLSpelling) -> String { alias + "." + dialect.quoted(name) }

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
