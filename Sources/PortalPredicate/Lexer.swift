/// The tokens of the predicate language, cut from the UTF-8 bytes of the text.
///
/// Positions are byte offsets; `Lexer.characterRange` turns them into the character ranges that
/// `PortalPredicateError` reports, only when an error is made (so lexing stays on bytes).
struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        /// A plain identifier that is not a reserved word, as written.
        case identifier(String)
        /// A reserved word, uppercased.
        case reserved(String)
        /// `#name` or `#"any text"`: a key that may be a reserved word.
        case escapedName(String)
        /// `@count`-style key, including the `@`.
        case atKey(String)
        /// `$name` or `$"any text"`, without the `$`.
        case variable(String)
        /// `%@`, `%K`, `%d`, … as written.
        case formatArgument(String)
        case string(String)
        /// A decimal, hexadecimal, octal or binary integer that fits in 64 unsigned bits.
        case integer(UInt64)
        case real(Double)
        /// A number in plain decimal notation that no double writes back as it is written
        /// (`4.10`, `12345678901234567890.5`, an integer past 64 bits).
        case decimal(ExactDecimal)
        /// `X'0A0B'`: a blob literal (SQLite's notation, our addition for round trips).
        case blob([UInt8])
        /// Punctuation and symbolic operators: `( ) { } [ ] , . + - * / ** == = != <> < <= =< > >= => && || !`.
        case symbol(String)
        case end
    }
    var kind: Kind
    /// Byte offsets in the UTF-8 text.
    var range: Range<Int>
}

/// Reserved words of the language (case-insensitive).
let reservedWords: Set<String> = [
    "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "MATCHES", "CONTAINS",
    "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO",
    "FIRST", "LAST", "SIZE", "SUBQUERY", "CAST", "TRUEPREDICATE", "FALSEPREDICATE",
]

struct Lexer {
    let text: String
    private let bytes: [UInt8]
    private var offset = 0

    init(_ text: String) {
        self.text = text
        self.bytes = Array(text.utf8)
    }

    /// All tokens, ending with `.end`.
    static func tokenize(_ text: String) throws(PortalPredicateError) -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        let ask = PredicateInterruption.requested
        while true {
            try PredicateInterruption.poll(tokens.count &+ 1, ask)
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    /// The character range (grapheme clusters) of a byte range of `text`.
    static func characterRange(_ range: Range<Int>, in text: String) -> Range<Int> {
        let utf8 = text.utf8
        func characters(_ byteOffset: Int) -> Int {
            let clamped = min(max(byteOffset, 0), utf8.count)
            let index = utf8.index(utf8.startIndex, offsetBy: clamped)
            return text[..<index].count
        }
        let lower = characters(range.lowerBound)
        return lower..<max(lower, characters(range.upperBound))
    }

    private func peek(_ ahead: Int = 0) -> UInt8? {
        offset + ahead < bytes.count ? bytes[offset + ahead] : nil
    }

    private func error(_ message: String, from start: Int) -> PortalPredicateError {
        PortalPredicateError(.syntax, message,
                       range: Lexer.characterRange(start..<max(offset, start + 1), in: text))
    }

    static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b >= 0x80
    }

