import Foundation
import Testing
@testable import PortalPredicate

/// MATCHES compares a pattern's literal start on the bytes before ICU runs: the prefixes it
/// finds, and answers always ICU's own (the pattern anchored at both ends, as compiled).
@Suite struct MatchesPatternTests {
    @Test func literalPrefixes() {
        let cases: [(String, String)] = [
            ("name 1[0-9]* 5.*", "name 1"), ("abc", "abc"), ("ab*", "a"), ("ab+c", "a"), ("ab?", "a"), ("ab{2}", "a"),
            ("a.c", "a"), ("abc|xyz", ""), ("(abc|x)", ""), ("x(a|b)", ""), ("\\d+", ""), ("(?i)abc", ""), ("üx", ""),
            ("[ab]c", ""), ("^abc", ""), ("a\\.b", "a"), ("a#b", "a"), ("-_/:=", "-_/:="), ("a\tb", "a"), ("", ""),
        ]
        for (pattern, prefix) in cases {
            #expect(MatchesPattern.literalPrefix(pattern) == Array(prefix.utf8), "\(pattern.debugDescription)")
        }
    }

    @Test func answersAreICUsOwn() throws {
        let patterns = ["name 1[0-9]* 5.*", "abc", "ab*", "ab+c", "ab?", "ab{2}c", "a.c", "abc|xyz", "na(me)?", "n", "name",
                        "name \\d+", "a\\.b", "\\Qa.b\\E", "x*", "é.*", "na.e", "[a-z]+ 1.*"]
        let subjects = ["name 1 5", "name 12 5x", "name 1", "name", "nam", "", "abc", "abcd", "a", "ac", "abbc", "xyz", "a.b",
                        "axb", "x", "xxx", "éa", "nome 1 5", "Name 1 5", "name\n1", "na", "nae", "NAME 1 5", "ÉA", "ſ", "NAMe 17 5"]
        for (pattern, caseInsensitive) in patterns.flatMap({ [($0, false), ($0, true)] }) {
            let icu = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: caseInsensitive ? [.caseInsensitive] : [])
            let compiled = try MatchesPattern.compiled(pattern, options: caseInsensitive ? [.caseInsensitive] : [])
            for subject in subjects {
                let expected = icu.firstMatch(in: subject, range: NSRange(subject.startIndex..<subject.endIndex, in: subject)) != nil
                #expect(compiled.matches(subject) == expected, "\(subject.debugDescription) MATCHES \(pattern.debugDescription)")
                let fromBytes = Array(subject.utf8).withUnsafeBufferPointer { compiled.matches(utf8: $0) }
                #expect(fromBytes == expected, "\(subject.debugDescription) MATCHES \(pattern.debugDescription), from bytes")
            }
        }
    }

    /// Which patterns the simple matcher takes (the others stay ICU's).
    @Test func simplePatterns() {
        for pattern in ["name 1[0-9]* 5.*", "abc", "a.c", "[a-z]+x?", "[^0-9]*", "", "a-b, c/d: e", "x*y*z*"] {
            #expect(SimpleRegex(pattern) != nil, "\(pattern.debugDescription)")
        }
        for pattern in ["a|b", "(ab)", "a{2}", "a*?", "a++", "\\d", "^a", "a$", "[a-]", "[]a]", "[[:alpha:]]", "[a-z&&b]", "[ ]",
                        "[z-a]", "é", "#", "a]", "[abc"] {
            #expect(SimpleRegex(pattern) == nil, "\(pattern.debugDescription)")
        }
    }

    /// Generated simple patterns and texts (line terminators, non-ASCII, invalid bytes
    /// included): the simple matcher answers as ICU does, every time.
    @Test(arguments: [false, true]) func theSimpleMatcherAgreesWithICU(caseInsensitive: Bool) throws {
        var generator = SeededGenerator(seed: caseInsensitive ? 17 : 16)
        let atoms = ["a", "b", "c", "1", " ", "-", ".", "[a-c]", "[^a]", "[0-9x]", "[^b-c1]"]
            + (caseInsensitive ? ["s", "K", "i", "[r-t]", "[^k]", "[A-Z]", "[^I]", "Z"] : [])
        let quantifiers = ["", "", "*", "+", "?"]
        let characters: [String] = ["a", "b", "c", "1", " ", "-", "x", "\n", "\r", "\u{85}", "\u{2028}", "\u{0B}", "é", "😀", "\u{FFFD}"]
            + (caseInsensitive ? ["A", "B", "C", "S", "s", "ſ", "k", "K", "\u{212A}", "i", "I", "İ", "ı", "z", "Z", "É", "ß"] : [])
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        var compared = 0
        for _ in 0..<400 {
            let pattern = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                atoms[Int.random(in: 0..<atoms.count, using: &generator)]
                    + quantifiers[Int.random(in: 0..<quantifiers.count, using: &generator)]
            }.joined()
            let simple = try #require(SimpleRegex(pattern, caseInsensitive: caseInsensitive), "\(pattern.debugDescription)")
            let icu = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z", options: options)
            for _ in 0..<40 {
                let subject = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                    characters[Int.random(in: 0..<characters.count, using: &generator)]
                }.joined()
                let expected = icu.firstMatch(in: subject, range: NSRange(subject.startIndex..<subject.endIndex, in: subject)) != nil
                #expect(simple.matches(subject) == expected, "\(subject.debugDescription) MATCHES \(pattern.debugDescription)")
                let fromBytes = Array(subject.utf8).withUnsafeBufferPointer { simple.matches(utf8: $0) }
                #expect(fromBytes == expected, "\(subject.debugDescription) MATCHES \(pattern.debugDescription), from bytes")
                compared += 1
            }
        }
        #expect(compared == 16_000)
        // Invalid UTF-8 reads as U+FFFD, which `.` matches.
        let dot = try #require(SimpleRegex("a."))
        #expect([UInt8]([0x61, 0xFF]).withUnsafeBufferPointer { dot.matches(utf8: $0) })
    }

    /// Invalid UTF-8 reads as U+FFFD, as everywhere else; the prefix is compared on the bytes.
    @Test func invalidBytes() throws {
        let compiled = try MatchesPattern.compiled("ab.", options: [])
        #expect([UInt8]([0x61, 0x62, 0xFF]).withUnsafeBufferPointer { compiled.matches(utf8: $0) })
        #expect(![UInt8]([0xFF, 0x61, 0x62]).withUnsafeBufferPointer { compiled.matches(utf8: $0) })
    }
}
