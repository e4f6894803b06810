import PortalPredicate

/// One step of a key path after its root.
enum PathPart: Equatable {
    case name(String)
    /// `@count`, `@sum`, `@avg`, `@min`, `@max` (lowercased), or `[SIZE]` as `@count`.
    case aggregate(String)
    case first, last
    case index(ExpressionTree)

    var isName: Bool { if case .name = self { return true } else { return false } }
}

extension SQLCompiler {
    /// Compiles an expression to an operand.
    func operand(_ expression: ExpressionTree, in scope: Scope) throws -> Operand {
        switch expression {
        case .literal(let value):
            return .literal(value)
        case .aggregate(let elements):
            return .list(try elements.map { element in
                let operand = try self.operand(element, in: scope)
                if case .list = operand { throw PortalPredicateError(.invalidOperation, "a list cannot contain a list") }
                return operand
            })
        case .function(let name, let arguments):
            return try function(name, arguments, in: scope)
        case .cast(let value, let type):
            return try cast(value, to: type, in: scope)
        case .arithmetic(let left, let op, let right):
            return try arithmetic(left, op, right, in: scope)
        case .negate(let inner):
            let (sql, info) = try number(inner, in: scope, for: "-")
            try requireNumber(info, for: "-")
            return .scalar("(-" + sql + ")", .computed)
        case .key(let name) where scope.path.isEmpty && selectionNames[name.lowercased()] != nil
                                   && scope.entity.attribute(named: name) == nil
                                   && scope.entity.relationship(named: name) == nil:
            return selectionNames[name.lowercased()] ?? .literal(.null)
        case .self, .key, .member, .subscript, .variable, .subquery:
            return try path(expression, in: scope)
        }
    }

    /// A key path with its root: the row, a `SUBQUERY` variable, a `$variable`, a list or a SUBQUERY.
    func path(_ expression: ExpressionTree, in scope: Scope) throws -> Operand {
        let (root, parts) = flatten(expression)
        let row: Scope
        switch root {
        case .self:
            row = scope
        case .variable(let name) where scope.variables[name] != nil:
            row = scope.variables[name] ?? scope
        case .variable(let name):
            return try parts.isEmpty ? variable(name) : listPath(variable(name), parts, root: "$" + name)
        case .aggregate:
            return try listPath(operand(root, in: scope), parts, root: "a list")
        case .subquery(let collection, let variable, let predicate):
            guard parts == [.aggregate("@count")] else {
                throw PortalPredicateError(.invalidOperation, "SUBQUERY(…) is used as SUBQUERY(…).@count")
            }
            return try subqueryCount(collection, variable, predicate, in: scope)
        default:
            return try parts.isEmpty ? operand(root, in: scope) : listPath(operand(root, in: scope), parts, root: "a value")
        }
        guard let split = parts.firstIndex(where: { !$0.isName }) else {
            return try keyPath(root: row, names(parts[...]))
        }
        switch parts[split] {
        case .aggregate(let function):
            let suffix = parts[(split + 1)...]
            guard suffix.allSatisfy(\.isName) else {
                throw PortalPredicateError(.invalidOperation, "\(function) can be followed only by attribute names")
            }
            return try aggregate(function, in: row, over: names(parts[..<split]), then: names(suffix))
        default:
            let suffix = parts[(split + 1)...]
            guard suffix.allSatisfy(\.isName) else {
                throw PortalPredicateError(.unsupported, "only one subscript per key path is supported")
            }
            return try element(parts[split], in: row, over: names(parts[..<split]), then: names(suffix))
        }
    }

    /// `expression` as `operand(_:in:)` compiles it, except that a key path to a collection
    /// column (an array, a JSON array) stands for one of its elements, the rows a comparison
    /// ranges over (`ANY tags == "x"`, `"x" IN tags`); `ofColumn` is then set.
    func elementOperand(_ expression: ExpressionTree, in scope: Scope, ofColumn: inout Bool) throws -> Operand {
        let (root, parts) = flatten(expression)
        guard case .self = root, !parts.isEmpty, parts.allSatisfy(\.isName) else { return try operand(expression, in: scope) }
        // A selection's name (`having n IN {1, 2}`) is no key path.
        if case .key(let name) = expression, selectionNames[name.lowercased()] != nil { return try operand(expression, in: scope) }
        let end = try walk(scope, names(parts[...]))
        if case .attribute(let owner, let attribute) = end, let element = try enterCollection(attribute, of: owner) {
            ofColumn = true
            return element
        }
        return try operand(for: end)
    }

