/// A hand-written recursive-descent parser for the grammar of docs/predicates.md.
///
/// It never recurses or builds trees without bound: both the nesting of the text and the height
/// of the tree it builds are limited to `maximumDepth`, so the printer, the evaluator, the
/// compiler and even the synthesized `==` of the tree stay well inside the stack.
struct Parser {
    /// The deepest nesting (parentheses, NOT, unary minus, …) and the tallest tree accepted.
    static let maximumDepth = 500

    private let text: String
    private let tokens: [Token]
    private var position = 0
    private var depth = 0
    private let arguments: [Argument]
    private var argumentIndex = 0
    /// Whether to stop a long parse (`PredicateInterruption`), asked along long chains.
    private let interruption = PredicateInterruption.requested

    init(_ text: String, arguments: [Argument]) throws(PortalPredicateError) {
        self.text = text
        self.tokens = try Lexer.tokenize(text)
        self.arguments = arguments
    }

    /// A parsed node with the height of its tree.
    private typealias Node<T> = (value: T, height: Int)

    /// What a parenthesised group or an operand turned out to be.
    private enum Operand {
        case predicate(Node<PredicateTree>)
        case expression(Node<ExpressionTree>)

        var isExpression: Bool { if case .expression = self { return true } else { return false } }
    }

    // MARK: Entry points

    mutating func parsePredicate() throws(PortalPredicateError) -> PredicateTree {
        let predicate = try predicateOperand()
        try expectEnd(allowingClauses: false)
        try checkArgumentsUsed()
        return predicate.value
    }

    mutating func parseQuery() throws(PortalPredicateError) -> Query {
        let predicate = try predicateOperand()
        var query = Query(predicate: predicate.value)
        var sawSort = false, sawLimit = false
        while case .identifier(let word) = current.kind, peekKind(1) == .symbol("(") {
            switch word.uppercased() {
            case "SORT" where !sawSort:
                sawSort = true
                query.sort = try sortClause()
            case "LIMIT" where !sawLimit:
                sawLimit = true
                query.limit = try limitClause()
            default:
                throw unexpected("AND, OR or the end of the predicate")
            }
        }
        try expectEnd(allowingClauses: true)
        try checkArgumentsUsed()
        return query
    }

    /// One expression and nothing after it (the value of the shell's `set KEY = …`).
    mutating func parseExpression() throws(PortalPredicateError) -> ExpressionTree {
        let value = try expression()
        guard current.kind == .end else { throw unexpected("an operator or the end of the value") }
        try checkArgumentsUsed()
        return value.value
    }

    // MARK: Tokens

    private var current: Token { tokens[position] }

    private func peekKind(_ ahead: Int) -> Token.Kind {
        tokens[min(position + ahead, tokens.count - 1)].kind
    }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private func isReserved(_ word: String) -> Bool { current.kind == .reserved(word) }

    private mutating func expectSymbol(_ symbol: String, _ what: String) throws(PortalPredicateError) {
        guard isSymbol(symbol) else { throw unexpected(what) }
        advance()
    }

    /// The source text of a token, for messages.
    private func source(_ token: Token) -> String {
        let utf8 = Array(text.utf8)
        let range = token.range.clamped(to: 0..<utf8.count)
        return String(decoding: utf8[range], as: UTF8.self)
    }

    private func describe(_ token: Token) -> String {
        switch token.kind {
        case .end: return "end of input"
        case .reserved(let word): return word
        default: return "'\(source(token))'"
        }
    }

    private func range(of token: Token) -> Range<Int> {
        let characters = Lexer.characterRange(token.range, in: text)
        // The end of the input is reported as the one column after the text.
        return characters.isEmpty ? characters.lowerBound..<(characters.lowerBound + 1) : characters
    }

    /// "expected X after 'previous' (found Y)", at the current token.
    private func unexpected(_ expected: String) -> PortalPredicateError {
        var message = "expected \(expected)"
        if position > 0 { message += " after \(describe(tokens[position - 1]))" }
        message += " (found \(describe(current)))"
        return PortalPredicateError(.syntax, message, range: range(of: current))
    }

    private func failure(_ kind: PortalPredicateError.Kind, _ message: String, at token: Token,
                         suggestion: String? = nil) -> PortalPredicateError {
        PortalPredicateError(kind, message, range: range(of: token), suggestion: suggestion)
    }

