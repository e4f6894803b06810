import Foundation
import Testing
@testable import PortalPredicate
import DifferentialSupport

/// TextFolding (the tables of scripts/generate-fold-tables.swift and the rules that join a letter
/// and its combining marks) against Foundation's `String.folding(options:locale: nil)`, which
/// NSPredicate's [c], [d] and [cd] use: the same bytes for every Unicode scalar, alone and in
/// the contexts where Foundation folds scalars together.
@Suite struct TextFoldingTests {
    static let modes: [TextFolding.Mode] = [.caseInsensitive, .diacriticInsensitive, .caseAndDiacriticInsensitive]

    /// The byte-by-byte fold, nil when it leaves the text to Foundation.
    static func folded(_ text: String, _ mode: TextFolding.Mode) -> String? {
        let bytes = Array(text.utf8)
        var out = [UInt8](repeating: 0, count: TextFolding.capacity(forFolding: bytes.count))
        let count = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { TextFolding.fold(input, into: $0, mode: mode) }
        }
        return count.map { String(decoding: out[..<$0], as: UTF8.self) }
    }

    static func foundation(_ text: String, _ mode: TextFolding.Mode) -> String {
        text.folding(options: mode.options, locale: nil)
    }

    /// Counts the texts the tables left to Foundation; records every one they folded otherwise.
    struct Checker {
        var checked = 0, leftToFoundation = 0, wrong = 0
        mutating func check(_ text: String, _ mode: TextFolding.Mode) {
            checked += 1
            let expected = Self.bytes(TextFoldingTests.foundation(text, mode))
            guard let folded = TextFoldingTests.folded(text, mode) else {
                leftToFoundation += 1
                return
            }
            if Self.bytes(folded) != expected {
                wrong += 1
                if wrong <= 20 {
                    Issue.record("\(Self.scalars(text)) \(mode): Foundation \(Self.scalars(TextFoldingTests.foundation(text, mode))), tables \(Self.scalars(folded))")
                }
            }
        }
        static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        static func scalars(_ text: String) -> String {
            text.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
        }
    }

    /// Every scalar alone and between letters, every mode: the tables fold it as Foundation does,
    /// never leaving it to Foundation.
    @Test func everyScalarFoldsAsFoundationFoldsIt() {
        var checker = Checker()
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            for mode in Self.modes {
                checker.check(text, mode)
                checker.check("Ab" + text + "c", mode)
            }
        }
        #expect(checker.wrong == 0)
        #expect(checker.leftToFoundation == 0)
        #expect(checker.checked > 6_000_000)
    }

    /// Where Foundation folds a scalar together with what is next to it: combining marks after
    /// every kind of letter (taken away after Latin, Greek and Cyrillic; kept after other scripts,
    /// the first one dropped when below U+0510 and the letter did not change), a mark at the
    /// start or after U+0000, and every mark after a letter of each kind. Two marks or more after
    /// a letter of another script may be left to Foundation, never folded otherwise.
    @Test func combiningMarksFoldAsFoundationFoldsThem() {
        // One mark after a letter; two marks or more.
        var one = Checker(), more = Checker()
        let marks = (UInt32(0)...0x10FFFF).compactMap(Unicode.Scalar.init).filter {
            Array(Self.foundation("a" + String($0), .diacriticInsensitive).utf8) == [UInt8(ascii: "a")]
        }.map { String($0) }
        #expect(marks.count > 2_000)
        // Letters of each kind: ASCII, Latin with and without a decomposition, Greek, Cyrillic,
        // ones case folding changes, Hebrew, Devanagari, Armenian (folds, keeps marks), CJK,
        // Hangul, Cherokee, a mark, U+0000, U+0130 and U+0390 (fold to several scalars), emoji.
        let letters = ["e", "E", "é", "É", "ł", "ß", "ı", "\u{130}", "\u{390}", "Ω", "й", "Й", "\u{5D0}", "\u{915}",
                       "\u{531}", "\u{561}", "東", "\u{AC00}", "\u{13A0}", "\u{301}", "\u{0}", "\u{1F600}"]
        for mark in marks {
            for mode in Self.modes {
                for letter in letters {
                    one.check(letter + mark, mode)
                    one.check(letter + mark + "x", mode)
                }
                more.check(mark + "\u{301}" + mark, mode)
            }
        }
        // Every scalar below U+3400 (all the scripts with cases and decompositions) and a sample
        // above, with marks after it.
        for value in UInt32(0)...0x10FFFF where value < 0x3400 || value % 61 == 0 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            for mode in Self.modes {
                for after in ["\u{301}", "\u{951}", "\u{301}x", "\u{0}\u{301}"] {
                    one.check(text + after, mode)
                }
                for after in ["\u{301}\u{301}", "\u{5B0}\u{301}", "\u{951}\u{301}x"] {
                    more.check(text + after, mode)
                }
            }
        }
        #expect(one.wrong == 0)
        #expect(more.wrong == 0)
        // Left to Foundation with one mark: a mark Foundation decomposes after a letter whose
        // marks it keeps, and a mark after one that starts the text (they are put in order).
        #expect(one.leftToFoundation < one.checked / 50)
    }

    /// Names from many languages and scripts fold as Foundation folds them, all by the tables.
    @Test func namesInManyLanguages() {
        var checker = Checker()
        for name in Self.names {
            for mode in Self.modes {
                checker.check(name, mode)
                checker.check(name.uppercased(), mode)
                checker.check(name.decomposedStringWithCanonicalMapping, mode)
            }
        }
        #expect(checker.wrong == 0)
        #expect(checker.leftToFoundation == 0)
        // What a few fold to, spelled out.
        #expect(Self.folded("Straße", .caseInsensitive) == "strasse")
        #expect(Self.folded("ﬁnal", .caseInsensitive) == "final")
        #expect(Self.folded("İstanbul", .caseInsensitive) == "i\u{307}stanbul")
        #expect(Self.folded("İstanbul", .caseAndDiacriticInsensitive) == "istanbul")
        #expect(Self.folded("Yılmaz", .caseAndDiacriticInsensitive) == "yılmaz")
        #expect(Self.folded("ΟΔΥΣΣΕΥΣ", .caseInsensitive) == "οδυσσευσ")
        #expect(Self.folded("Ångström", .caseAndDiacriticInsensitive) == "angstrom")
        #expect(Self.folded("NGUYỄN", .caseAndDiacriticInsensitive) == "nguyen")
        #expect(Self.folded("Łukasz", .caseAndDiacriticInsensitive) == "łukasz")
        #expect(Self.folded("Dvor\u{30C}a\u{301}k", .diacriticInsensitive) == "Dvorak")
        #expect(Self.folded("Йошкар-Ола", .caseAndDiacriticInsensitive) == "иошкар-ола")
    }

    /// Text that is not valid UTF-8 is left to Foundation (which reads it as U+FFFD).
    @Test func invalidUTF8IsLeftToFoundation() {
        for bytes: [UInt8] in [[0x41, 0xC3], [0xC3, 0x28], [0xC0, 0xA9], [0xE0, 0x80, 0xA9], [0xED, 0xA0, 0x80],
                               [0xF0, 0x80, 0x80, 0xA9], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE4, 0xB8]] {
            for mode in Self.modes {
                var out = [UInt8](repeating: 0, count: TextFolding.capacity(forFolding: bytes.count))
                let count = bytes.withUnsafeBufferPointer { input in
                    out.withUnsafeMutableBufferPointer { TextFolding.fold(input, into: $0, mode: mode) }
                }
                #expect(count == nil, "\(bytes)")
            }
        }
        // Valid sequences of every length decode to their scalar.
        for text in ["é", "東", "😀", "\u{7FF}", "\u{800}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}"] {
            let decoded = Array(text.utf8).withUnsafeBufferPointer { TextMatching.scalar(in: $0, at: 0) }
            #expect(decoded?.0 == text.unicodeScalars.first?.value && decoded?.1 == text.utf8.count, "\(text)")
        }
    }

    /// TextMatching's fold (the evaluator's) gives Foundation's answer, also where the tables
    /// leave the text to Foundation.
    @Test func theEvaluatorsFoldIsFoundations() {
        let texts = Self.names + ["שָׁלוֹם", "\u{5D0}\u{5B8}\u{5B0}", "\u{915}\u{94D}\u{93C}", "", "A\u{0}\u{301}B", "MiXeD 123"]
        for text in texts {
            for (c, d) in [(true, false), (false, true), (true, true)] {
                var options: String.CompareOptions = []
                if c { options.insert(.caseInsensitive) }
                if d { options.insert(.diacriticInsensitive) }
                #expect(Array(TextMatching.fold(text, caseInsensitive: c, diacriticInsensitive: d).utf8)
                        == Array(text.folding(options: options, locale: nil).utf8), "\(text.debugDescription) c=\(c) d=\(d)")
            }
        }
    }

    static let names = MultilingualNames.all
}