    /// The value at a JSON key path, as compared with `literal` (`SQLDialect.jsonValue`).
    func jsonValue(_ path: JSONKeyPath, comparedWith literal: Value?) -> SQLFragment {
        let column = PortalEngine.column(path.scope.alias, path.attribute.column, dialect)
        return path.scope.value(dialect.jsonValue(column, declaredType: path.attribute.declaredType, keys: path.keys,
                                                  comparedWith: literal) ?? SQLFragment("NULL"))
    }

    /// The operand at the end of a key path of plain names.
    func keyPath(root: Scope, _ names: ArraySlice<String>) throws -> Operand {
        try operand(for: walk(root, names))
    }

    func operand(for end: KeyPathEnd) throws -> Operand {
        switch end {
        case .attribute(let scope, let attribute):
            let local = attribute.storage.languageValue(of: column(scope.alias, attribute.column, dialect))
            return .scalar(scope.value(.raw(local)),
                           ScalarInfo(attribute: attribute, isPlainColumn: scope.path.isEmpty && attribute.storage == .natural,
                                      path: scope.path, local: local))
        case .toOne(let scope, let relationship):
            guard relationship.sourceColumns.count == 1 else {
                throw PortalPredicateError(.invalidOperation,
                                     "the relationship '\(relationship.name)' has a composite key and cannot be compared")
            }
            let attribute = scope.entity.attribute(column: relationship.sourceColumns[0])
            return .scalar(scope.value(.raw(column(scope.alias, relationship.sourceColumns[0], dialect))),
                           ScalarInfo(attribute: attribute, isPlainColumn: scope.path.isEmpty, relationship: relationship,
                                      isIdentity: true))
        case .toMany(_, let relationship):
            return .toMany(relationship)
        case .json(let scope, let attribute, let keys):
            let path = JSONKeyPath(scope: scope, attribute: attribute, keys: keys)
            return .scalar(jsonValue(path, comparedWith: nil), ScalarInfo(json: path))
        case .row(let scope):
            let key = scope.entity.identifyingColumns
            guard key.count == 1 else {
                throw PortalPredicateError(.invalidOperation,
                                     "SELF of \(scope.entity.name) is not one value (its key is \(key.count) columns)")
            }
            return .scalar(scope.value(.raw(column(scope.alias, key[0], dialect))),
                           ScalarInfo(attribute: scope.entity.attribute(column: key[0]), isPlainColumn: scope.path.isEmpty,
                                      isIdentity: true))
        }
    }

    /// `$name`, substituted.
    func variable(_ name: String) throws -> Operand {
        switch variables[name] {
        case .value(let value): return .literal(value)
        case .list(let values): return .list(values.map(Operand.literal))
        case .date(let seconds): return .date(seconds)
        case nil:
            failingToken = "$" + name
            throw PortalPredicateError(.unknownName, "no value for the variable $\(name)",
                                 suggestion: closestName(to: name, among: Array(variables.keys)).map { "$" + $0 })
        }
    }

    /// `{…}.@count`, `{…}[SIZE]`, `[FIRST]`, `[LAST]`, `[n]` on a list or a `$variable`.
    func listPath(_ base: Operand, _ parts: [PathPart], root: String) throws -> Operand {
        guard parts.count == 1, case .list(let elements) = base else {
            throw PortalPredicateError(.invalidOperation, "the key path cannot continue after \(root)")
        }
        switch parts[0] {
        case .aggregate("@count"): return .literal(.integer(Int64(elements.count)))
        case .first: return elements.first ?? .literal(.null)
        case .last: return elements.last ?? .literal(.null)
        case .index(.literal(.integer(let index))):
            return index >= 0 && index < elements.count ? elements[Int(index)] : .literal(.null)
        default:
            throw PortalPredicateError(.invalidOperation, "the key path cannot continue after \(root)")
        }
    }

    /// A numeric operand (dates count as their Unix seconds).
    func number(_ expression: ExpressionTree, in scope: Scope, for op: String) throws -> (SQLFragment, ScalarInfo) {
        switch try operand(expression, in: scope) {
        case .scalar(let sql, let info):
            // A JSON value computes where it is a number.
            if let path = info.json { return (jsonValue(path, comparedWith: .integer(0)), .computed) }
            return (sql, info)
        case .date(let seconds): return (.bound(.real(seconds)), .computed)
        case let other: throw PortalPredicateError(.invalidOperation, "'\(op)' cannot apply to \(other.kindDescription)")
        }
    }

