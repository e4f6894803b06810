import Foundation

/// Raw SQL read as statements: their first words, transaction control, and (PortalSQLite's
/// `split`) the text cut where SQLite's own rule ends a statement.
public enum SQLStatements {
    /// `text` with PostgreSQL's own strings made plain ones SQLite reads the same way, for the
    /// questions above: an escape string's body (`E'it\'s'`, where a backslash escapes the quote)
    /// and a dollar-quoted one (`$$a 'b'; c$$`, `$body$…$body$`) become `'x…'`; an unterminated one
    /// stays open. Neither form is valid in SQLite's SQL, whose strings are left as they are.
    package static func withServerStringsMasked(_ text: String) -> String {
        let characters = Array(text)
        guard characters.contains("$") || characters.contains(where: { $0 == "E" || $0 == "e" }) else { return text }
        var result = ""
        var i = 0
        func isWordPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "$" }
        while i < characters.count {
            let c = characters[i]
            let startsWord = i == 0 || !isWordPart(characters[i - 1])
            if c == "'" || c == "\"" {
                // A plain string or quoted name, copied whole (its doubled quotes included).
                var j = i + 1
                while j < characters.count && characters[j] != c { j += 1 }
                result += String(characters[i..<min(j + 1, characters.count)])
                i = j + 1
            } else if c == "-", i + 1 < characters.count, characters[i + 1] == "-" {
                let end = characters[i...].firstIndex(of: "\n") ?? characters.count
                result += String(characters[i..<end])
                i = end
            } else if c == "/", i + 1 < characters.count, characters[i + 1] == "*" {
                var j = i + 2
                while j + 1 < characters.count && !(characters[j] == "*" && characters[j + 1] == "/") { j += 1 }
                let end = min(j + 2, characters.count)
                result += String(characters[i..<end])
                i = end
            } else if (c == "E" || c == "e") && startsWord && i + 1 < characters.count && characters[i + 1] == "'" {
                var j = i + 2
                var body = ""
                while j < characters.count {
                    if characters[j] == "\\" { j += 2; body += "xx"; continue }
                    if characters[j] == "'" {
                        if j + 1 < characters.count && characters[j + 1] == "'" { j += 2; body += "xx"; continue }
                        break
                    }
                    body += "x"
                    j += 1
                }
                result += "E'" + body + (j < characters.count ? "'" : "")
                i = j + 1
            } else if c == "$" && startsWord, let (tag, bodyStart) = dollarTag(characters, at: i) {
                let closing = Array(tag)
                var j = bodyStart
                while j + closing.count <= characters.count && Array(characters[j..<(j + closing.count)]) != closing { j += 1 }
                if j + closing.count <= characters.count {
                    result += "'" + String(repeating: "x", count: j - bodyStart) + "'"
                    i = j + closing.count
                } else {
                    result += "'"
                    i = characters.count
                }
            } else {
                result.append(c)
                i += 1
            }
        }
        return result
    }

    /// The opening `$tag$` (or `$$`) at `i`, and where the body starts.
    private static func dollarTag(_ characters: [Character], at i: Int) -> (String, Int)? {
        var j = i + 1
        while j < characters.count && (characters[j].isLetter || characters[j] == "_" || (j > i + 1 && characters[j].isNumber)) {
            j += 1
        }
        guard j < characters.count, characters[j] == "$" else { return nil }
        return (String(characters[i...j]), j + 1)
    }

    /// True when `text` holds something besides whitespace, comments and `;`.
    package static func hasStatement(_ text: String) -> Bool { firstWordStart(text.utf8) != nil }

    /// The keyword of a statement that begins or ends a transaction or a savepoint (`BEGIN`,
    /// `START TRANSACTION`, `COMMIT`, `END`, `ROLLBACK`, `ABORT`, `SAVEPOINT`, `RELEASE`,
    /// `PREPARE TRANSACTION`), upper-cased; nil for any other statement. A store begins and ends
    /// its transactions itself: such a statement run inside one would end it behind the store's
    /// back, and what the store then reports (rolled back, committed) would be untrue.
    public static func transactionControl(_ statement: String) -> String? {
        let words = leadingWords(statement, 2).map { $0.uppercased() }
        guard let first = words.first else { return nil }
        switch first {
        case "BEGIN", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE": return first
        case "START", "PREPARE": return words.count > 1 && words[1] == "TRANSACTION" ? first + " TRANSACTION" : nil
        default: return nil
        }
    }

    /// True when `statement` is an INSERT, REPLACE, UPDATE or DELETE (or a WITH before one), which
    /// change rows and never the schema; false for anything else, and for a statement naming
    /// one of SQLite's own tables (`PRAGMA writable_schema` lets an UPDATE change the schema's).
    static func changesRowsOnly(_ statement: String) -> Bool {
        guard let first = leadingWords(statement, 1).first?.uppercased(),
              ["INSERT", "REPLACE", "UPDATE", "DELETE", "WITH"].contains(first) else { return false }
        return !statement.lowercased().contains("sqlite_")
    }

    /// The first `count` words (letters, digits, `_`) of `text`, after any leading comments,
    /// `;` and `(`, read no further: asked of every statement a context runs. On the bytes, as
    /// SQL's separators are ASCII: no copy of the text, and no generic code whose first call
    /// looks up conformances at run time.
    public static func leadingWords(_ text: String, _ count: Int) -> [Substring] {
        let bytes = text.utf8
        guard var i = firstWordStart(bytes) else { return [] }
        var words: [Substring] = []
        while words.count < count && i < bytes.endIndex {
            let start = i
            while i < bytes.endIndex && isWordByte(bytes[i]) { i = bytes.index(after: i) }
            guard i > start else { break }
            words.append(text[start..<i])
            while i < bytes.endIndex && (isSpace(bytes[i]) || bytes[i] == UInt8(ascii: "(")) { i = bytes.index(after: i) }
        }
        return words
    }

    /// A byte of a word: an ASCII letter, digit or `_`, or any byte of a non-ASCII character.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "_") || (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    /// SQL's whitespace: space, tab, newline, vertical tab, form feed, carriage return.
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || (9...13).contains(byte) }

    /// Where the first byte that is not whitespace, a comment, `;` or `(` is; nil when none is.
    private static func firstWordStart(_ bytes: String.UTF8View) -> String.Index? {
        var i = bytes.startIndex
        func at(_ index: String.Index, _ char: Unicode.Scalar) -> Bool { index < bytes.endIndex && bytes[index] == UInt8(ascii: char) }
        while i < bytes.endIndex {
            let next = bytes.index(after: i)
            if isSpace(bytes[i]) || at(i, ";") || at(i, "(") {
                i = next
            } else if at(i, "-") && at(next, "-") {
                while i < bytes.endIndex && !at(i, "\n") { i = bytes.index(after: i) }
            } else if at(i, "/") && at(next, "*") {
                i = bytes.index(after: next)
                while i < bytes.endIndex && !(at(i, "*") && at(bytes.index(after: i), "/")) { i = bytes.index(after: i) }
                i = i < bytes.endIndex ? bytes.index(i, offsetBy: 2, limitedBy: bytes.endIndex) ?? bytes.endIndex : i
            } else {
                return i
            }
        }
        return nil
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace. Inlinable: specialized where it is
    /// called (on a String or a Substring); called generically from another module, its first
    /// call looks up the index's conformances at run time, at every start (`shell.startup`).
    @inlinable
    public func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
