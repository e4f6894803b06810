import PortalPredicate

/// A Swift predicate closure written as text, as a developer copies it from a `#Predicate`:
/// `{ $0.Milliseconds > 300_000 && $0.album?.Title.starts(with: "A") == true }`, with or without
/// `#Predicate<Track>` before it, with `$0` or a named parameter. Parsed by hand (no Swift
/// compiler at run time) into the engine's predicate tree, by the same translator methods as a
/// compiled `#Predicate`, names resolved against the schema (case-insensitively).
public enum SwiftClosurePredicate {
    /// True when `text` is a closure rather than NSPredicate text: it starts with `#Predicate`, or
    /// with a `{` whose matching `}` ends it (an NSPredicate aggregate `{1, 2} CONTAINS x` goes on).
    public static func isClosure(_ text: String) -> Bool {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.hasPrefix("#Predicate") { return true }
        guard trimmed.first == "{" else { return false }
        var depth = 0
        var inString = false
        var escaped = false
        var rest = trimmed.makeIterator()
        var closedAtEnd = false
        while let character = rest.next() {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            if closedAtEnd { if !character.isWhitespace { return false } else { continue } }
            switch character {
            case "\"": inString = true
            case "{": depth += 1
            case "}":
                depth -= 1
                if depth == 0 { closedAtEnd = true }
            default: break
            }
        }
        return closedAtEnd
    }

    /// The tree of the closure over `entity`; errors carry the range of the culprit in `text`.
    public static func tree(_ text: String, entity: EntityDescription, schema: Schema) throws(PortalPredicateError) -> PredicateTree {
        var parser = try SwiftClosureParser(text, entity: entity, schema: schema)
        return try parser.parse()
    }
}

/// A token of Swift closure text.
struct SwiftToken {
    enum Kind { case identifier, number, string, symbol, end }
    var kind: Kind
    var text: String
    /// In characters from the start of the text.
    var range: Range<Int>
    /// Whitespace (or the start) right before it: `a !b` is not `a!`.
    var spaceBefore: Bool
}

struct SwiftClosureParser {
    private var tokens: [SwiftToken]
    private var index = 0
    private var translator = FoundationPredicateTranslator()
    private let entity: EntityDescription
    private let schema: Schema
    /// The closures' parameters, innermost last: `$0` is the innermost one.
    private var parameters: [(name: String?, value: TranslatedExpression)] = []
    private var depth = 0
    private static let maximumDepth = 100
    /// Whether to stop a long parse (`PredicateInterruption`), asked along long chains.
    private let interruption = PredicateInterruption.requested

    init(_ text: String, entity: EntityDescription, schema: Schema) throws(PortalPredicateError) {
        tokens = try Self.tokens(Array(text))
        self.entity = entity
        self.schema = schema
    }

    // MARK: Tokens

    private static let symbols = ["...", "..<", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "->",
                                  "<", ">", "!", "?", ":", ".", ",", "(", ")", "[", "]", "{", "}", "+", "-", "*", "/", "%", "#"]

    private static let symbolCharacters = symbols.map(Array.init)

