import Testing
@testable import PortalPredicate

/// Inputs the fuzzer (`make fuzz`) found crashing, and inputs near the edges of the lexer that
/// must never crash: each is parsed, printed, re-parsed (same tree) and evaluated.
let fuzzRegressions: [[UInt8]] = [
    Array("a == 0xé".utf8),
    Array("a == 1é".utf8),
    Array("a == 0bé1".utf8),
    Array("a == 0o".utf8),
    Array("a == \"\\u".utf8),
    Array("a == \"\\uD83D\\u".utf8),
    Array("a == \"\\uDE00\"".utf8),
    Array("a == X'0".utf8),
    Array("a == X'zz'".utf8),
    Array("#".utf8),
    Array("$".utf8),
    Array("@".utf8),
    Array("%".utf8),
    Array("a == 1 SORT(".utf8),
    Array("a == 1 LIMIT(99999999999999999999)".utf8),
    Array("-9223372036854775808 == a".utf8),
    Array("-9223372036854775808.x == a".utf8),
    Array("a[-9223372036854775808] == 1".utf8),
    [0x61, 0x20, 0x3D, 0x3D, 0x20, 0x22, 0xFF, 0xFE, 0x22],
    [0x61, 0xC3],
    [0xE2, 0x80, 0xA8, 0x20, 0x3D, 0x3D, 0x20, 0x31],
    [0x00],
    // A regular expression over 256 UTF-16 units: Foundation leaks when compiling it (see Fuzz/lsan.supp).
    Array(("Name MATCHES \"\0" + String(repeating: "\u{FFFD}", count: 300) + "\"").utf8),
]

@Suite struct FuzzRegressionTests {
    @Test(arguments: fuzzRegressions.indices)
    func regressionInputDoesNotCrash(_ index: Int) throws {
        let text = String(decoding: fuzzRegressions[index], as: UTF8.self)
        do {
            let query = try Query.parse(text)
            #expect(try Query.parse(query.description) == query)
            _ = try? query.predicate.evaluate(with: Sample.album)
        } catch {
            // An error must say where, within the text (or one past its end).
            if let range = error.range { #expect(range.upperBound <= text.count + 1) }
            #expect(!error.message.isEmpty)
        }
    }
}