    func arithmetic(_ left: ExpressionTree, _ op: ArithmeticOperator, _ right: ExpressionTree,
                    in scope: Scope) throws -> Operand {
        var (l, leftInfo) = try number(left, in: scope, for: op.rawValue)
        var (r, rightInfo) = try number(right, in: scope, for: op.rawValue)
        try requireNumber(leftInfo, for: op.rawValue)
        try requireNumber(rightInfo, for: op.rawValue)
        if let literal = leftInfo.literal { l = dialect.arithmeticOperand(l, literal) }
        if let literal = rightInfo.literal { r = dialect.arithmeticOperand(r, literal) }
        switch op {
        case .add, .subtract, .multiply: return .scalar("(" + l + " \(op.rawValue) " + r + ")", .computed)
        case .divide: return .scalar(dialect.realDivision(l, r), .computed)
        case .power: return .scalar(.raw((dialect.function("pow") ?? "pow") + "(") + l + ", " + r + ")", .computed)
        case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .shiftLeft, .shiftRight:
            return .scalar(dialect.bitwise(l, op, r), .computed)
        }
    }

    /// Arithmetic on text is an error, not SQLite's silent 0 (`Name + "!"` would store 0):
    /// a text attribute is named with its declared type, a text literal is quoted. So is
    /// arithmetic on dates, whatever affinity their declared type gives (`DATETIME` is NUMERIC:
    /// `"2024-05-01 10:00:00" + 1` would store 2025).
    func requireNumber(_ info: ScalarInfo, for op: String) throws {
        if let attribute = info.attribute, info.relationship == nil, info.affinity == .text || attribute.holdsDates {
            failingToken = attribute.name
            let kind = attribute.holdsDates ? "date" : "text"
            throw PortalPredicateError(.invalidOperation,
                                 "'\(op)' needs numbers, but \(attribute.name) is a \(kind) attribute (\(attribute.declaredType))")
        }
        if let function = info.textFunction {
            failingToken = function
            throw PortalPredicateError(.invalidOperation, "'\(op)' needs numbers, but \(function)() gives text")
        }
        if case .text(let text)? = info.literal {
            failingToken = op
            throw PortalPredicateError(.invalidOperation, "'\(op)' needs numbers, not the text \(ExpressionTree.literal(.text(text)))")
        }
    }

    func cast(_ value: ExpressionTree, to type: String, in scope: Scope) throws -> Operand {
        let inner = try operand(value, in: scope)
        if case .date(let seconds) = inner {
            switch type {
            case "NSDate": return inner
            case "NSString": return .literal(Dates.isoText(seconds))
            default: return .literal(.real(seconds))
            }
        }
        switch type {
        case "NSDate":
            var literal: Value?
            if case .scalar(_, let info) = inner { literal = info.literal }
            if literal == .null { return .literal(.null) }
            guard let literal, let seconds = Dates.cast(literal) else {
                throw PortalPredicateError(.invalidOperation,
                                     "CAST(…, \"NSDate\") needs a number of seconds or an ISO-8601 date text")
            }
            return .date(seconds)
        case "NSNumber", "NSDecimalNumber", "NSString":
            guard case .scalar(let sql, _) = inner else {
                throw PortalPredicateError(.invalidOperation, "CAST cannot apply to \(inner.kindDescription)")
            }
            return .scalar(dialect.cast(sql, toText: type == "NSString"), .computed)
        default:
            throw PortalPredicateError(.unsupported, "CAST to \"\(type)\" is not supported (NSDate, NSNumber, NSString are)")
        }
    }
}

/// Splits `a.b[SIZE].@count` into its root and the parts after it. A bare key is a part of SELF.
func flatten(_ expression: ExpressionTree) -> (ExpressionTree, [PathPart]) {
    switch expression {
    case .key(let name):
        return (.self, [part(name)])
    case .member(let base, let name):
        let (root, parts) = flatten(base)
        return (root, parts + [part(name)])
    case .subscript(let base, let index):
        let (root, parts) = flatten(base)
        switch index {
        case .size: return (root, parts + [.aggregate("@count")])
        case .first: return (root, parts + [.first])
        case .last: return (root, parts + [.last])
        case .expression(let expression): return (root, parts + [.index(expression)])
        }
    default:
        return (expression, [])
    }
}

private func part(_ name: String) -> PathPart {
    name.hasPrefix("@") ? .aggregate(name.lowercased()) : .name(name)
}

/// The names of parts known to be `.name`.
func names(_ parts: ArraySlice<PathPart>) -> ArraySlice<String> {
    ArraySlice(parts.compactMap { if case .name(let name) = $0 { return name } else { return nil } })
}