    private static func tokens(_ characters: [Character]) throws(PortalPredicateError) -> [SwiftToken] {
        var tokens: [SwiftToken] = []
        var i = 0
        var space = true
        let interruption = PredicateInterruption.requested
        while i < characters.count {
            try PredicateInterruption.poll(tokens.count &+ 1, interruption)
            let c = characters[i]
            if c.isWhitespace { space = true; i += 1; continue }
            let start = i
            if c == "\"" {
                var text = ""
                i += 1
                while true {
                    guard i < characters.count, characters[i] != "\n" else {
                        throw PortalPredicateError(.syntax, "unterminated string", range: start..<i)
                    }
                    let d = characters[i]
                    if d == "\"" { i += 1; break }
                    if d == "\\", i + 1 < characters.count {
                        let e = characters[i + 1]
                        i += 2
                        switch e {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "r": text.append("\r")
                        case "0": text.append("\0")
                        case "\"", "\\", "'": text.append(e)
                        case "u":
                            guard i < characters.count, characters[i] == "{",
                                  let close = characters[i...].firstIndex(of: "}"),
                                  let code = UInt32(String(characters[(i + 1)..<close]), radix: 16),
                                  let scalar = Unicode.Scalar(code) else {
                                throw PortalPredicateError(.syntax, "expected \\u{hex} in a string", range: (i - 2)..<i)
                            }
                            text.unicodeScalars.append(scalar)
                            i = close + 1
                        default: throw PortalPredicateError(.syntax, "unknown escape \\\(e) in a string", range: (i - 2)..<i)
                        }
                        continue
                    }
                    text.append(d)
                    i += 1
                }
                tokens.append(SwiftToken(kind: .string, text: text, range: start..<i, spaceBefore: space))
            } else if c.isNumber && c.isASCII {
                while i < characters.count, characters[i].isASCII, characters[i].isNumber || characters[i] == "_" || characters[i] == "."
                        && i + 1 < characters.count && characters[i + 1].isNumber || characters[i] == "e" || characters[i] == "E" {
                    i += 1
                }
                tokens.append(SwiftToken(kind: .number, text: String(characters[start..<i]).replacingOccurrences(of: "_", with: ""),
                                         range: start..<i, spaceBefore: space))
            } else if c.isLetter || c == "_" || c == "$" || c == "`" {
                i += 1
                while i < characters.count, characters[i].isLetter || characters[i].isNumber || characters[i] == "_" || characters[i] == "`" {
                    i += 1
                }
                let text = String(characters[start..<i]).replacingOccurrences(of: "`", with: "")
                tokens.append(SwiftToken(kind: .identifier, text: text, range: start..<i, spaceBefore: space))
            } else if let symbol = symbolCharacters.first(where: { symbol in
                symbol.count <= characters.count - i && characters[i..<(i + symbol.count)].elementsEqual(symbol)
            }) {
                i += symbol.count
                tokens.append(SwiftToken(kind: .symbol, text: String(symbol), range: start..<i, spaceBefore: space))
            } else {
                throw PortalPredicateError(.syntax, "unexpected '\(c)' in a Swift closure", range: start..<(start + 1))
            }
            space = false
        }
        tokens.append(SwiftToken(kind: .end, text: "the end", range: characters.count..<characters.count, spaceBefore: true))
        return tokens
    }

    private var current: SwiftToken { tokens[index] }
    private func peek(_ offset: Int = 1) -> SwiftToken { tokens[min(index + offset, tokens.count - 1)] }

    private func isSymbol(_ text: String) -> Bool { current.kind == .symbol && current.text == text }

    private mutating func take(_ text: String) -> Bool {
        guard isSymbol(text) else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ text: String, _ what: String) throws(PortalPredicateError) {
        guard take(text) else { throw error("expected \(what)") }
    }

    private func error(_ message: String, _ token: SwiftToken? = nil) -> PortalPredicateError {
        let token = token ?? current
        let found = token.kind == .end ? "the end" : token.kind == .string ? "a string" : "'\(token.text)'"
        return PortalPredicateError(.syntax, "\(message) (found \(found))", range: token.range)
    }

    /// Errors of the translator, placed at `token` when they have no place of their own.
    private func at<T>(_ token: SwiftToken, _ body: () throws -> T) throws(PortalPredicateError) -> T {
        do { return try body() } catch var error as PortalPredicateError {
            if error.range == nil { error.range = token.range }
            throw error
        } catch {
            throw PortalPredicateError(.syntax, "\(error)", range: token.range)
        }
    }

    // MARK: Closure

    mutating func parse() throws(PortalPredicateError) -> PredicateTree {
        if take("#") {
            guard current.kind == .identifier, current.text == "Predicate" else { throw error("expected Predicate after '#'") }
            index += 1
            if take("<") {
                let name = current
                guard name.kind == .identifier else { throw error("expected an entity name after '<'") }
                // A type of the app's own name is taken as the entity's; the name of another
                // entity of the schema is a mistake.
                let other = schema.entities.first { Self.typeName($0.name) == Self.typeName(name.text) }
                guard other == nil || other?.name == entity.name else {
                    throw PortalPredicateError(.invalidOperation, "the predicate is over \(name.text), not \(entity.name)", range: name.range)
                }
                index += 1
                try expect(">", "'>' after the entity name")
            }
        }
        let opening = current
        let body = try closure(over: .row(prefix: nil, type: .schema(entity)))
        guard current.kind == .end else { throw error("expected the end after the closure") }
        return try at(opening) { try translator.predicate(body) }
    }

