import PortalEngine

/// A token of the command language. Offsets are in characters from the start of the command.
public struct Token: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A name or keyword; may contain dots (`Album.Title`).
        case word
        /// A quoted string, its value unescaped.
        case string
        case number
        /// `$name`, text without the dollar.
        case variable
        /// Any other character, or the operators `==`, `!=`, `<=`, `>=`, `<>`, `->`.
        case symbol
    }

    public var kind: Kind
    public var text: String
    public var range: Range<Int>

    func isKeyword(_ keyword: String) -> Bool { kind == .word && text.lowercased() == keyword }
    func isSymbol(_ symbol: String) -> Bool { kind == .symbol && text == symbol }
}

/// Splits a command line into tokens. Never fails except on an unterminated string: every
/// character that is not part of a word, number, string or variable is a symbol, so predicate
/// text passes through untouched.
enum Lexer {
    static func tokens(_ characters: [Character]) throws(ShellError) -> [Token] {
        var tokens: [Token] = []
        var i = 0
        let interruption = PredicateInterruption.requested
        while i < characters.count {
            try ShellError.poll(tokens.count &+ 1, interruption)
            let c = characters[i]
            let start = i
            if c.isWhitespace {
                i += 1
            } else if c == "\"" || c == "'" {
                var value = ""
                i += 1
                var closed = false
                while i < characters.count {
                    let d = characters[i]
                    if d == "\\" && i + 1 < characters.count {
                        value.append(unescape(characters[i + 1]))
                        i += 2
                    } else if d == c {
                        i += 1
                        closed = true
                        break
                    } else {
                        value.append(d)
                        i += 1
                    }
                }
                if !closed { throw ShellError("unterminated string", start..<characters.count) }
                tokens.append(Token(kind: .string, text: value, range: start..<i))
            } else if c == "$" && i + 1 < characters.count && isWordStart(characters[i + 1]) {
                i += 1
                while i < characters.count && isWordPart(characters[i]) { i += 1 }
                tokens.append(Token(kind: .variable, text: String(characters[(start + 1)..<i]), range: start..<i))
            } else if c.isNumber && c.isASCII || ((c == "-" || c == ".") && i + 1 < characters.count
                        && characters[i + 1].isASCII && characters[i + 1].isNumber && startsNumber(tokens)) {
                i += 1
                while i < characters.count && (characters[i].isASCII && (characters[i].isNumber || characters[i].isLetter)
                        || characters[i] == "." || ((characters[i] == "-" || characters[i] == "+")
                        && (characters[i - 1] == "e" || characters[i - 1] == "E"))) { i += 1 }
                tokens.append(Token(kind: .number, text: String(characters[start..<i]), range: start..<i))
            } else if isWordStart(c) || escapedNameStarts(characters, at: i) {
                tokens.append(try keyPath(characters, &i))
            } else {
                i += 1
                if i < characters.count, ["==", "!=", "<=", ">=", "<>", "&&", "||", "->"].contains(String([c, characters[i]])) { i += 1 }
                tokens.append(Token(kind: .symbol, text: String(characters[start..<i]), range: start..<i))
            }
        }
        return tokens
    }

    /// A name or dotted key path: each part an identifier, or `#name` / `#"any text"` (the one
    /// way to write a name that is not an identifier, in every clause, as in predicates). The
    /// token's text is the unescaped parts joined with dots.
    private static func keyPath(_ characters: [Character], _ i: inout Int) throws(ShellError) -> Token {
        let start = i
        var parts: [String] = []
        while true {
            let partStart = i
            if characters[i] == "#" {
                i += 1
                if characters[i] == "\"" || characters[i] == "'" {
                    let quote = characters[i]
                    var value = ""
                    i += 1
                    while i < characters.count && characters[i] != quote {
                        if characters[i] == "\\" && i + 1 < characters.count { i += 1 }
                        value.append(characters[i])
                        i += 1
                    }
                    guard i < characters.count else { throw ShellError("unterminated name", partStart..<characters.count) }
                    i += 1
                    parts.append(value)
                    if i < characters.count && characters[i] == "." && i + 1 < characters.count
                        && (isWordStart(characters[i + 1]) || escapedNameStarts(characters, at: i + 1)) {
                        i += 1
                        continue
                    }
                    break
                }
            }
            let wordStart = i
            // The first character may be `@` (`@count`), which is not a word part.
            if i < characters.count && isWordStart(characters[i]) { i += 1 }
            while i < characters.count && isWordPart(characters[i]) { i += 1 }
            parts.append(String(characters[wordStart..<i]))
            guard i + 1 < characters.count, characters[i] == ".",
                  isWordStart(characters[i + 1]) || escapedNameStarts(characters, at: i + 1) else { break }
            i += 1
        }
        // A name of one part (most) is not joined: `joined(separator:)` is a generic call whose
        // first use looks up the array's conformances at run time (`shell.startup` guards it).
        let text = parts.count == 1 ? parts[0] : parts.joined(separator: ".")
        return Token(kind: .word, text: text, range: start..<i)
    }

    /// `#"…"`, `#'…'` or `#name` starts at `i`.
    static func escapedNameStarts(_ characters: [Character], at i: Int) -> Bool {
        guard i + 1 < characters.count, characters[i] == "#" else { return false }
        let next = characters[i + 1]
        return next == "\"" || next == "'" || isWordStart(next)
    }

    /// A minus or dot starts a number only where a value may stand (not after a name or number).
    private static func startsNumber(_ tokens: [Token]) -> Bool {
        guard let last = tokens.last else { return true }
        return last.kind == .symbol && last.text != ")"
    }

    static func isWordStart(_ c: Character) -> Bool { c.isLetter || c == "_" || c == "@" }
    static func isWordPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    private static func unescape(_ c: Character) -> Character {
        switch c {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "0": return "\0"
        default: return c
        }
    }
}

extension String {
    /// The text of some characters of a command, appended one by one: the standard library's
    /// `String(_:)` on a slice is a generic call the compiler leaves unspecialized, whose first
    /// use looks up the slice's conformances at run time, at every start (`shell.startup`).
    init(_ characters: ArraySlice<Character>) {
        self.init()
        for character in characters { append(character) }
    }
}
