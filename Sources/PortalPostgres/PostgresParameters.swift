import PortalEngine

/// The parameters of raw SQL typed for PostgreSQL, bound by name from the caller's variables:
/// `$1` takes the variable `1` (`--param 1=3`), `$n` the variable `n` (`let $n = 2`), which
/// PostgreSQL itself has no name for: such a parameter is given the next free number. Strings,
/// quoted names, comments and dollar-quoted bodies (`$body$ … $body$`) are left as they are.
enum PostgresParameters {
    /// `sql` with every named parameter numbered, and the value of each number in order.
    static func numbered(_ sql: String, from variables: [String: Value]) throws -> (sql: String, values: [Value]) {
        let characters = Array(sql)
        var pieces: [(text: String, parameter: String?)] = []
        var text = ""
        var i = 0
        func take(_ count: Int) {
            text.append(contentsOf: characters[i..<min(i + count, characters.count)])
            i += count
        }
        while i < characters.count {
            let c = characters[i]
            let next: Character? = i + 1 < characters.count ? characters[i + 1] : nil
            switch c {
            case "'", "\"":
                take(quotedLength(characters, from: i, quote: c, backslashes: c == "'" && isEscapeString(characters, i)))
            case "-" where next == "-":
                var end = i
                while end < characters.count && characters[end] != "\n" { end += 1 }
                take(end - i)
            case "/" where next == "*":
                var end = i + 2
                while end + 1 < characters.count && !(characters[end] == "*" && characters[end + 1] == "/") { end += 1 }
                take(end + 2 - i)
            case "$" where i == 0 || !isIdentifierPart(characters[i - 1]):
                var end = i + 1
                while end < characters.count && isNamePart(characters[end]) { end += 1 }
                let name = String(characters[(i + 1)..<end])
                if end < characters.count && characters[end] == "$" && !(name.first?.isNumber ?? false) {
                    take(dollarQuotedLength(characters, from: i, tag: String(characters[i...end])))
                } else if name.isEmpty {
                    take(1)
                } else {
                    pieces.append((text, name))
                    text = ""
                    i = end
                }
            default:
                take(1)
            }
        }
        pieces.append((text, nil))
        return try number(pieces, variables)
    }

    /// Numbers the parameters: `$k` keeps k, each other name the next number after the largest.
    private static func number(_ pieces: [(text: String, parameter: String?)], _ variables: [String: Value]) throws
        -> (sql: String, values: [Value]) {
        let names = pieces.compactMap(\.parameter)
        var numbers: [String: Int] = [:]
        var last = names.compactMap { Int($0) }.max() ?? 0
        for name in names where numbers[name] == nil {
            if let n = Int(name) { numbers[name] = n } else { last += 1; numbers[name] = last }
        }
        var values = [Value](repeating: .null, count: last)
        for (name, n) in numbers {
            guard let value = variables[name] else {
                throw PortalError(.misuse, "no value for the SQL parameter $\(name) (give it one with let or --param)")
            }
            values[n - 1] = value
        }
        let sql = pieces.map { $0.text + ($0.parameter.flatMap { numbers[$0] }.map { "$\($0)" } ?? "") }.joined()
        return (sql, values)
    }

    private static func isNamePart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
    /// PostgreSQL's names may hold `$` after their first character (`a$1` is no parameter).
    private static func isIdentifierPart(_ c: Character) -> Bool { isNamePart(c) || c == "$" }

    /// True when the quote at `i` opens an escape string (`E'…'`), where a backslash escapes.
    private static func isEscapeString(_ characters: [Character], _ i: Int) -> Bool {
        guard i > 0, characters[i - 1] == "E" || characters[i - 1] == "e" else { return false }
        return i == 1 || !isIdentifierPart(characters[i - 2])
    }

    /// The length of the quoted text at `start`, quotes included (a doubled quote stays inside).
    private static func quotedLength(_ characters: [Character], from start: Int, quote: Character, backslashes: Bool) -> Int {
        var end = start + 1
        while end < characters.count {
            if backslashes && characters[end] == "\\" {
                end += 2
            } else if characters[end] == quote {
                if end + 1 < characters.count && characters[end + 1] == quote { end += 2 } else { return end + 1 - start }
            } else {
                end += 1
            }
        }
        return characters.count - start
    }

    /// The length of the dollar-quoted body at `start`, both `tag`s included.
    private static func dollarQuotedLength(_ characters: [Character], from start: Int, tag: String) -> Int {
        let tagCharacters = Array(tag)
        var end = start + tagCharacters.count
        while end + tagCharacters.count <= characters.count {
            if Array(characters[end..<(end + tagCharacters.count)]) == tagCharacters { return end + tagCharacters.count - start }
            end += 1
        }
        return characters.count - start
    }
}
