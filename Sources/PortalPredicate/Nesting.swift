extension PredicateTree {
    /// Where the text of a predicate is nested deepest: the character range of the first token
    /// inside the most brackets (`(`, `{`, `[`). Nil when the text does not lex. Used to place
    /// the caret of errors about nesting found after parsing (the compiled SQL's depth).
    public static func deepestNesting(in text: String) -> Range<Int>? {
        guard let tokens = try? Lexer.tokenize(text), let first = tokens.first else { return nil }
        var depth = 0, deepest = -1
        var deepestToken = first
        for token in tokens {
            switch token.kind {
            case .symbol("("), .symbol("{"), .symbol("["): depth += 1
            case .symbol(")"), .symbol("}"), .symbol("]"): depth -= 1
            default:
                if depth > deepest { deepest = depth; deepestToken = token }
            }
        }
        let range = Lexer.characterRange(deepestToken.range, in: text)
        return range.isEmpty ? range.lowerBound..<(range.lowerBound + 1) : range
    }
}
