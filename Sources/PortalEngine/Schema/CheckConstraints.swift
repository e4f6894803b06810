/// The CHECK constraints of a CREATE TABLE statement. SQLite keeps them only in the statement's
/// text, so they are found there: outside quotes and comments, each `CHECK` word followed by a
/// parenthesised expression (nested parentheses, strings and comments inside it are skipped).
package enum CheckConstraints {
    package static func find(in sql: String) -> [String] {
        guard mentionsCheck(sql) else { return [] }
        let text = Array(sql.unicodeScalars)
        var found: [String] = []
        var i = 0
        while i < text.count {
            if let end = skipQuotedOrComment(text, i) {
                i = end
            } else if isWordStart(text, i), matchesCheck(text, i) {
                var j = i + 5
                while j < text.count, text[j].properties.isWhitespace { j += 1 }
                guard j < text.count, text[j] == "(", let close = closingParenthesis(text, j) else { i += 5; continue }
                found.append("CHECK " + String(String.UnicodeScalarView(text[j...close])))
                i = close + 1
            } else {
                i += 1
            }
        }
        return found
    }

    /// Whether `check` appears anywhere, in any case: a byte scan that lets most tables (which
    /// have no CHECK) skip the scalar-by-scalar parse when a database opens.
    private static func mentionsCheck(_ sql: String) -> Bool {
        let bytes = Array(sql.utf8), word = Array("check".utf8)
        guard bytes.count >= word.count else { return false }
        return (0...(bytes.count - word.count)).contains { start in
            (0..<word.count).allSatisfy { bytes[start + $0] | 0x20 == word[$0] }
        }
    }

    /// The index after a string, quoted name or comment starting at `i`; nil when none starts there.
    private static func skipQuotedOrComment(_ text: [Unicode.Scalar], _ i: Int) -> Int? {
        let c = text[i]
        let next: Unicode.Scalar? = i + 1 < text.count ? text[i + 1] : nil
        if c == "-" && next == "-" {
            var j = i + 2
            while j < text.count, text[j] != "\n" { j += 1 }
            return j
        }
        if c == "/" && next == "*" {
            var j = i + 2
            while j + 1 < text.count, !(text[j] == "*" && text[j + 1] == "/") { j += 1 }
            return min(j + 2, text.count)
        }
        let closer: Unicode.Scalar? = switch c {
        case "'", "\"", "`": c
        case "[": "]"
        default: nil
        }
        guard let closer else { return nil }
        var j = i + 1
        while j < text.count {
            if text[j] == closer {
                // A doubled quote is an escaped one (not in `[…]` names).
                if closer != "]", j + 1 < text.count, text[j + 1] == closer { j += 2; continue }
                return j + 1
            }
            j += 1
        }
        return text.count
    }

    private static func isWordStart(_ text: [Unicode.Scalar], _ i: Int) -> Bool {
        i == 0 || !isWordCharacter(text[i - 1])
    }

    private static func isWordCharacter(_ c: Unicode.Scalar) -> Bool {
        c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "$"
    }

    /// `CHECK` in any case at `i`, as a whole word. Compared scalar by scalar in ASCII: no other
    /// scalar upper-cases to one of its letters, and a String per word start made reading a
    /// schema cost more than its queries.
    private static func matchesCheck(_ text: [Unicode.Scalar], _ i: Int) -> Bool {
        guard i + 5 <= text.count else { return false }
        for (k, letter) in "CHECK".unicodeScalars.enumerated() {
            let c = text[i + k].value
            guard c == letter.value || c == letter.value | 0x20 else { return false }
        }
        return i + 5 == text.count || !isWordCharacter(text[i + 5])
    }

    /// The index of the parenthesis closing the one at `open`.
    private static func closingParenthesis(_ text: [Unicode.Scalar], _ open: Int) -> Int? {
        var depth = 0
        var i = open
        while i < text.count {
            if let end = skipQuotedOrComment(text, i) { i = end; continue }
            if text[i] == "(" { depth += 1 }
            if text[i] == ")" {
                depth -= 1
                if depth == 0 { return i }
            }
            i += 1
        }
        return nil
    }
}
