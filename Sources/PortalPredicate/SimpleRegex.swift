/// A matcher for the simplest MATCHES patterns — ASCII literals, `.`, classes of ASCII letters
/// and digits (`[a-z0-9]`, `[^ab]`), each optionally followed by `*`, `+` or `?` — that answers
/// as ICU does without leaving Swift: a set of pattern positions stepped once per character
/// (never backtracking), on the UTF-8 bytes. Case-insensitively (`[c]`), a letter also matches
/// its other case, and ICU's case closure adds two letters that are not ASCII: U+017F `ſ`
/// (folds to s) and U+212A, the Kelvin sign (folds to k). Any other pattern is ICU's (nil from
/// `init`). A differential test checks it against ICU on generated patterns and texts.
struct SimpleRegex: Sendable {
    /// One character of the pattern: the ASCII characters it matches as a bitmap (bit c of
    /// `low`/`high` for c < 64 / c ≥ 64), `ſ` and `K`, all of it negated for `[^…]`; `.` is any
    /// character but a line terminator. Plain values: stepping reads no reference.
    private struct Atom: Sendable {
        var low: UInt64 = 0, high: UInt64 = 0
        var longS = false, kelvin = false
        var negated = false
        var any = false

        init(any: Bool) { self.any = any }

        init(ranges: [ClosedRange<UInt32>], negated: Bool, caseInsensitive: Bool) {
            self.negated = negated
            for range in ranges {
                for c in range { insert(c) }
            }
            guard caseInsensitive else { return }
            for c in UInt32(0x41)...0x5A where contains(c) || contains(c + 0x20) {
                insert(c)
                insert(c + 0x20)
            }
            longS = contains(0x73)
            kelvin = contains(0x6B)
        }

        private mutating func insert(_ c: UInt32) {
            if c < 64 { low |= 1 << UInt64(c) } else { high |= 1 << UInt64(c - 64) }
        }

        private func contains(_ c: UInt32) -> Bool {
            c < 64 ? low & 1 << UInt64(c) != 0 : high & 1 << UInt64(c - 64) != 0
        }

        @inline(__always)
        func matches(_ c: UInt32) -> Bool {
            if any { return !(c == 0x0A || c == 0x0B || c == 0x0C || c == 0x0D || c == 0x85 || c == 0x2028 || c == 0x2029) }
            let member = c < 128 ? contains(c) : (c == 0x17F && longS) || (c == 0x212A && kelvin)
            return member != negated
        }
    }

    /// The atoms in order; `repeats`: may match again (`*`, the second half of `+`);
    /// `optional`: may be skipped (`*`, `?`).
    private var atoms: [(atom: Atom, repeats: Bool, optional: Bool)] = []

    init?(_ pattern: String, caseInsensitive: Bool = false) {
        let bytes = Array(pattern.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            let atom: Atom
            switch byte {
            case UInt8(ascii: "."):
                atom = Atom(any: true)
                i += 1
            case UInt8(ascii: "["):
                guard let (ranges, negated, end) = Self.set(bytes, from: i) else { return nil }
                atom = Atom(ranges: ranges, negated: negated, caseInsensitive: caseInsensitive)
                i = end
            default:
                // ASCII printable characters with no meaning in ICU's syntax (outside a class).
                guard byte >= 0x20, byte < 0x7F, !"\\^$|?*+()[]{}#".utf8.contains(byte) else { return nil }
                atom = Atom(ranges: [UInt32(byte)...UInt32(byte)], negated: false, caseInsensitive: caseInsensitive)
                i += 1
            }
            let quantifier = i < bytes.count ? bytes[i] : 0
            switch quantifier {
            case UInt8(ascii: "*"): atoms.append((atom, true, true))
            case UInt8(ascii: "?"): atoms.append((atom, false, true))
            case UInt8(ascii: "+"):
                atoms.append((atom, false, false))
                atoms.append((atom, true, true))
            case UInt8(ascii: "{"): return nil
            default: atoms.append((atom, false, false))
            }
            if quantifier == UInt8(ascii: "*") || quantifier == UInt8(ascii: "?") || quantifier == UInt8(ascii: "+") {
                i += 1
                // Lazy (`*?`), possessive (`*+`) and stacked quantifiers are ICU's.
                if i < bytes.count, "*?+{".utf8.contains(bytes[i]) { return nil }
            }
            guard atoms.count < 64 else { return nil }
        }
    }

    /// A class of ASCII letters and digits and ranges between them, `^` first to negate;
    /// nil for anything else (ICU's classes have much more syntax).
    private static func set(_ bytes: [UInt8], from start: Int) -> ([ClosedRange<UInt32>], Bool, Int)? {
        func isMember(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
        var i = start + 1
        let negated = i < bytes.count && bytes[i] == UInt8(ascii: "^")
        if negated { i += 1 }
        var ranges: [ClosedRange<UInt32>] = []
        while i < bytes.count, bytes[i] != UInt8(ascii: "]") {
            guard isMember(bytes[i]) else { return nil }
            let low = UInt32(bytes[i])
            if i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "-"), isMember(bytes[i + 2]) {
                let high = UInt32(bytes[i + 2])
                guard low <= high else { return nil }
                ranges.append(low...high)
                i += 3
            } else {
                ranges.append(low...low)
                i += 1
            }
        }
        guard i < bytes.count, !ranges.isEmpty else { return nil }
        return (ranges, negated, i + 1)
    }

    /// Whether the whole text matches.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(utf8: $0) }
    }

    /// Whether the whole text of these UTF-8 bytes matches (invalid bytes read as U+FFFD, through
    /// a Swift string; valid ones decoded where they are).
    func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard TextMatching.isValidUTF8(bytes) else {
            return run(String(decoding: bytes, as: UTF8.self).unicodeScalars.lazy.map(\.value))
        }
        return run(ValidUTF8Scalars(bytes: bytes))
    }

    /// Steps the set of positions (bit i: before atom i; bit count: matched) once per character.
    private func run<Characters: Sequence<UInt32>>(_ characters: Characters) -> Bool {
        var states = closure(1)
        for c in characters {
            var next: UInt64 = 0
            var pending = states
            while pending != 0 {
                let i = pending.trailingZeroBitCount
                pending &= pending - 1
                guard i < atoms.count, atoms[i].atom.matches(c) else { continue }
                next |= atoms[i].repeats ? 1 << UInt64(i) : 1 << UInt64(i + 1)
            }
            states = closure(next)
            if states == 0 { return false }
        }
        return states & (1 << UInt64(atoms.count)) != 0
    }

    /// The positions reachable by skipping optional atoms.
    private func closure(_ states: UInt64) -> UInt64 {
        var result = states
        for i in atoms.indices where result & (1 << UInt64(i)) != 0 && atoms[i].optional {
            result |= 1 << UInt64(i + 1)
        }
        return result
    }
}

/// The scalar values of valid UTF-8, decoded in place.
private struct ValidUTF8Scalars: Sequence, IteratorProtocol {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0

    mutating func next() -> UInt32? {
        guard i < bytes.count else { return nil }
        let lead = bytes[i]
        if lead < 0x80 {
            i += 1
            return UInt32(lead)
        }
        guard let (value, length) = TextMatching.scalar(in: bytes, at: i) else { return nil }
        i += length
        return value
    }
}
