import Testing
import PortalPredicate

@Suite struct TextMatchingTests {
    @Test func folding() {
        #expect(TextMatching.fold("ZÜRICH", caseInsensitive: true, diacriticInsensitive: false) == "zürich")
        #expect(TextMatching.fold("Antônio", caseInsensitive: false, diacriticInsensitive: true) == "Antonio")
        #expect(TextMatching.fold("ÉCOLE", caseInsensitive: true, diacriticInsensitive: true) == "ecole")
        #expect(TextMatching.fold("Straße", options: [.caseInsensitive]) == "strasse")
        #expect(TextMatching.fold("Ü", options: [.caseInsensitive, .normalized]) == "Ü")   // [n] supersedes
        #expect(TextMatching.equal("ZÜRICH", "zürich", options: [.caseInsensitive]))
        #expect(!TextMatching.equal("é", "e\u{301}"))                                  // bytes differ
    }

    @Test func ordering() {
        #expect(TextMatching.compare("B", "a") < 0)
        #expect(TextMatching.compare("a", "ab") < 0)
        #expect(TextMatching.compare("é", "z") > 0)
        #expect(TextMatching.compare("x", "x") == 0)
    }

    @Test func substrings() {
        #expect(TextMatching.contains("Love Song", "e S"))
        #expect(!TextMatching.contains("abc", ""))
        #expect(!TextMatching.contains("", "a"))
        #expect(TextMatching.contains("Ärger", "ä", options: [.caseInsensitive]))
        #expect(TextMatching.beginsWith("Antônio", "anto", options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(!TextMatching.beginsWith("Antônio", "Anto"))
        #expect(TextMatching.endsWith("Zürich", "rich"))
        #expect(!TextMatching.endsWith("Zürich", "RICH"))
    }

    @Test func like() {
        #expect(TextMatching.like("", pattern: ""))
        #expect(TextMatching.like("", pattern: "***"))
        #expect(!TextMatching.like("a", pattern: ""))
        #expect(TextMatching.like("abc", pattern: "a*c"))
        #expect(TextMatching.like("abc", pattern: "*b*"))
        #expect(TextMatching.like("abcbc", pattern: "*bc"))
        #expect(!TextMatching.like("abcb", pattern: "*bc"))
        #expect(TextMatching.like("😀x", pattern: "?x"))
        #expect(TextMatching.like("a\\b", pattern: "a\\b"))
        #expect(TextMatching.like("ABC", pattern: "a?c", options: [.caseInsensitive]))
        // Pathological patterns stay fast: no exponential backtracking.
        let long = String(repeating: "a", count: 5_000)
        #expect(!TextMatching.like(long, pattern: String(repeating: "*a", count: 50) + "*b"))
    }

    /// LIKE on bytes against a plain recursive matcher over scalars, on generated texts and
    /// patterns of one-, two-, three- and four-byte characters.
    @Test func likeAgreesWithAReferenceMatcher() {
        func reference(_ t: ArraySlice<Unicode.Scalar>, _ p: ArraySlice<Unicode.Scalar>) -> Bool {
            guard let first = p.first else { return t.isEmpty }
            if first == "*" { return (t.startIndex...t.endIndex).contains { reference(t[$0...], p.dropFirst()) } }
            guard let c = t.first, first == "?" || first == c else { return false }
            return reference(t.dropFirst(), p.dropFirst())
        }
        var generator = SeededGenerator(seed: 41)
        let letters: [Unicode.Scalar] = ["a", "b", "é", "ß", "東", "😀"]
        let symbols = letters + ["*", "?"]
        var compared = 0, matched = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...7, using: &generator)).map { _ in letters[Int.random(in: 0..<letters.count, using: &generator)] }
            let pattern = (0..<Int.random(in: 0...5, using: &generator)).map { _ in symbols[Int.random(in: 0..<symbols.count, using: &generator)] }
            let expected = reference(text[...], pattern[...])
            let t = String(String.UnicodeScalarView(text)), p = String(String.UnicodeScalarView(pattern))
            #expect(TextMatching.like(t, pattern: p) == expected, "\(t.debugDescription) LIKE \(p.debugDescription)")
            compared += 1
            if expected { matched += 1 }
        }
        #expect(compared == 20_000 && matched > 1_000)
    }

    @Test func matches() throws {
        #expect(try TextMatching.matches("abc", regex: "a.c"))
        #expect(try !TextMatching.matches("abcd", regex: "a.c"))
        #expect(try !TextMatching.matches("xabc", regex: "abc"))
        #expect(try TextMatching.matches("ABC", regex: "abc", options: [.caseInsensitive]))
        #expect(try TextMatching.matches("Antônio", regex: "Antonio", options: [.diacriticInsensitive]))
        #expect(try !TextMatching.matches("line\nbreak", regex: "line"))
        let long = String(repeating: "a", count: 300)
        #expect(try TextMatching.matches(long, regex: String(repeating: "a", count: 300)))   // > 256 UTF-16 units
        #expect(throws: PortalPredicateError.self) { try TextMatching.matches("x", regex: "(") }
        #expect(throws: PortalPredicateError.self) { try TextMatching.matches("x", regex: "a)|(b") }
    }

    @Test func unicodeHelpers() {
        #expect(TextMatching.lowercase("ÀÉÎ") == "àéî")
        #expect(TextMatching.uppercase("straße") == "STRASSE")
        #expect(TextMatching.length("e\u{301}😀") == 3)
    }
}