    static func isIdentifierByte(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || (b >= 0x30 && b <= 0x39)
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    mutating func next() throws(PortalPredicateError) -> Token {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C || b == 0x0B {
            offset += 1
        }
        let start = offset
        guard let b = peek() else { return Token(kind: .end, range: start..<start) }
        let kind: Token.Kind
        switch b {
        case 0x22, 0x27: // " '
            kind = .string(try string())
        case _ where Lexer.isDigit(b):
            kind = try number()
        case _ where (b == 0x58 || b == 0x78) && (peek(1) == 0x27 || peek(1) == 0x22): // X'…'
            offset += 1
            kind = .blob(try blob(start: start))
        case _ where isCurlyQuote():
            offset += 3
            throw error("'\(String(decoding: bytes[start..<offset], as: UTF8.self))' is a typographic quote: "
                        + "write strings in straight quotes (\"…\" or '…')", from: start)
        case _ where Lexer.isIdentifierStart(b):
            let word = identifier()
            let upper = word.uppercased()
            kind = reservedWords.contains(upper) ? .reserved(upper) : .identifier(word)
        case 0x23: // #
            offset += 1
            kind = .escapedName(try nameAfterSigil(start: start, sigil: "#"))
        case 0x24: // $
            offset += 1
            kind = .variable(try nameAfterSigil(start: start, sigil: "$"))
        case 0x40: // @
            offset += 1
            guard let c = peek(), Lexer.isIdentifierStart(c) else {
                throw error("expected a name after '@'", from: start)
            }
            kind = .atKey("@" + identifier())
        case 0x25: // %
            kind = .formatArgument(try formatArgument(start: start))
        default:
            kind = .symbol(try symbol(start: start))
        }
        return Token(kind: kind, range: start..<offset)
    }

    private mutating func identifier() -> String {
        let start = offset
        while let b = peek(), Lexer.isIdentifierByte(b) { offset += 1 }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// After `#` or `$`: an identifier, or a quoted string for any other text.
    private mutating func nameAfterSigil(start: Int, sigil: String) throws(PortalPredicateError) -> String {
        if let c = peek(), c == 0x22 || c == 0x27 { return try string() }
        guard let c = peek(), Lexer.isIdentifierStart(c) else {
            throw error("expected a name after '\(sigil)'", from: start)
        }
        return identifier()
    }

    /// printf's length modifiers, longest first.
    private static let lengthModifiers = ["hh", "ll", "h", "l", "q", "L", "z", "t", "j"]
    /// The conversions Apple's format strings accept besides `%@` and `%K`.
    private static let conversions = Set("diouxXDOUcCeEfFgGaAsSp".utf8)

    /// `%@`, `%K`, or a printf specifier: an optional length modifier and a conversion (`%lu`,
    /// `%hd`, `%lf`, `%la`, `%e`, …).
    private mutating func formatArgument(start: Int) throws(PortalPredicateError) -> String {
        offset += 1
        if let b = peek(), b == 0x40 || b == 0x4B { // @ K
            offset += 1
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }
        for modifier in Lexer.lengthModifiers {
            let modifierBytes = Array(modifier.utf8)
            if offset + modifierBytes.count <= bytes.count,
               bytes[offset..<(offset + modifierBytes.count)].elementsEqual(modifierBytes) {
                offset += modifierBytes.count
                break
            }
        }
        guard let conversion = peek(), Lexer.conversions.contains(conversion) else {
            offset = min(offset + 1, bytes.count)
            throw error("unknown format argument; expected %@, %K or a printf specifier such as %d, %ld, %lu, %f or %s",
                        from: start)
        }
        offset += 1
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private mutating func symbol(start: Int) throws(PortalPredicateError) -> String {
        let one = bytes[offset]
        let next = peek(1)
        // Two-byte operators first: ** == != <> <= =< >= => && || << >>
        let two: String? = switch (one, next) {
        case (0x3C, 0x3C): "<<"
        case (0x3E, 0x3E): ">>"
        case (0x2A, 0x2A): "**"
        case (0x3D, 0x3D): "=="
        case (0x21, 0x3D): "!="
        case (0x3C, 0x3E): "<>"
        case (0x3C, 0x3D): "<="
        case (0x3D, 0x3C): "=<"
        case (0x3E, 0x3D): ">="
        case (0x3D, 0x3E): "=>"
        case (0x26, 0x26): "&&"
        case (0x7C, 0x7C): "||"
        default: nil
        }
        if let two {
            offset += 2
            return two
        }
        switch one {
        case 0x28, 0x29, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x2E, 0x2B, 0x2D, 0x2A, 0x2F, 0x3D, 0x3C, 0x3E, 0x21,
             0x26, 0x7C, 0x5E, 0x3A: // & | ^ :
            offset += 1
            return String(UnicodeScalar(one))
        default:
            // Report the whole character, not one byte of it.
            let index = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
            let character = text[index...].first.map(String.init) ?? "?"
            offset += max(1, character.utf8.count)
            throw error("unexpected character '\(character)'", from: start)
        }
    }

    /// Whether a quote a word processor puts in place of `"` or `'` starts here: U+2018–U+201E
    /// (‘ ’ ‚ ‛ “ ” „), three bytes in UTF-8.
    private func isCurlyQuote() -> Bool {
        peek() == 0xE2 && peek(1) == 0x80 && (0x98...0x9E).contains(peek(2) ?? 0)
    }

    private mutating func string() throws(PortalPredicateError) -> String {
        let start = offset
        let quote = bytes[offset]
        offset += 1
        var result: [UInt8] = []
        while true {
            guard let b = peek() else { throw error("unterminated string", from: start) }
            offset += 1
            if b == quote {
                // SQL's doubled quote ('It''s') is not an escape here: say what is.
                if peek() == quote {
                    offset += 1
                    let q = String(UnicodeScalar(quote))
                    throw error("two quotes in a row do not escape a quote here: write \\\(q) inside \(q)…\(q)", from: offset - 2)
                }
                break
            }
            if b != 0x5C { result.append(b); continue }
            guard let e = peek() else { throw error("unterminated string", from: start) }
            offset += 1
            switch e {
            case 0x22, 0x27, 0x5C: result.append(e)
            case 0x6E: result.append(0x0A)   // n
            case 0x74: result.append(0x09)   // t
            case 0x72: result.append(0x0D)   // r
            case 0x30: result.append(0x00)   // 0
            case 0x75: result.append(contentsOf: Array(String(Character(try unicodeEscape(start: offset - 2))).utf8))
            default:
                // Any other escape is kept as written, so regular expressions such as "\d+" work.
                result.append(0x5C)
                result.append(e)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`.
    private mutating func unicodeEscape(start: Int) throws(PortalPredicateError) -> Unicode.Scalar {
        let high = try fourHex(start: start)
        if (0xD800...0xDBFF).contains(high), peek() == 0x5C, peek(1) == 0x75 {
            offset += 2
            let low = try fourHex(start: start)
            if (0xDC00...0xDFFF).contains(low),
               let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                return scalar
            }
        }
        guard let scalar = Unicode.Scalar(high) else {
            throw error("\\u escape is not a Unicode scalar", from: start)
        }
        return scalar
    }

    private mutating func fourHex(start: Int) throws(PortalPredicateError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = peek(), let digit = Lexer.hexValue(b) else {
                throw error("expected four hexadecimal digits after \\u", from: start)
            }
            value = value * 16 + UInt32(digit)
            offset += 1
        }
        return value
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    private mutating func blob(start: Int) throws(PortalPredicateError) -> [UInt8] {
        let quote = bytes[offset]
        offset += 1
        var result: [UInt8] = []
        var pending: UInt8?
        while true {
            guard let b = peek() else { throw error("unterminated blob literal", from: start) }
            offset += 1
            if b == quote { break }
            guard let digit = Lexer.hexValue(b) else {
                throw error("a blob literal holds hexadecimal digits only", from: start)
            }
            if let high = pending { result.append(high << 4 | digit); pending = nil } else { pending = digit }
        }
        if pending != nil { throw error("a blob literal needs an even number of hexadecimal digits", from: start) }
        return result
    }

    private mutating func number() throws(PortalPredicateError) -> Token.Kind {
        let start = offset
        if bytes[offset] == 0x30, let radixByte = peek(1) {
            let radix: UInt64? = switch radixByte {
            case 0x78, 0x58: 16
            case 0x6F, 0x4F: 8
            case 0x62, 0x42: 2
            default: nil
            }
            if let radix {
                offset += 2
                return .integer(try radixDigits(radix, start: start))
            }
        }
        while let b = peek(), Lexer.isDigit(b) { offset += 1 }
        var isReal = false
        var hasExponent = false
        if peek() == 0x2E, let d = peek(1), Lexer.isDigit(d) {
            isReal = true
            offset += 1
            while let b = peek(), Lexer.isDigit(b) { offset += 1 }
        }
        if let e = peek(), e == 0x65 || e == 0x45 {
            isReal = true
            hasExponent = true
            offset += 1
            if let sign = peek(), sign == 0x2B || sign == 0x2D { offset += 1 }
            guard let d = peek(), Lexer.isDigit(d) else { throw error("malformed number: expected digits in the exponent", from: start) }
            while let b = peek(), Lexer.isDigit(b) { offset += 1 }
        }
        if let b = peek(), Lexer.isIdentifierByte(b) {
            offset += 1
            throw error("malformed number", from: start)
        }
        let literal = String(decoding: bytes[start..<offset], as: UTF8.self)
        if !isReal, let value = UInt64(literal) { return .integer(value) }
        if !hasExponent, let decimal = ExactDecimal.literal(literal) { return .decimal(decimal) }
        guard let value = Double(literal) else { throw error("malformed number", from: start) }
        return .real(value)
    }

    private mutating func radixDigits(_ radix: UInt64, start: Int) throws(PortalPredicateError) -> UInt64 {
        var value: UInt64 = 0
        var count = 0
        while let b = peek(), Lexer.isIdentifierByte(b) {
            guard let digit = Lexer.hexValue(b), UInt64(digit) < radix else {
                offset += 1
                throw error("malformed number: unexpected digit", from: start)
            }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: radix)
            let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2, sum <= UInt64(Int64.max) else {
                offset += 1
                throw error("number too large for a 64-bit integer", from: start)
            }
            value = sum
            count += 1
            offset += 1
        }
        if count == 0 { throw error("malformed number: expected digits after the prefix", from: start) }
        return value
    }
}