    /// A name without its separators, lowercased: `invoice_items` and `InvoiceItems` match.
    static func typeName(_ name: String) -> String {
        name.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).joined().lowercased()
    }

    /// `{ [parameter in] [return] expression }` with `element` as its parameter.
    private mutating func closure(over element: TranslatedExpression) throws(PortalPredicateError) -> TranslatedExpression {
        try expect("{", "'{' to open the closure")
        parameters.append((try parameterName(), element))
        defer { parameters.removeLast() }
        if current.kind == .identifier, current.text == "return" { index += 1 }
        if current.kind == .identifier, ["if", "guard", "let", "var", "switch"].contains(current.text) {
            throw PortalPredicateError(.unsupported, "'\(current.text)' statements are not supported here: write one expression "
                                       + "(with ?: and ?? for choices)", range: current.range)
        }
        let body = try expression()
        try expect("}", "'}' to close the closure")
        return body
    }

    /// `name in`, `_ in`, `(name) in`, `name: Type in`; nil when the closure uses `$0`.
    private mutating func parameterName() throws(PortalPredicateError) -> String? {
        var lookahead = index
        while lookahead < tokens.count, lookahead - index < 8 {
            let token = tokens[lookahead]
            if token.kind == .identifier && token.text == "in" { break }
            guard token.kind == .identifier || [":", "(", ")", "<", ">", ".", ",", "?"].contains(token.text) && token.kind == .symbol else {
                return nil
            }
            lookahead += 1
        }
        guard lookahead < tokens.count, tokens[lookahead].kind == .identifier, tokens[lookahead].text == "in" else { return nil }
        let name = tokens[index..<lookahead].first { $0.kind == .identifier }?.text
        index = lookahead + 1
        return name == "_" ? nil : name
    }

    // MARK: Expressions, loosest first (Swift's precedence groups)

    /// One more level of nesting (parentheses, closures, `!`, `-`, `??`): past the limit an
    /// error, never a stack overflow, whatever the text.
    private mutating func nest() throws(PortalPredicateError) {
        depth += 1
        guard depth < Self.maximumDepth else {
            throw PortalPredicateError(.tooDeep, "the closure nests deeper than \(Self.maximumDepth) levels", range: current.range)
        }
    }

    private mutating func expression() throws(PortalPredicateError) -> TranslatedExpression {
        try nest()
        defer { depth -= 1 }
        let condition = try disjunction()
        guard isSymbol("?") else { return condition }
        let question = current
        index += 1
        let yes = try expression()
        try expect(":", "':' in the conditional expression")
        let no = try expression()
        return try at(question) { try translator.conditional(translator.predicate(condition), yes, no) }
    }

    /// `a || b || …` as one list (built once: a chain of thousands stays linear).
    private mutating func disjunction() throws(PortalPredicateError) -> TranslatedExpression {
        let first = try conjunction()
        guard isSymbol("||") else { return first }
        var operands = [try at(current) { try translator.predicate(first) }]
        while isSymbol("||") {
            let op = current
            index += 1
            try PredicateInterruption.poll(operands.count, interruption)
            let next = try conjunction()
            operands.append(try at(op) { try translator.predicate(next) })
        }
        return .predicate(.or(operands))
    }

    private mutating func conjunction() throws(PortalPredicateError) -> TranslatedExpression {
        let first = try comparison()
        guard isSymbol("&&") else { return first }
        var operands = [try at(current) { try translator.predicate(first) }]
        while isSymbol("&&") {
            let op = current
            index += 1
            try PredicateInterruption.poll(operands.count, interruption)
            let next = try comparison()
            operands.append(try at(op) { try translator.predicate(next) })
        }
        return .predicate(.and(operands))
    }

    private mutating func comparison() throws(PortalPredicateError) -> TranslatedExpression {
        let left = try coalescing()
        let op = current
        // Swift's comparison symbols are the language's own operators' spellings.
        guard op.kind == .symbol, let comparison = ComparisonOperator(rawValue: op.text) else { return left }
        index += 1
        let right = try coalescing()
        return try at(op) {
            switch comparison {
            case .equal: return .predicate(try translator.equal(left, right))
            case .notEqual: return .predicate(try translator.notEqual(left, right))
            default: return .predicate(try translator.compare(left, comparison, right))
            }
        }
    }

    private mutating func coalescing() throws(PortalPredicateError) -> TranslatedExpression {
        let left = try range()
        guard isSymbol("??") else { return left }
        let op = current
        index += 1
        try nest()
        defer { depth -= 1 }
        let right = try coalescing()
        return try at(op) { try translator.coalesce(left, right) }
    }

    private mutating func range() throws(PortalPredicateError) -> TranslatedExpression {
        let lower = try additive()
        guard isSymbol("...") || isSymbol("..<") else { return lower }
        let closed = current.text == "..."
        index += 1
        return .range(lower: lower, upper: try additive(), closed: closed)
    }

    private mutating func additive() throws(PortalPredicateError) -> TranslatedExpression {
        var left = try multiplicative()
        while (isSymbol("+") || isSymbol("-")) {
            let op = current
            index += 1
            let right = try multiplicative()
            let arithmetic: ArithmeticOperator = op.text == "+" ? .add : .subtract
            left = try at(op) { try translator.arithmetic(left, right) { .arithmetic($0, arithmetic, $1) } }
        }
        return left
    }

    private mutating func multiplicative() throws(PortalPredicateError) -> TranslatedExpression {
        var left = try prefix()
        while isSymbol("*") || isSymbol("/") || isSymbol("%") {
            let op = current
            index += 1
            let right = try prefix()
            left = try at(op) {
                switch op.text {
                case "*": return try translator.arithmetic(left, right) { .arithmetic($0, .multiply, $1) }
                // Integer operands divide as Swift's Int does, truncating; others as reals.
                case "/" where isInteger(left) && isInteger(right):
                    return try translator.arithmetic(left, right) { .function("trunc", [.arithmetic($0, .divide, $1)]) }
                case "/": return try translator.arithmetic(left, right) { .arithmetic($0, .divide, $1) }
                default:
                    return try translator.arithmetic(left, right) {
                        .arithmetic($0, .subtract, .arithmetic($1, .multiply, .function("trunc", [.arithmetic($0, .divide, $1)])))
                    }
                }
            }
        }
        return left
    }

    /// True for an integer literal and an attribute of integer type (as `generate swift` types it,
    /// `Int64`): Swift's `/` of two integers truncates, of reals does not.
    private func isInteger(_ value: TranslatedExpression) -> Bool {
        switch value {
        case .constant(let number): return number is Int
        case .values(let values): return values.allSatisfy { isInteger($0.expression) }
        default: return false
        }
    }

    private func isInteger(_ expression: ExpressionTree) -> Bool {
        switch expression {
        case .literal(.integer): return true
        case .function("trunc", _): return true
        case .arithmetic(let a, let op, let b): return op != .divide && op != .power && isInteger(a) && isInteger(b)
        case .negate(let inner): return isInteger(inner)
        case .member(_, let name) where name.hasPrefix("@count"): return true
        case .key, .member:
            guard let attribute = attribute(at: expression) else { return false }
            return attribute.declaredType.uppercased().contains("INT") || attribute.modelType.map { $0.contains("Integer") } == true
        default: return false
        }
    }

    /// The attribute a key path from the closure's entity ends at (nil through a subquery variable).
    private func attribute(at expression: ExpressionTree) -> AttributeDescription? {
        var names: [String] = []
        var current = expression
        while case .member(let base, let name) = current {
            names.insert(name, at: 0)
            current = base
        }
        guard case .key(let first) = current else { return nil }
        names.insert(first, at: 0)
        var row = entity
        for name in names.dropLast() {
            guard let relationship = row.relationship(named: name), relationship.kind == .toOne,
                  let next = schema.entity(named: relationship.destination) else { return nil }
            row = next
        }
        return names.last.flatMap { row.attribute(named: $0) }
    }

    private mutating func prefix() throws(PortalPredicateError) -> TranslatedExpression {
        let op = current
        try nest()
        defer { depth -= 1 }
        if take("!") {
            let operand = try prefix()
            return try at(op) { .predicate(.not(try translator.predicate(operand))) }
        }
        if take("-") {
            let operand = try prefix()
            return try at(op) { try translator.negated(operand) }
        }
        return try postfix()
    }

    // MARK: Postfix: members, optional chaining, calls

    private mutating func postfix() throws(PortalPredicateError) -> TranslatedExpression {
        var value = try primary()
        // `a?.b.c`: the chain after `?` runs on `a` unwrapped; nil when `a` is nil.
        var chained: [TranslatedExpression] = []
        while true {
            if isSymbol("!") && !current.spaceBefore && !(peek().kind == .symbol && peek().text == "=") {
                index += 1   // a force unwrap: the value itself
                continue
            }
            let optional = isSymbol("?.")
            guard optional || isSymbol(".") else { break }
            if optional { chained.append(value) }
            index += 1
            let name = current
            guard name.kind == .identifier else { throw error("expected a property or method name after '.'") }
            index += 1
            value = try member(value, name)
        }
        for base in chained.reversed() {
            let result = value
            value = try at(current) { try translator.optionalChain(base, result) }
        }
        return value
    }

    private mutating func member(_ base: TranslatedExpression, _ name: SwiftToken) throws(PortalPredicateError) -> TranslatedExpression {
        if isSymbol("(") || isSymbol("{") { return try call(base, name) }
        switch name.text {
        case "count": return try at(name) { try translator.count(of: base) }
        case "isEmpty": return try at(name) { try translator.isEmpty(base) }
        default: break
        }
        guard case .row(let prefix, .schema(let rowEntity)) = base else {
            throw PortalPredicateError(.unsupported, "'\(name.text)' of a \(FoundationPredicateTranslator.describe(base)) "
                                       + "has no translation to a database query", range: name.range)
        }
        let path = { (schemaName: String) -> ExpressionTree in prefix.map { .member($0, schemaName) } ?? .key(schemaName) }
        if let attribute = rowEntity.attribute(named: name.text) {
            return .values([GuardedValue(condition: nil, expression: path(attribute.name))])
        }
        if let relationship = rowEntity.relationship(named: name.text), let destination = schema.entity(named: relationship.destination) {
            return relationship.kind == .toOne ? .row(prefix: path(relationship.name), type: .schema(destination))
                : .collection(path: path(relationship.name), element: .schema(destination), filter: nil)
        }
        let candidates = rowEntity.attributes.map(\.name) + rowEntity.relationships.map(\.name)
        throw PortalPredicateError(.unknownName, "\(rowEntity.name) has no attribute or relationship named '\(name.text)'",
                                   range: name.range, suggestion: closestName(to: name.text, among: candidates))
    }

    /// The methods Foundation's predicates offer (and Apple's string searches, by their meaning).
    private mutating func call(_ base: TranslatedExpression, _ name: SwiftToken) throws(PortalPredicateError) -> TranslatedExpression {
        if ["contains", "allSatisfy", "filter"].contains(name.text) {
            if isSymbol("{") { return try innerClosure(base, name) }
            if isSymbol("("), peek().kind == .identifier, peek().text == "where" {
                index += 2
                try expect(":", "':' after 'where'")
                let result = try innerClosure(base, name)
                try expect(")", "')' after the closure")
                return result
            }
        }
        try expect("(", "'(' after '\(name.text)'")
        var label: String?
        if current.kind == .identifier, peek().kind == .symbol, peek().text == ":" {
            label = current.text
            index += 2
        }
        let argument: TranslatedExpression? = isSymbol(")") ? nil : try expression()
        try expect(")", "')' to close the call of '\(name.text)'")
        if ["caseInsensitiveCompare", "localizedCaseInsensitiveCompare"].contains(name.text), let argument {
            return try orderedSame(base, argument, name)
        }
        return try at(name) {
            switch (name.text, label, argument) {
            case ("contains", nil, let part?): return try translator.contains(base, part)
            case ("starts", "with", let part?), ("hasPrefix", nil, let part?): return try translator.text(base, .beginsWith, part)
            case ("hasSuffix", nil, let part?): return try translator.text(base, .endsWith, part)
            case ("localizedStandardContains", nil, let part?):
                return try translator.text(base, .contains, part, options: [.caseInsensitive, .diacriticInsensitive])
            case ("localizedCaseInsensitiveContains", nil, let part?):
                return try translator.text(base, .contains, part, options: .caseInsensitive)
            case ("lowercased", nil, nil), ("uppercased", nil, nil):
                let function = name.text == "lowercased" ? "lowercase" : "uppercase"
                return .values(try translator.values(base).map {
                    GuardedValue(condition: $0.condition, expression: .function(function, [$0.expression]))
                })
            default:
                throw PortalPredicateError(.unsupported, "the method '\(name.text)\(label.map { "(\($0):)" } ?? "()")' "
                                           + "has no translation to a database query")
            }
        }
    }

    /// `a.caseInsensitiveCompare(b) == .orderedSame` (or `!=`): Apple's case-insensitive
    /// equality, `==[c]`. Only that comparison has a meaning here, not the order itself.
    private mutating func orderedSame(_ base: TranslatedExpression, _ other: TranslatedExpression,
                                      _ name: SwiftToken) throws(PortalPredicateError) -> TranslatedExpression {
        let op = current
        guard op.kind == .symbol, op.text == "==" || op.text == "!=", peek().text == ".", peek(2).text == "orderedSame" else {
            throw PortalPredicateError(.unsupported, "'\(name.text)' is supported compared with == .orderedSame or != .orderedSame",
                                       range: name.range)
        }
        index += 3
        let equal = try at(name) { try translator.compare(base, .equal, other, options: .caseInsensitive) }
        return .predicate(op.text == "==" ? equal : .not(equal))
    }

    /// `contains { … }`, `allSatisfy { … }`, `filter { … }` over a to-many relationship.
    private mutating func innerClosure(_ base: TranslatedExpression, _ name: SwiftToken) throws(PortalPredicateError) -> TranslatedExpression {
        let element = try at(name) { try translator.element(of: base) }
        let test = try closure(over: element.row)
        return try at(name) {
            switch name.text {
            case "contains": return try translator.containsWhere(element, test)
            case "allSatisfy": return try translator.allSatisfy(element, test)
            default: return try translator.filtered(element, test)
            }
        }
    }

    // MARK: Primaries

    private mutating func primary() throws(PortalPredicateError) -> TranslatedExpression {
        let token = current
        switch token.kind {
        case .number:
            index += 1
            if let integer = Int(token.text) { return .constant(integer) }
            if let real = Double(token.text) { return .constant(real) }
            throw PortalPredicateError(.syntax, "'\(token.text)' is not a number", range: token.range)
        case .string:
            index += 1
            return .constant(token.text)
        case .identifier:
            index += 1
            switch token.text {
            case "true": return .constant(true)
            case "false": return .constant(false)
            case "nil": return .null
            case "$0":
                guard let innermost = parameters.last else { throw error("'$0' outside a closure", token) }
                return innermost.value
            default: break
            }
            if let parameter = parameters.last(where: { $0.name == token.text }) { return parameter.value }
            if token.text.hasPrefix("$"), token.text.count > 1 {
                // The shell's `let` and `--param` variables.
                return .values([GuardedValue(condition: nil, expression: .variable(String(token.text.dropFirst())))])
            }
            throw PortalPredicateError(.unknownName, "unknown name '\(token.text)': a closure here sees its parameters "
                                       + "($0 or a named one), literals and $variables", range: token.range)
        case .symbol:
            if take("(") {
                let inner = try expression()
                try expect(")", "')'")
                return inner
            }
            if take("[") {
                var elements: [Any] = []
                while !isSymbol("]") {
                    let element = current
                    guard case .constant(let value) = try expression() else {
                        throw PortalPredicateError(.unsupported, "an array here holds literals only", range: element.range)
                    }
                    elements.append(value)
                    if !take(",") { break }
                }
                try expect("]", "']' to close the array")
                return .constant(elements)
            }
            if isSymbol("."), peek().kind == .identifier {
                throw PortalPredicateError(.unsupported, "the enum case '.\(peek().text)' has no value here: write its raw value",
                                           range: token.range.lowerBound..<peek().range.upperBound)
            }
            throw error("expected a value")
        case .end:
            throw error("expected a value")
        }
    }
}
