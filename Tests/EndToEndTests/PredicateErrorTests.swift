import Foundation
import Testing

/// Through the real binary: the caret line counts display columns.
@Suite struct PredicateErrorTests {
    func count(_ predicate: String) throws -> Run {
        try Shell.run(["-r", Shell.chinook, "-e", "count Track where " + predicate])
    }

    @Test func caretCountsDisplayColumns() throws {
        // 👍🏽 (a thumb with a skin-tone modifier) and 🇫🇷 (a flag) are two columns each.
        for emoji in ["👍🏽", "🇫🇷", "👩‍💻", "日"] {
            let r = try count("Name == \"\(emoji)\" AND Nmae == 1")
            #expect(r.status == 1)
            let lines = r.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(emoji)")
            guard lines.count == 3 else { continue }
            #expect(lines[1] == "  count Track where Name == \"\(emoji)\" AND Nmae == 1")
            #expect(lines[2] == "  " + String(repeating: " ", count: 35) + "^~~~", "\(emoji)")
        }
    }

    @Test func messagesSayWhatWasMeant() throws {
        let curly = try count("Name == “Wave”")
        #expect(curly.stderr.hasPrefix("error: '“' is a typographic quote: write strings in straight quotes"))
        #expect(curly.stderr.hasSuffix("  count Track where Name == “Wave”\n                            ^\n"))
        let doubled = try count("Name == 'It''s'")
        #expect(doubled.stderr.hasPrefix("error: two quotes in a row do not escape a quote here: write \\' inside '…'"))
        let regex = try count("Name MATCHES 'a(b'")
        #expect(regex.stderr == "error: invalid regular expression for MATCHES: expected ')'\n"
            + "  count Track where Name MATCHES 'a(b'\n                                 ^~~~~\n")
        let selector = try count("SELF isKindOfClass: 'x'")
        #expect(selector.stderr.hasPrefix("error: 'isKindOfClass:' (an Objective-C selector used as an operator) has no meaning on a database"))
    }
}
