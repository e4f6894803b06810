import PortalPredicate

/// Finds where predicate text names something, so that a compile error (found on the tree, which
/// has no positions) can still point at the text: the first occurrence outside string literals,
/// as a whole word for names and keywords, ignoring case for keywords.
enum TokenLocator {
    static func range(of token: String, in text: String) -> Range<Int>? {
        let characters = Array(text)
        let target = Array(token)
        guard let first = target.first, !target.isEmpty else { return nil }
        let wordLike = isWord(first) || first == "@" || first == "$"
        let keyword = token.uppercased() == token && token.allSatisfy { $0.isLetter }
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\"" || character == "'" {
                index = endOfString(characters, from: index)
                continue
            }
            if matches(characters, at: index, target, ignoringCase: keyword),
               !wordLike || ((index == 0 || !isWord(characters[index - 1]))
                   && (index + target.count == characters.count || !isWord(characters[index + target.count]))) {
                return index..<(index + target.count)
            }
            index += 1
        }
        return nil
    }

    private static func isWord(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    private static func matches(_ characters: [Character], at index: Int, _ target: [Character], ignoringCase: Bool) -> Bool {
        guard index + target.count <= characters.count else { return false }
        for offset in 0..<target.count {
            let a = characters[index + offset], b = target[offset]
            if ignoringCase ? a.uppercased() != b.uppercased() : a != b { return false }
        }
        return true
    }

    /// The index after the string literal opening at `start` (backslash escapes its quote).
    private static func endOfString(_ characters: [Character], from start: Int) -> Int {
        let quote = characters[start]
        var index = start + 1
        while index < characters.count {
            if characters[index] == "\\" { index += 2; continue }
            if characters[index] == quote { return index + 1 }
            index += 1
        }
        return index
    }
}

extension PortalPredicateError {
    /// Where in `text` (the predicate it came from) the error points: its own range, or for an
    /// unknown name without one, the first place the text names it (outside string literals, as
    /// a whole word). The shell's caret and the browser's filter mark both come from here.
    public func range(in text: String) -> Range<Int>? {
        if let range { return range }
        guard kind == .unknownName else { return nil }
        let parts = message.split(separator: "'", omittingEmptySubsequences: false)
        guard parts.count >= 3, !parts[1].isEmpty else { return nil }
        return TokenLocator.range(of: String(parts[1]), in: text)
    }
}