    private mutating func expectEnd(allowingClauses: Bool) throws(PortalPredicateError) {
        guard current.kind == .end else {
            throw unexpected(allowingClauses ? "AND, OR, SORT, LIMIT or the end of the predicate"
                                             : "AND, OR or the end of the predicate")
        }
    }

    // MARK: Limits

    private mutating func descend() throws(PortalPredicateError) {
        depth += 1
        if depth > Parser.maximumDepth {
            throw failure(.tooDeep, "the predicate is nested more than \(Parser.maximumDepth) levels deep", at: current)
        }
    }

    private mutating func ascend() { depth -= 1 }

    /// The height of a new node over children of the given heights, checked against the limit.
    private func height(over children: Int...) throws(PortalPredicateError) -> Int {
        let h = (children.max() ?? 0) + 1
        if h > Parser.maximumDepth {
            throw failure(.tooDeep, "the predicate is nested more than \(Parser.maximumDepth) levels deep", at: current)
        }
        return h
    }

    // MARK: Predicates

    /// A predicate where nothing else may stand.
    private mutating func predicateOperand() throws(PortalPredicateError) -> Node<PredicateTree> {
        guard case .predicate(let p) = try orOperand(allowExpression: false) else {
            throw unexpected("a comparison operator")
        }
        return p
    }

    private mutating func orOperand(allowExpression: Bool) throws(PortalPredicateError) -> Operand {
        try descend()
        defer { ascend() }
        let first = try andOperand(allowExpression: allowExpression)
        guard case .predicate(let left) = first, isReserved("OR") || isSymbol("||") else { return first }
        // A chain is one list, one level high however long it is.
        var operands = [left.value], tallest = left.height
        while isReserved("OR") || isSymbol("||") {
            advance()
            try PredicateInterruption.poll(operands.count, interruption)
            guard case .predicate(let right) = try andOperand(allowExpression: false) else {
                throw unexpected("a comparison operator")
            }
            operands.append(right.value)
            tallest = max(tallest, right.height)
        }
        return .predicate((.or(operands), try height(over: tallest)))
    }

    private mutating func andOperand(allowExpression: Bool) throws(PortalPredicateError) -> Operand {
        let first = try notOperand(allowExpression: allowExpression)
        guard case .predicate(let left) = first, isReserved("AND") || isSymbol("&&") else { return first }
        var operands = [left.value], tallest = left.height
        while isReserved("AND") || isSymbol("&&") {
            advance()
            try PredicateInterruption.poll(operands.count, interruption)
            guard case .predicate(let right) = try notOperand(allowExpression: false) else {
                throw unexpected("a comparison operator")
            }
            operands.append(right.value)
            tallest = max(tallest, right.height)
        }
        return .predicate((.and(operands), try height(over: tallest)))
    }

    private mutating func notOperand(allowExpression: Bool) throws(PortalPredicateError) -> Operand {
        guard isReserved("NOT") || isSymbol("!") else {
            return try comparisonOperand(allowExpression: allowExpression)
        }
        try descend()
        defer { ascend() }
        advance()
        guard case .predicate(let operand) = try notOperand(allowExpression: false) else {
            throw unexpected("a comparison operator")
        }
        return .predicate((.not(operand.value), try height(over: operand.height)))
    }

