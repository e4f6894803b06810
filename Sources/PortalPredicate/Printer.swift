/// The canonical text of a syntax tree: `PredicateTree.parse(p.description) == p` for every tree the
/// parser can produce.
///
/// Canonical form: reserved words in capitals, `==` and `!=`, one space around binary operators,
/// parentheses only where precedence needs them, strings in double quotes with `\"`, `\\`, `\n`,
/// `\t`, `\r`, `\0` and `\uXXXX` (other control characters) escaped.
///
/// Names: an identifier that is not a reserved word is printed as it is; a reserved word gets a
/// `#` (`#Size`); any other name (spaces, punctuation, a leading digit, empty) is printed as `#`
/// followed by a quoted string (`#"Unit Price"`), which the lexer reads back as a key — our
/// addition to Apple's syntax. Variables follow the same rule with `$` (`$"my var"`). Blobs, which
/// only `%@` arguments can produce, print as SQLite's `X'0A0B'`, which the lexer also reads back.
///
/// Not canonical, so not printed back to themselves: `.negate` of a number literal (the parser
/// folds `-5` into `.literal(-5)`), function names that are not lowercase, and NaN.
enum Printer {
    // Expression precedence levels, loosest first: the binary levels of `ArithmeticOperator.level`
    // (`|`, `^`, `&`, shifts, additive, multiplicative, power), then unary, postfix, primary.
    static let loosest = 1, power = ArithmeticOperator.levels
    static let unary = power + 1, postfix = power + 2, primary = power + 3

    static func predicate(_ p: PredicateTree) -> String {
        var out = ""
        write(p, level: 0, into: &out)
        return out
    }

    // Predicate levels: 0 OR, 1 AND, 2 NOT/primary.
    static func write(_ p: PredicateTree, level: Int, into out: inout String) {
        switch p {
        case .constant(let value):
            out += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .or(let operands):
            // An operand that is itself an OR list keeps its parentheses, so the grouping
            // round-trips.
            parenthesised(level > 0, into: &out) { out in list(operands, " OR ", level: 1, into: &out) }
        case .and(let operands):
            parenthesised(level > 1, into: &out) { out in list(operands, " AND ", level: 2, into: &out) }
        case .not(let inner):
            out += "NOT "
            write(inner, level: 2, into: &out)
        case .comparison(let c):
            write(c, into: &out)
        }
    }

    private static func list(_ operands: [PredicateTree], _ separator: String, level: Int, into out: inout String) {
        for (i, operand) in operands.enumerated() {
            if i > 0 { out += separator }
            write(operand, level: level, into: &out)
        }
    }

    static func write(_ c: Comparison, into out: inout String) {
        if let q = c.quantifier { out += q.rawValue + " " }
        write(c.left, level: loosest, into: &out)
        out += " " + c.op.rawValue
        let letters: [(ComparisonOptions, String)] = [(.caseInsensitive, "c"), (.diacriticInsensitive, "d"),
                                                      (.localeSensitive, "l"), (.normalized, "n")]
        let written = letters.filter { c.options.contains($0.0) }.map(\.1).joined()
        if !written.isEmpty { out += "[" + written + "]" }
        out += " "
        write(c.right, level: loosest, into: &out)
    }

    static func parenthesised(_ needed: Bool, into out: inout String, _ body: (inout String) -> Void) {
        if needed { out += "(" }
        body(&out)
        if needed { out += ")" }
    }

    static func expression(_ e: ExpressionTree) -> String {
        var out = ""
        write(e, level: loosest, into: &out)
        return out
    }

    /// The precedence level an expression prints at.
    static func level(of e: ExpressionTree) -> Int {
        switch e {
        case .arithmetic(_, let op, _):
            return op.level + 1
        case .negate: return unary
        case .literal(.integer(let i)) where i < 0: return unary
        case .literal(.real(let r)) where r.sign == .minus: return unary
        case .literal(.decimal(let d)) where d.text.hasPrefix("-"): return unary
        case .member, .subscript: return postfix
        default: return primary
        }
    }

    static func write(_ e: ExpressionTree, level: Int, into out: inout String) {
        parenthesised(Printer.level(of: e) < level, into: &out) { out in
            writeBare(e, into: &out)
        }
    }

