import PortalEngine

/// SQLite's SQL (a view's, a CHECK's) with its names as PostgreSQL must see them: SQLite finds
/// `Track` when a view says `track`, PostgreSQL folds an unquoted name to lower case and then
/// finds nothing. Each bare word that is, in any case, the name of one of the database's tables
/// or columns (and not a function called by it) is quoted as that name is spelled; SQLite's
/// `[name]` and `` `name` `` are quoted as PostgreSQL quotes. Strings, quoted names and comments
/// are left as they are.
enum CopyNames {
    static func quoted(in sql: String, names: [String]) -> String {
        var spelled: [String: String] = [:]
        for name in names {
            let key = name.lowercased()
            // Two names that differ only in case: which one the SQL meant is not known.
            spelled[key] = spelled[key].map { $0 == name ? name : "" } ?? name
        }
        let dialect = PostgresDialect()
        let text = Array(sql.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        func copy(through end: Int) {
            out.append(contentsOf: text[i..<min(end, text.count)])
            i = min(end, text.count)
        }
        while i < text.count {
            let c = text[i]
            switch c {
            case "'", "\"":
                copy(through: closing(text, from: i, quote: c))
            case "[", "`":
                let end = closing(text, from: i, quote: c == "[" ? "]" : "`")
                out.append(contentsOf: dialect.quoted(String(String.UnicodeScalarView(text[(i + 1)..<max(i + 1, end - 1)]))).unicodeScalars)
                i = end
            case "-" where i + 1 < text.count && text[i + 1] == "-":
                copy(through: (text[i...].firstIndex(of: "\n") ?? text.count))
            case "/" where i + 1 < text.count && text[i + 1] == "*":
                var end = i + 2
                while end + 1 < text.count, !(text[end] == "*" && text[end + 1] == "/") { end += 1 }
                copy(through: end + 2)
            default:
                guard isWordStart(c), i == 0 || !isWordPart(text[i - 1]) else {
                    copy(through: i + 1)
                    continue
                }
                var end = i
                while end < text.count, isWordPart(text[end]) { end += 1 }
                let word = String(String.UnicodeScalarView(text[i..<end]))
                var next = end
                while next < text.count, text[next].properties.isWhitespace { next += 1 }
                let isCall = next < text.count && text[next] == "("
                if !isCall, let name = spelled[word.lowercased()], !name.isEmpty, name != name.lowercased() {
                    out.append(contentsOf: dialect.quoted(name).unicodeScalars)
                    i = end
                } else {
                    copy(through: end)
                }
            }
        }
        return String(out)
    }

    /// The index just past the quote that closes the one at `start` (a doubled quote inside is
    /// one character of the text).
    private static func closing(_ text: [Unicode.Scalar], from start: Int, quote: Unicode.Scalar) -> Int {
        var i = start + 1
        while i < text.count {
            if text[i] == quote {
                if i + 1 < text.count, text[i + 1] == quote, quote != "]" { i += 2; continue }
                return i + 1
            }
            i += 1
        }
        return text.count
    }

    private static func isWordStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
    private static func isWordPart(_ c: Unicode.Scalar) -> Bool { isWordStart(c) || ("0"..."9").contains(c) || c == "$" }
}