    /// A comparison, TRUEPREDICATE/FALSEPREDICATE, a parenthesised predicate — or, directly inside
    /// parentheses, a bare expression (`(a + 1) * 2 > 3` starts like `(a > 1)`).
    private mutating func comparisonOperand(allowExpression: Bool) throws(PortalPredicateError) -> Operand {
        if isReserved("TRUEPREDICATE") || isReserved("FALSEPREDICATE") {
            let value = isReserved("TRUEPREDICATE")
            advance()
            return .predicate((.constant(value), 1))
        }
        var quantifier: Quantifier?
        switch current.kind {
        case .reserved("ANY"), .reserved("SOME"): quantifier = .any
        case .reserved("ALL"): quantifier = .all
        case .reserved("NONE"): quantifier = Quantifier.none
        default: break
        }
        let left: Node<ExpressionTree>
        if quantifier != nil {
            advance()
            left = try expression()
        } else if isSymbol("(") {
            switch try group(allowExpression: true) {
            case .predicate(let p): return .predicate(p)
            case .expression(let e): left = try expression(seed: e)
            }
        } else {
            left = try expression()
        }
        guard let op = comparisonOperator() else {
            if quantifier == nil, allowExpression, isSymbol(")") { return .expression(left) }
            throw unexpectedOperator()
        }
        let operatorToken = current
        advance()
        let options = try comparisonOptions()
        guard startsValue else {
            throw failure(.syntax, "expected a value after '\(source(operatorToken))' (found \(describe(current)))",
                          at: current)
        }
        let rightToken = current, rightStart = position
        let right = try expression()
        if op == .matches, case .literal(.text(let pattern)) = right.value, position == rightStart + 1 {
            try checkRegex(pattern, at: rightToken)
        }
        let comparison = Comparison(quantifier: quantifier, left.value, op, options: options, right.value)
        return .predicate((.comparison(comparison), try height(over: left.height, right.height)))
    }

    /// Whether the current token can start an expression (for a better message than the generic one).
    private var startsValue: Bool {
        switch current.kind {
        case .identifier, .escapedName, .atKey, .variable, .formatArgument, .string, .integer, .real, .decimal, .blob:
            return true
        case .reserved(let word):
            return ["NULL", "NIL", "TRUE", "YES", "FALSE", "NO", "SELF", "SUBQUERY", "CAST"].contains(word)
        case .symbol(let s):
            return s == "(" || s == "{" || s == "-"
        case .end:
            return false
        }
    }

    /// A literal pattern of MATCHES is compiled now, so that a bad one is reported under the
    /// pattern with the regular expression engine's reason.
    private func checkRegex(_ pattern: String, at token: Token) throws(PortalPredicateError) {
        if let reason = TextMatching.regexProblem(pattern) {
            throw failure(.invalidOperation, "invalid regular expression for MATCHES: \(reason)", at: token)
        }
    }

    private func unexpectedOperator() -> PortalPredicateError {
        if case .identifier(let word) = current.kind {
            if peekKind(1) == .symbol(":") {
                return failure(.unsupported, "'\(word):' (an Objective-C selector used as an operator) has no meaning on a database",
                               at: current)
            }
            let upper = word.uppercased()
            if ["UNION", "INTERSECT", "MINUS"].contains(upper) {
                return failure(.unsupported, "\(upper) (a set operation on collections) has no meaning on a database", at: current)
            }
            if upper == "UTI" {
                return failure(.unsupported, "the UTI operators (UTI-CONFORMS-TO, UTI-EQUALS) have no meaning on a database", at: current)
            }
        }
        return unexpected("a comparison operator")
    }

    private mutating func group(allowExpression: Bool) throws(PortalPredicateError) -> Operand {
        let open = current
        advance()
        let inner = try orOperand(allowExpression: allowExpression)
        guard isSymbol(")") else {
            throw unexpected(inner.isExpression ? "')' or an operator" : "')' to close the '(' at column \(range(of: open).lowerBound + 1)")
        }
        advance()
        return inner
    }

    private func comparisonOperator() -> ComparisonOperator? {
        switch current.kind {
        case .symbol("=="), .symbol("="): return .equal
        case .symbol("!="), .symbol("<>"): return .notEqual
        case .symbol("<"): return .less
        case .symbol("<="), .symbol("=<"): return .lessOrEqual
        case .symbol(">"): return .greater
        case .symbol(">="), .symbol("=>"): return .greaterOrEqual
        case .reserved("BETWEEN"): return .between
        case .reserved("IN"): return .in
        case .reserved("CONTAINS"): return .contains
        case .reserved("BEGINSWITH"): return .beginsWith
        case .reserved("ENDSWITH"): return .endsWith
        case .reserved("LIKE"): return .like
        case .reserved("MATCHES"): return .matches
        default: return nil
        }
    }

    /// The letters of the options and what each means.
    private static let optionLetters: [Character: ComparisonOptions] = [
        "c": .caseInsensitive, "d": .diacriticInsensitive, "n": .normalized, "l": .localeSensitive,
    ]

