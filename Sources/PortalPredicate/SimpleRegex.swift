/// A matcher for the simplest MATCHES patterns — ASCII literals, `.`, classes of ASCII letters
/// and digits (`[a-z0-9]`, `[^ab]`), each optionally followed by `*`, `+` or `?` — that answers
/// as ICU does without leaving Swift: a set of pattern positions stepped once per character
/// (never backtracking). Any other pattern is ICU's (nil from `init`). A differential test
/// checks it against ICU on generated patterns and texts.
struct SimpleRegex: Sendable {
    private enum Atom: Sendable {
        case literal(UInt32)
        /// `.`: any character but a line terminator.
        case any
        /// ASCII ranges, or everything outside them when negated.
        case set([ClosedRange<UInt32>], negated: Bool)

        func matches(_ c: UInt32) -> Bool {
            switch self {
            case .literal(let l): return c == l
            case .any: return !(c == 0x0A || c == 0x0B || c == 0x0C || c == 0x0D || c == 0x85 || c == 0x2028 || c == 0x2029)
            case .set(let ranges, let negated): return ranges.contains { $0.contains(c) } != negated
            }
        }
    }

    /// The atoms in order; `repeats`: may match again (`*`, the second half of `+`);
    /// `optional`: may be skipped (`*`, `?`).
    private var atoms: [(atom: Atom, repeats: Bool, optional: Bool)] = []

    init?(_ pattern: String) {
        let bytes = Array(pattern.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            let atom: Atom
            switch byte {
            case UInt8(ascii: "."):
                atom = .any
                i += 1
            case UInt8(ascii: "["):
                guard let (set, end) = Self.set(bytes, from: i) else { return nil }
                atom = set
                i = end
            default:
                // ASCII printable characters with no meaning in ICU's syntax (outside a class).
                guard byte >= 0x20, byte < 0x7F, !"\\^$|?*+()[]{}#".utf8.contains(byte) else { return nil }
                atom = .literal(UInt32(byte))
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
    private static func set(_ bytes: [UInt8], from start: Int) -> (Atom, Int)? {
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
        return (.set(ranges, negated: negated), i + 1)
    }

    /// Whether the whole text matches.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(utf8: $0) }
    }

    /// Whether the whole text of these UTF-8 bytes matches (invalid bytes read as U+FFFD).
    func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.allSatisfy({ $0 < 0x80 }) { return run(bytes.lazy.map(UInt32.init)) }
        return run(String(decoding: bytes, as: UTF8.self).unicodeScalars.lazy.map(\.value))
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