    private static func writeBare(_ e: ExpressionTree, into out: inout String) {
        switch e {
        case .literal(let v): write(v, into: &out)
        case .self: out += "SELF"
        case .variable(let name): out += "$" + (isIdentifier(name) ? name : quoted(name))
        case .key(let name): out += keyName(name)
        case .member(let base, let name):
            write(base, level: postfix, into: &out)
            out += "." + keyName(name)
        case .subscript(let base, let index):
            write(base, level: postfix, into: &out)
            out += "["
            switch index {
            case .first: out += "FIRST"
            case .last: out += "LAST"
            case .size: out += "SIZE"
            case .expression(let i): write(i, level: loosest, into: &out)
            }
            out += "]"
        case .aggregate(let elements):
            out += "{"
            list(elements, into: &out)
            out += "}"
        case .function(let name, let arguments):
            out += name + "("
            list(arguments, into: &out)
            out += ")"
        case .subquery(let collection, let variable, let predicate):
            out += "SUBQUERY("
            write(collection, level: loosest, into: &out)
            out += ", $" + (isIdentifier(variable) ? variable : quoted(variable)) + ", "
            write(predicate, level: 0, into: &out)
            out += ")"
        case .cast(let value, let type):
            out += "CAST("
            write(value, level: loosest, into: &out)
            out += ", " + quoted(type) + ")"
        case .arithmetic(let a, let op, let b):
            // Left-associative: the right operand binds one level tighter. `**` takes a unary
            // right operand, so `2 ** -1` stays unparenthesised.
            let own = level(of: e)
            write(a, level: own, into: &out)
            out += " " + op.rawValue + " "
            write(b, level: own + 1, into: &out)
        case .negate(let operand):
            out += "-"
            write(operand, level: unary, into: &out)
        }
    }

    private static func list(_ elements: [ExpressionTree], into out: inout String) {
        for (i, element) in elements.enumerated() {
            if i > 0 { out += ", " }
            write(element, level: loosest, into: &out)
        }
    }

    static func write(_ v: Value, into out: inout String) {
        switch v {
        case .null: out += "NULL"
        case .integer(let i): out += String(i)
        case .real(let r):
            if r.isInfinite { out += r < 0 ? "-1e999" : "1e999" } else { out += r.description }
        case .decimal(let d): out += d.text
        case .text(let s): out += quoted(s)
        case .blob(let bytes):
            let digits = Array("0123456789ABCDEF".utf8)
            var hex: [UInt8] = []
            for b in bytes { hex.append(digits[Int(b >> 4)]); hex.append(digits[Int(b & 15)]) }
            out += "X'" + String(decoding: hex, as: UTF8.self) + "'"
        }
    }

    /// A string literal in double quotes.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Whether the lexer reads `name` back as one identifier (or one `@key`).
    static func isIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, Lexer.isIdentifierStart(first) else { return false }
        return bytes.allSatisfy(Lexer.isIdentifierByte)
    }

    static func keyName(_ name: String) -> String {
        if name.hasPrefix("@"), isIdentifier(String(name.dropFirst())) { return name }
        guard isIdentifier(name) else { return "#" + quoted(name) }
        if reservedWords.contains(name.uppercased()) { return "#" + name }
        // A blob-looking prefix never matters here: X'…' needs a quote right after the X.
        return name
    }

    static func query(_ q: Query) -> String {
        var out = predicate(q.predicate)
        if !q.sort.isEmpty {
            out += " SORT("
            out += q.sort.map { d in
                d.keyPath.map(keyName).joined(separator: ".") + (d.ascending ? " ASC" : " DESC")
            }.joined(separator: ", ")
            out += ")"
        }
        if let limit = q.limit { out += " LIMIT(\(limit))" }
        return out
    }
}

/// How a name is written in a predicate — and, by the same rule, everywhere in the shell
/// (`where`, `set`, `sort by`, key paths, completion): as it is when it is an identifier that is
/// not a reserved word, `#Size` for a reserved word, `#"Unit Price"` for anything else.
public enum KeyName {
    /// `name` as it must be written to be read back as this one name.
    public static func written(_ name: String) -> String { Printer.keyName(name) }
}

extension PredicateTree: CustomStringConvertible {
    /// The canonical text, which parses back to this tree.
    public var description: String { Printer.predicate(self) }
}

extension ExpressionTree: CustomStringConvertible {
    /// The canonical text, which parses back to this expression.
    public var description: String { Printer.expression(self) }
}

extension Query: CustomStringConvertible {
    /// The canonical text with `SORT(…)` and `LIMIT(…)`, which parses back to this query.
    public var description: String { Printer.query(self) }
}