    /// `[c]`, `[d]`, `[n]`, `[l]` or a combination (`[cd]`, `[cl]`) right after an operator.
    private mutating func comparisonOptions() throws(PortalPredicateError) -> ComparisonOptions {
        guard isSymbol("[") else { return [] }
        advance()
        guard case .identifier(let word) = current.kind else { throw unexpected("options such as c, d, cd, l or n") }
        var options: ComparisonOptions = []
        for letter in word.lowercased() {
            guard let option = Parser.optionLetters[letter], !options.contains(option) else {
                throw failure(.syntax, "unknown comparison options '\(word)': use the letters c, d, l and n, each once",
                              at: current)
            }
            options.insert(option)
        }
        advance()
        try expectSymbol("]", "']' to close the options")
        return options
    }

    // MARK: Expressions


    /// `seed` is an already parsed parenthesised expression that starts this one.
    private mutating func expression(seed: Node<ExpressionTree>? = nil) throws(PortalPredicateError) -> Node<ExpressionTree> {
        try binary(atLeast: 0, seed: seed)
    }

    /// Precedence climbing over `ArithmeticOperator.level`: one stack frame per operand, not one per level,
    /// so that nesting as deep as the limit stays well inside a thread's stack.
    private mutating func binary(atLeast minimum: Int, seed: Node<ExpressionTree>?) throws(PortalPredicateError) -> Node<ExpressionTree> {
        var left = try unary(seed: seed)
        while case .symbol(let symbol) = current.kind, let op = ArithmeticOperator(rawValue: symbol), op.level >= minimum {
            advance()
            let right = try binary(atLeast: op.level + 1, seed: nil)
            left = (.arithmetic(left.value, op, right.value), try height(over: left.height, right.height))
        }
        return left
    }

    private mutating func unary(seed: Node<ExpressionTree>?) throws(PortalPredicateError) -> Node<ExpressionTree> {
        if let seed { return try postfix(seed: seed) }
        guard isSymbol("-") else { return try postfix(seed: nil) }
        try descend()
        defer { ascend() }
        advance()
        // -9223372036854775808 is the one integer whose magnitude is not an Int64.
        if case .integer(let magnitude) = current.kind, magnitude == UInt64(Int64.max) + 1,
           peekKind(1) != .symbol("."), peekKind(1) != .symbol("[") {
            advance()
            return (.literal(.integer(Int64.min)), 1)
        }
        let operand = try unary(seed: nil)
        // A negative number is a literal, so that printing round-trips.
        switch operand.value {
        case .literal(.integer(let i)) where i != Int64.min: return (.literal(.integer(-i)), 1)
        case .literal(.real(let r)): return (.literal(.real(-r)), 1)
        case .literal(.decimal(let d)): return (.literal(.decimal(d.negated)), 1)
        default: return (.negate(operand.value), try height(over: operand.height))
        }
    }

    private mutating func postfix(seed: Node<ExpressionTree>?) throws(PortalPredicateError) -> Node<ExpressionTree> {
        var base: Node<ExpressionTree>
        if let seed { base = seed } else { base = try primary() }
        while true {
            if isSymbol(".") {
                advance()
                let name: String
                switch current.kind {
                case .identifier(let n), .escapedName(let n): name = n
                case .atKey(let n): name = try aggregateKey(n)
                case .formatArgument("%K"):
                    // `ANY moods.%K == %@`: the key path argument continues this one.
                    let token = current
                    advance()
                    base = try keyPathArgument(after: base, at: token)
                    continue
                default: throw unexpected("a key name")
                }
                advance()
                base = (.member(base.value, name), try height(over: base.height))
            } else if isSymbol("[") {
                advance()
                let index: SubscriptIndex
                var indexHeight = 0
                switch current.kind {
                case .reserved("FIRST"): index = .first; advance()
                case .reserved("LAST"): index = .last; advance()
                case .reserved("SIZE"): index = .size; advance()
                default:
                    let e = try expression()
                    index = .expression(e.value)
                    indexHeight = e.height
                }
                try expectSymbol("]", "']'")
                base = (.subscript(base.value, index), try height(over: base.height, indexHeight))
            } else {
                return base
            }
        }
    }

