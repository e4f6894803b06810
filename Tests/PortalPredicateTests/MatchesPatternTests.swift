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
                        "axb", "x", "xxx", "éa", "nome 1 5", "Name 1 5", "name\n1", "na", "nae"]
        for pattern in patterns {
            let icu = try NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z")
            let compiled = try MatchesPattern.compiled(pattern, options: [])
            for subject in subjects {
                let expected = icu.firstMatch(in: subject, range: NSRange(subject.startIndex..<subject.endIndex, in: subject)) != nil
                #expect(compiled.matches(subject) == expected, "\(subject.debugDescription) MATCHES \(pattern.debugDescription)")
                let fromBytes = Array(subject.utf8).withUnsafeBufferPointer { compiled.matches(utf8: $0) }
                #expect(fromBytes == expected, "\(subject.debugDescription) MATCHES \(pattern.debugDescription), from bytes")
            }
        }
    }

    /// Invalid UTF-8 reads as U+FFFD, as everywhere else; the prefix is compared on the bytes.
    @Test func invalidBytes() throws {
        let compiled = try MatchesPattern.compiled("ab.", options: [])
        #expect([UInt8]([0x61, 0x62, 0xFF]).withUnsafeBufferPointer { compiled.matches(utf8: $0) })
        #expect(![UInt8]([0xFF, 0x61, 0x62]).withUnsafeBufferPointer { compiled.matches(utf8: $0) })
    }
}
