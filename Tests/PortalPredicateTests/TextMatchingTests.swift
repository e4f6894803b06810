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

    @Test func matches() throws {
        #expect(try TextMatching.matches("abc", regex: "a.c"))
        #expect(try !TextMatching.matches("abcd", regex: "a.c"))
        #expect(try !TextMatching.matches("xabc", regex: "abc"))
        #expect(try TextMatching.matches("ABC", regex: "abc", options: [.caseInsensitive]))
        #expect(try TextMatching.matches("Antônio", regex: "Antonio", options: [.diacriticInsensitive]))
        #expect(try !TextMatching.matches("line\nbreak", regex: "line"))
        let long = String(repeating: "a", count: 300)
        #expect(try TextMatching.matches(long, regex: String(repeating: "a", count: 300)))   // > 256 UTF-16 units
        #expect(throws: PredicateError.self) { try TextMatching.matches("x", regex: "(") }
        #expect(throws: PredicateError.self) { try TextMatching.matches("x", regex: "a)|(b") }
    }

    @Test func unicodeHelpers() {
        #expect(TextMatching.lowercase("ÀÉÎ") == "àéî")
        #expect(TextMatching.uppercase("straße") == "STRASSE")
        #expect(TextMatching.length("e\u{301}😀") == 3)
    }
}