    private mutating func primary() throws(PortalPredicateError) -> Node<ExpressionTree> {
        let token = current
        switch token.kind {
        case .string(let s):
            advance()
            return (.literal(.text(s)), 1)
        case .integer(let magnitude):
            advance()
            if magnitude <= UInt64(Int64.max) { return (.literal(.integer(Int64(magnitude))), 1) }
            return (.literal(ExactDecimal(String(magnitude)).map(Value.decimal) ?? .real(Double(magnitude))), 1)
        case .real(let r):
            advance()
            return (.literal(.real(r)), 1)
        case .decimal(let d):
            advance()
            return (.literal(.decimal(d)), 1)
        case .blob(let bytes):
            advance()
            return (.literal(.blob(bytes)), 1)
        case .reserved("TRUE"), .reserved("YES"):
            advance()
            return (.literal(.integer(1)), 1)
        case .reserved("FALSE"), .reserved("NO"):
            advance()
            return (.literal(.integer(0)), 1)
        case .reserved("NULL"), .reserved("NIL"):
            advance()
            return (.literal(.null), 1)
        case .reserved("SELF"):
            advance()
            return (.self, 1)
        case .reserved("SUBQUERY"):
            return try subquery()
        case .reserved("CAST"):
            return try cast()
        case .variable(let name):
            advance()
            return (.variable(name), 1)
        case .formatArgument(let form):
            advance()
            return try substitute(form, at: token)
        case .escapedName(let name), .atKey(let name):
            advance()
            return (.key(name), 1)
        case .identifier(let name):
            if peekKind(1) == .symbol("(") { return try function(name) }
            // Apple's own spelling of a function call: `lowercase:(name)`.
            if peekKind(1) == .symbol(":"), peekKind(2) == .symbol("(") { return try function(name, colon: true) }
            advance()
            return (.key(name), 1)
        case .symbol("{"):
            return try aggregate()
        case .symbol("("):
            try descend()
            defer { ascend() }
            let open = current
            guard case .expression(let e) = try group(allowExpression: true) else {
                throw failure(.syntax, "expected a value in parentheses, not a predicate", at: open)
            }
            return e
        default:
            throw unexpected("a value")
        }
    }

    private mutating func aggregate() throws(PortalPredicateError) -> Node<ExpressionTree> {
        try descend()
        defer { ascend() }
        advance()
        let (elements, h) = try expressionList(closing: "}")
        return (.aggregate(elements), try height(over: h))
    }

    /// `e, e, …` up to `closing`, which it consumes; returns the elements and their tallest height.
    private mutating func expressionList(closing: String) throws(PortalPredicateError) -> ([ExpressionTree], Int) {
        var elements: [ExpressionTree] = []
        var tallest = 0
        if isSymbol(closing) { advance(); return ([], 0) }
        while true {
            let e = try expression()
            elements.append(e.value)
            tallest = max(tallest, e.height)
            if isSymbol(",") { advance(); continue }
            try expectSymbol(closing, "',' or '\(closing)'")
            return (elements, tallest)
        }
    }

    /// Known functions and how many arguments each takes.
    /// Each function and how many arguments it takes (`count()` counts a group's rows).
    static let functions: [String: ClosedRange<Int>] = [
        "lowercase": 1...1, "uppercase": 1...1, "abs": 1...1, "sqrt": 1...1, "floor": 1...1, "ceiling": 1...1,
        "trunc": 1...1, "ln": 1...1, "log": 1...1, "exp": 1...1, "now": 0...0, "length": 1...1,
        "sum": 1...1, "count": 0...1, "min": 1...1, "max": 1...1, "average": 1...1, "avg": 1...1,
        "countdistinct": 1...1,
    ]

    /// The aggregate keys a key path may hold after a dot (lowercased).
    static let aggregateKeys: Set<String> = ["@count", "@sum", "@avg", "@min", "@max"]

    /// An `@key` after a dot must be one of `aggregateKeys`: an unknown one is reported here,
    /// where its position is known.
    private func aggregateKey(_ key: String) throws(PortalPredicateError) -> String {
        guard Parser.aggregateKeys.contains(key.lowercased()) else {
            throw failure(.unknownName, "unknown aggregate '\(key)' (the aggregates are @count, @sum, @avg, @min and @max)",
                          at: current, suggestion: closestName(to: key.lowercased(), among: Array(Parser.aggregateKeys)))
        }
        return key
    }

    private mutating func function(_ written: String, colon: Bool = false) throws(PortalPredicateError) -> Node<ExpressionTree> {
        let token = current
        let name = written.lowercased()
        if name == "function" || name == "ternary" {
            throw failure(.unsupported, "\(written.uppercased())(…) has no meaning on a database", at: token)
        }
        guard let arity = Parser.functions[name] else {
            throw failure(.unknownName, "unknown function '\(written)'", at: token,
                          suggestion: closestName(to: name, among: Array(Parser.functions.keys)))
        }
        try descend()
        defer { ascend() }
        advance()
        if colon { advance() }
        advance() // (
        let (arguments, h) = try expressionList(closing: ")")
        guard arity.contains(arguments.count) else {
            let expected = arity.count == 1 ? "\(arity.lowerBound)" : "\(arity.lowerBound) or \(arity.upperBound)"
            throw failure(.invalidOperation, "\(name)() takes \(expected) argument\(arity == 1...1 ? "" : "s"), not \(arguments.count)",
                          at: token)
        }
        return (.function(name, arguments), try height(over: h))
    }

    private mutating func subquery() throws(PortalPredicateError) -> Node<ExpressionTree> {
        try descend()
        defer { ascend() }
        advance()
        try expectSymbol("(", "'('")
        let collection = try expression()
        try expectSymbol(",", "','")
        guard case .variable(let variable) = current.kind else { throw unexpected("a $variable") }
        advance()
        try expectSymbol(",", "','")
        let predicate = try predicateOperand()
        try expectSymbol(")", "')' to close SUBQUERY")
        return (.subquery(collection: collection.value, variable: variable, predicate: predicate.value),
                try height(over: collection.height, predicate.height))
    }

    /// The types `CAST` understands.
    static let castTypes: Set<String> = ["NSDate", "NSNumber", "NSString", "NSDecimalNumber"]

    private mutating func cast() throws(PortalPredicateError) -> Node<ExpressionTree> {
        try descend()
        defer { ascend() }
        advance()
        try expectSymbol("(", "'('")
        let value = try expression()
        try expectSymbol(",", "','")
        guard case .string(let type) = current.kind else { throw unexpected("a type name in quotes") }
        guard Parser.castTypes.contains(type) else {
            throw failure(.unsupported, "CAST to '\(type)' is not supported (use NSDate, NSNumber, NSString or NSDecimalNumber)",
                          at: current, suggestion: closestName(to: type, among: Array(Parser.castTypes)))
        }
        advance()
        try expectSymbol(")", "')' to close CAST")
        return (.cast(value.value, type), try height(over: value.height))
    }

    // MARK: Arguments

    /// The next `%` argument, counted.
    private mutating func nextArgument(_ form: String, at token: Token) throws(PortalPredicateError) -> Argument {
        guard argumentIndex < arguments.count else {
            throw failure(.argument, "\(form) has no argument: only \(arguments.count) given", at: token)
        }
        argumentIndex += 1
        return arguments[argumentIndex - 1]
    }

    /// `%K` with its argument, a key path such as "Album.Title": a new path, or the rest of `base`.
    private mutating func keyPathArgument(after base: Node<ExpressionTree>?, at token: Token) throws(PortalPredicateError) -> Node<ExpressionTree> {
        guard case .value(.text(let path)) = try nextArgument("%K", at: token) else {
            throw failure(.argument, "%K expects a key name (text)", at: token)
        }
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw failure(.argument, "%K expects a key path such as \"Album.Title\"", at: token)
        }
        var node: Node<ExpressionTree>
        var rest = parts[...]
        if let base {
            node = base
        } else {
            node = (.key(parts[0]), 1)
            rest = parts.dropFirst()
        }
        for part in rest { node = (.member(node.value, part), try height(over: node.height)) }
        return node
    }

    /// What a printf conversion (the last letter of `%lu`, `%hd`, `%e`, …) takes.
    private enum ArgumentClass { case integer, number, text }

    private static func argumentClass(_ form: String) -> ArgumentClass {
        switch form.last {
        case "e", "E", "f", "F", "g", "G", "a", "A": return .number
        case "s", "S": return .text
        default: return .integer
        }
    }

    private mutating func substitute(_ form: String, at token: Token) throws(PortalPredicateError) -> Node<ExpressionTree> {
        if form == "%K" { return try keyPathArgument(after: nil, at: token) }
        let argument = try nextArgument(form, at: token)
        func wrong(_ expected: String) -> PortalPredicateError {
            failure(.argument, "\(form) expects \(expected)", at: token)
        }
        if form == "%@" {
            switch argument {
            case .value(let v): return (.literal(try checked(v, at: token)), 1)
            case .list(let values):
                var elements: [ExpressionTree] = []
                for v in values { elements.append(.literal(try checked(v, at: token))) }
                return (.aggregate(elements), 2)
            case .date: return (argument.expression, 2)
            }
        }
        switch (Parser.argumentClass(form), argument) {
        case (.integer, .value(.integer(let i))):
            return (.literal(.integer(i)), 1)
        case (.integer, _):
            throw wrong("an integer")
        case (.number, .value(.integer(let i))):
            return (.literal(.real(Double(i))), 1)
        case (.number, .value(.real(let r))):
            return (.literal(try checked(.real(r), at: token)), 1)
        case (.number, _):
            throw wrong("a number")
        case (.text, .value(.text(let s))):
            return (.literal(.text(s)), 1)
        case (.text, _):
            throw wrong("text")
        }
    }

    /// NaN cannot be stored by SQLite nor printed back: refuse it.
    private func checked(_ value: Value, at token: Token) throws(PortalPredicateError) -> Value {
        if case .real(let r) = value, r.isNaN {
            throw failure(.argument, "NaN is not a value a predicate can compare with", at: token)
        }
        return value
    }

    private func checkArgumentsUsed() throws(PortalPredicateError) {
        if argumentIndex < arguments.count {
            throw PortalPredicateError(.argument, "\(arguments.count) arguments given but the predicate uses \(argumentIndex)")
        }
    }

    // MARK: SORT and LIMIT

    private mutating func sortClause() throws(PortalPredicateError) -> [QuerySortKey] {
        advance()
        advance() // (
        var descriptors: [QuerySortKey] = []
        while true {
            var path: [String] = []
            repeat {
                if !path.isEmpty { advance() }
                switch current.kind {
                case .identifier(let n), .escapedName(let n), .atKey(let n): path.append(n)
                default: throw unexpected("a key to sort by")
                }
                advance()
            } while isSymbol(".")
            var ascending = true
            if case .identifier(let word) = current.kind {
                switch word.uppercased() {
                case "ASC", "ASCENDING": ascending = true; advance()
                case "DESC", "DESCENDING": ascending = false; advance()
                default: throw unexpected("ASC, DESC, ',' or ')'")
                }
            }
            descriptors.append(QuerySortKey(keyPath: path, ascending: ascending))
            if isSymbol(",") { advance(); continue }
            try expectSymbol(")", "',' or ')' to close SORT")
            return descriptors
        }
    }

    private mutating func limitClause() throws(PortalPredicateError) -> Int {
        advance()
        advance() // (
        guard case .integer(let n) = current.kind, n <= UInt64(Int.max) else {
            throw unexpected("a non-negative integer")
        }
        advance()
        try expectSymbol(")", "')' to close LIMIT")
        return Int(n)
    }
}

extension PredicateTree {
    /// Parses a predicate; `%@`-style placeholders take `arguments` in order.
    public static func parse(_ text: String, arguments: [Argument] = []) throws(PortalPredicateError) -> PredicateTree {
        var parser = try Parser(text, arguments: arguments)
        return try parser.parsePredicate()
    }
}

extension ExpressionTree {
    /// Parses one expression of the predicate language (`Milliseconds + 1000`, `uppercase(Name)`,
    /// `"caf\u00e9"`): the same strings, numbers, functions and operators as in a predicate.
    public static func parse(_ text: String, arguments: [Argument] = []) throws(PortalPredicateError) -> ExpressionTree {
        var parser = try Parser(text, arguments: arguments)
        return try parser.parseExpression()
    }
}

extension Query {
    /// Parses a predicate with Realm's optional trailing `SORT(key ASC, …)` and `LIMIT(n)`.
    public static func parse(_ text: String, arguments: [Argument] = []) throws(PortalPredicateError) -> Query {
        var parser = try Parser(text, arguments: arguments)
        return try parser.parseQuery()
    }
}
