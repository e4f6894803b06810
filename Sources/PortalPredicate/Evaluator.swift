import Foundation

// The evaluator is the reference the compiled SQL is tested against (differentially), so every
// choice below is one the SQL compiler must make the same way:
// - Two-valued logic: a comparison involving NULL is false; `==` is SQL's `IS` (NULL == NULL is
//   true, so `== nil` is IS NULL) and `!=` is `IS NOT`; `<`, `<=`, `>`, `>=`, BETWEEN, the text
//   operators are false when a side is NULL; IN (and CONTAINS on a list) is `==` to one element,
//   so NULL is a member of `{nil, 1}`. `[l]` orders two texts by Unicode collation.
// - Values compare as SQLite orders them (NULL < numbers < text < blobs; numbers exactly across
//   integer and real; text by UTF-8 bytes), after SQLite's affinity rules: an attribute's
//   affinity (INTEGER/REAL/NUMERIC turns number-like text on the other side into a number; TEXT
//   turns a number on a side without affinity into text). To-one paths keep the affinity of the
//   attribute they end in. With `[c]`/`[d]`, both sides are folded (text only) and lose affinity.
// - CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES work on text; numbers are read as SQLite's text
//   of them. They and the folding go through `TextMatching`, which the SQL functions call too.
// - A to-many path without a quantifier means ANY; ALL is true on an empty collection; a missing
//   to-one is NULL, and a quantifier over it sees an empty collection. To-many collections are
//   ordered by id (for [FIRST], [LAST], [i]).
// - `@count` counts elements; `@sum` of nothing is 0 (integer unless a real is summed; integer
//   overflow is an error, as SQLite's SUM); `@avg`, `@min`, `@max` of nothing are NULL; NULLs are
//   skipped. Inside SUBQUERY, bare keys and SELF refer to the element (as Apple's evaluator).
// - Arithmetic as SQLite: integers stay integers unless they overflow (then real); `/` is real
//   division; division by zero and NaN are NULL; text in arithmetic is its numeric prefix.
//   The bitwise operators work on SQLite's integer of each side (reals truncated, text by its
//   leading integer), shifts by a negative amount go the other way.
// - Dates (`CAST(…, "NSDate")`, `now()`) are Unix seconds; compared with text they are
//   `YYYY-MM-DD HH:MM:SS` (UTC), compared with anything else seconds. A number cast to NSDate is
//   seconds since 2001-01-01 (Apple's reference date).

extension PredicateTree {
    /// Whether `object` matches, by the semantics of docs/predicates.md (the same answer as the compiled
    /// SQL). `variables` binds free `$name`s. Unknown names and operators that cannot apply are
    /// `PortalPredicateError`s.
    public func evaluate(with object: any EvaluationObject,
                         variables: [String: Argument] = [:]) throws(PortalPredicateError) -> Bool {
        try Evaluator().predicate(self, Scope(object: object, variables: Scope.bind(variables)))
    }
}

extension ExpressionTree {
    /// The value of this expression on `object` (a to-one relationship gives the related id).
    public func evaluate(with object: any EvaluationObject,
                         variables: [String: Argument] = [:]) throws(PortalPredicateError) -> Value {
        let evaluator = Evaluator()
        let operand = try evaluator.expression(self, Scope(object: object, variables: Scope.bind(variables)))
        return try evaluator.scalarValue(operand, for: "the value")
    }
}

extension Query {
    /// The objects that match, sorted by `sort` (SQLite's ordering, NULLs first ascending, ties by
    /// id) and cut to `limit`: what the compiled query returns.
    public func evaluate(over objects: [any EvaluationObject],
                         variables: [String: Argument] = [:]) throws(PortalPredicateError) -> [any EvaluationObject] {
        let evaluator = Evaluator()
        let bound = Scope.bind(variables)
        var kept: [(object: any EvaluationObject, keys: [Value])] = []
        for object in objects {
            let scope = Scope(object: object, variables: bound)
            guard try evaluator.predicate(predicate, scope) else { continue }
            var keys: [Value] = []
            for descriptor in sort {
                var path = ExpressionTree.key(descriptor.keyPath.first ?? "")
                for part in descriptor.keyPath.dropFirst() { path = .member(path, part) }
                keys.append(try evaluator.scalarValue(try evaluator.expression(path, scope), for: "SORT"))
            }
            kept.append((object, keys))
        }
        let sorted = kept.sorted { a, b in
            for (i, descriptor) in sort.enumerated() {
                let order = ValueSemantics.compare(a.keys[i], b.keys[i])
                if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
            }
            return ValueSemantics.compare(a.object.id, b.object.id) < 0
        }
        let all = sorted.map(\.object)
        guard let limit else { return all }
        return Array(all.prefix(max(0, limit)))
    }
}

/// What an expression evaluates to.
enum Operand {
    /// A value, with the affinity of the attribute it came from (nil for anything computed).
    case value(Value, Affinity?)
    case object(any EvaluationObject)
    /// The result of a to-many key path or a SUBQUERY: compared with an implicit ANY.
    case many([Operand])
    /// A literal `{…}` or a list argument.
    case list([Operand])
    /// A date in Unix seconds (from `CAST(…, "NSDate")` or `now()`).
    case date(Double)
    /// `r.@sum` waiting for the key after it (`r.@sum.Total`).
    case pending(String, [Operand])

    static var null: Operand { .value(.null, nil) }
}

struct Scope {
    /// The object bare keys refer to: the evaluated object, or inside a SUBQUERY the element.
    var object: any EvaluationObject
    var variables: [String: Operand]

    static func bind(_ arguments: [String: Argument]) -> [String: Operand] {
        arguments.mapValues { argument in
            switch argument {
            case .value(let v): return .value(v, nil)
            case .list(let vs): return .list(vs.map { .value($0, nil) })
            case .date(let seconds): return .date(seconds)
            }
        }
    }
}

struct Evaluator {
    static let aggregateKeys = ["@count", "@sum", "@avg", "@min", "@max"]

    private func invalid(_ message: String) -> PortalPredicateError { PortalPredicateError(.invalidOperation, message) }

    // MARK: Predicates

    func predicate(_ p: PredicateTree, _ scope: Scope) throws(PortalPredicateError) -> Bool {
        switch p {
        case .constant(let value): return value
        case .not(let inner): return try !predicate(inner, scope)
        case .and(let operands):
            for operand in operands where try !predicate(operand, scope) { return false }
            return true
        case .or(let operands):
            for operand in operands where try predicate(operand, scope) { return true }
            return false
        case .comparison(let c): return try comparison(c, scope)
        }
    }

    private func comparison(_ c: Comparison, _ scope: Scope) throws(PortalPredicateError) -> Bool {
        let left = try expression(c.left, scope)
        let right = try expression(c.right, scope)
        if let quantifier = c.quantifier {
            let elements = try collection(left, for: quantifier.rawValue)
            var matches = 0
            for element in elements where try compare(element, c.op, c.options, right) {
                matches += 1
                if quantifier != .all { break }
            }
            switch quantifier {
            case .any: return matches > 0
            case .all: return matches == elements.count
            case .none: return matches == 0
            }
        }
        // A to-many key path without a quantifier means ANY.
        if case .many(let elements) = left {
            for element in elements where try compare(element, c.op, c.options, right) { return true }
            return false
        }
        return try compare(left, c.op, c.options, right)
    }

    private func compare(_ left: Operand, _ op: ComparisonOperator, _ options: ComparisonOptions,
                         _ right: Operand) throws(PortalPredicateError) -> Bool {
        switch op {
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                throw invalid("BETWEEN needs two values: a BETWEEN {low, high}")
            }
            guard try scalarCompare(left, .greaterOrEqual, options, bounds[0]) else { return false }
            return try scalarCompare(left, .lessOrEqual, options, bounds[1])
        case .in:
            switch right {
            case .list(let elements), .many(let elements):
                for element in elements where try member(left, equals: element, options) { return true }
                return false
            default:
                return try member(left, equals: right, options)
            }
        case .contains:
            // `{1, 2} CONTAINS x` is membership; otherwise CONTAINS is on text.
            if case .list(let elements) = left {
                for element in elements where try member(element, equals: right, options) { return true }
                return false
            }
            return try textCompare(left, op, options, right)
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            return try scalarCompare(left, op, options, right)
        case .beginsWith, .endsWith, .like, .matches:
            return try textCompare(left, op, options, right)
        }
    }

    /// The two sides as values, after folding (`[c]`, `[d]`) or SQLite's affinity rules.
    private func comparable(_ left: Operand, _ right: Operand, _ options: ComparisonOptions,
                            _ op: ComparisonOperator) throws(PortalPredicateError) -> (Value, Value) {
        let (a, aAffinity) = try scalar(left, against: right, op)
        let (b, bAffinity) = try scalar(right, against: left, op)
        let folds = !options.contains(.normalized)
            && (options.contains(.caseInsensitive) || options.contains(.diacriticInsensitive))
        if folds {
            // A folded value is a function result in SQL: it has no affinity.
            func fold(_ v: Value) -> Value {
                if case .text(let s) = v { return .text(TextMatching.fold(s, options: options)) }
                return v
            }
            return (fold(a), fold(b))
        }
        return ValueSemantics.applyAffinities(a, aAffinity, b, bAffinity)
    }

    /// `==` is SQL's IS (NULL == NULL), `!=` is IS NOT; ordering is false when a side is NULL.
    private func scalarCompare(_ left: Operand, _ op: ComparisonOperator, _ options: ComparisonOptions,
                               _ right: Operand) throws(PortalPredicateError) -> Bool {
        let (a, b) = try comparable(left, right, options, op)
        if a.isNull || b.isNull {
            switch op {
            case .equal: return a.isNull && b.isNull
            case .notEqual: return a.isNull != b.isNull
            default: return false
            }
        }
        let order = Evaluator.order(a, b, options)
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        default: return order >= 0
        }
    }

    /// SQLite's order of two values; with `[l]` (and not `[n]`) two texts compare in Unicode
    /// collation order, as the `portal_locale` collation does in SQL.
    static func order(_ a: Value, _ b: Value, _ options: ComparisonOptions) -> Int {
        if options.contains(.localeSensitive), !options.contains(.normalized), case .text(let x) = a, case .text(let y) = b {
            return TextMatching.localeCompare(x, y)
        }
        return ValueSemantics.compare(a, b)
    }

    /// Membership (IN, and CONTAINS on a list) is `==`: NULL is a member of `{nil, v}`, as
    /// NSPredicate has it.
    private func member(_ left: Operand, equals right: Operand, _ options: ComparisonOptions) throws(PortalPredicateError) -> Bool {
        let (a, b) = try comparable(left, right, options, .in)
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        return Evaluator.order(a, b, options) == 0
    }

    /// CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES: on the text of both sides (numbers as
    /// SQLite writes them); false when a side is NULL.
    private func textCompare(_ left: Operand, _ op: ComparisonOperator, _ options: ComparisonOptions,
                             _ right: Operand) throws(PortalPredicateError) -> Bool {
        let (a, _) = try scalar(left, against: right, op)
        let (b, _) = try scalar(right, against: left, op)
        guard let text = ValueSemantics.text(of: a), let pattern = ValueSemantics.text(of: b) else { return false }
        switch op {
        case .contains: return TextMatching.contains(text, pattern, options: options)
        case .beginsWith: return TextMatching.beginsWith(text, pattern, options: options)
        case .endsWith: return TextMatching.endsWith(text, pattern, options: options)
        case .like: return TextMatching.like(text, pattern: pattern, options: options)
        default: return try TextMatching.matches(text, regex: pattern, options: options)
        }
    }

    /// One side of a comparison as a value and its affinity. A date becomes text when compared
    /// with text, seconds otherwise; an object its id.
    private func scalar(_ operand: Operand, against other: Operand,
                        _ op: ComparisonOperator) throws(PortalPredicateError) -> (Value, Affinity?) {
        switch operand {
        case .value(let v, let affinity): return (v, affinity)
        case .object(let o): return (o.id, nil)
        case .date(let seconds):
            if case .value(.text, _) = other {
                return (DateSemantics.text(seconds).map(Value.text) ?? .null, nil)
            }
            return (.real(seconds), nil)
        case .many, .list:
            throw invalid("\(op.rawValue) cannot compare a collection; use ANY, ALL or NONE, or IN")
        case .pending(let key, let elements):
            return (try resolved(key, elements), nil)
        }
    }

    /// A pending aggregate used as a value: fine over values (or nothing), an error over objects.
    private func resolved(_ key: String, _ elements: [Operand]) throws(PortalPredicateError) -> Value {
        if elements.contains(where: \.isObject) {
            throw invalid("\(key) needs an attribute after it (r.\(key).attribute)")
        }
        return try scalarValue(try aggregate(key, elements), for: key)
    }

    func scalarValue(_ operand: Operand, for what: String) throws(PortalPredicateError) -> Value {
        switch operand {
        case .value(let v, _): return v
        case .object(let o): return o.id
        case .date(let seconds): return .real(seconds)
        case .many, .list: throw invalid("\(what) needs a single value, not a collection")
        case .pending(let key, let elements): return try resolved(key, elements)
        }
    }

    /// The elements of a to-many key path or list; NULL (a to-one that is missing) is empty.
    private func collection(_ operand: Operand, for what: String) throws(PortalPredicateError) -> [Operand] {
        switch operand {
        case .many(let elements), .list(let elements): return elements
        case .value(.null, _): return []
        default: throw invalid("\(what) needs a to-many key path or a list")
        }
    }

    // MARK: Expressions

    func expression(_ e: ExpressionTree, _ scope: Scope) throws(PortalPredicateError) -> Operand {
        switch e {
        case .literal(let v): return .value(v.approximated, nil)
        case .self: return .value(scope.object.id, nil)
        case .variable(let name):
            guard let bound = scope.variables[name] else {
                throw PortalPredicateError(.unknownName, "no value for the variable $\(name)",
                                     suggestion: closestName(to: name, among: Array(scope.variables.keys)).map { "$" + $0 })
            }
            return bound
        case .key(let name): return try member(.object(scope.object), name)
        case .member(.self, let name): return try member(.object(scope.object), name)   // SELF.name
        case .member(let base, let name): return try member(try expression(base, scope), name)
        case .subscript(let base, let index): return try subscriptValue(try expression(base, scope), index, scope)
        case .aggregate(let elements):
            var operands: [Operand] = []
            for element in elements { operands.append(try expression(element, scope)) }
            return .list(operands)
        case .function(let name, let arguments): return try function(name, arguments, scope)
        case .subquery(let collectionExpression, let variable, let inner):
            let elements = try collection(try expression(collectionExpression, scope), for: "SUBQUERY")
            var kept: [Operand] = []
            for element in elements {
                var innerScope = scope
                if case .object(let o) = element { innerScope.object = o }
                innerScope.variables[variable] = element
                if try predicate(inner, innerScope) { kept.append(element) }
            }
            return .many(kept)
        case .cast(let value, let type): return try cast(try expression(value, scope), to: type)
        case .arithmetic(let a, let op, let b):
            let x = try scalarValue(try expression(a, scope), for: "'\(op.rawValue)'")
            let y = try scalarValue(try expression(b, scope), for: "'\(op.rawValue)'")
            return .value(ValueSemantics.arithmetic(x, op, y), nil)
        case .negate(let a):
            return .value(ValueSemantics.negate(try scalarValue(try expression(a, scope), for: "'-'")), nil)
        }
    }

    /// `base.name`: an attribute or relationship of an object, mapped over collections, or an
    /// aggregate key (`@count`, `@sum`, …).
    private func member(_ base: Operand, _ name: String) throws(PortalPredicateError) -> Operand {
        switch base {
        case .object(let o):
            if name.hasPrefix("@") { throw invalid("\(name) needs a to-many relationship before it") }
            return try attributeOrRelationship(o, name)
        case .value(.null, _):
            // Through a missing to-one: NULL, or an empty collection for aggregates.
            return name.hasPrefix("@") ? try aggregateKey(name, []) : .null
        case .value, .date:
            throw invalid("'\(name)' of a value that is not an object")
        case .many(let elements):
            if name.hasPrefix("@") { return try aggregateKey(name, elements) }
            return .many(try mapMember(elements, name))
        case .list(let elements):
            if name.hasPrefix("@") { return try aggregateKey(name, elements) }
            return .list(try mapMember(elements, name))
        case .pending(let key, let elements):
            let mapped = try mapMember(elements, name)
            return mapped.contains(where: \.isObject) ? .pending(key, mapped) : try aggregate(key, mapped)
        }
    }

    private func mapMember(_ elements: [Operand], _ name: String) throws(PortalPredicateError) -> [Operand] {
        var result: [Operand] = []
        for element in elements {
            switch try member(element, name) {
            case .many(let nested): result.append(contentsOf: nested)
            case let other: result.append(other)
            }
        }
        return result
    }

    private func attributeOrRelationship(_ o: any EvaluationObject, _ name: String) throws(PortalPredicateError) -> Operand {
        if let v = o.attribute(name) { return .value(v, o.affinity(of: name)) }
        if let related = o.toOne(name) { return related.map(Operand.object) ?? .null }
        if let many = o.toMany(name) {
            let ordered = many.sorted { ValueSemantics.compare($0.id, $1.id) < 0 }
            return .many(ordered.map(Operand.object))
        }
        throw PortalPredicateError(.unknownName, "no attribute or relationship named '\(name)'",
                             suggestion: closestName(to: name, among: o.memberNames))
    }

    private func aggregateKey(_ key: String, _ elements: [Operand]) throws(PortalPredicateError) -> Operand {
        guard Evaluator.aggregateKeys.contains(key) else {
            throw PortalPredicateError(.unknownName, "unknown aggregate '\(key)'",
                                 suggestion: closestName(to: key, among: Evaluator.aggregateKeys))
        }
        if key == "@count" { return .value(.integer(Int64(elements.count)), nil) }
        // Objects (or none at all, which may be objects) wait for the key after the aggregate.
        return elements.isEmpty || elements.contains(where: \.isObject) ? .pending(key, elements) : try aggregate(key, elements)
    }

    /// `@sum`/`sum` (0 when empty, integer unless a real is summed), `@avg`/`average`,
    /// `@min`/`min`, `@max`/`max` (NULL when empty), `@count`/`count`. NULLs are skipped.
    private func aggregate(_ key: String, _ elements: [Operand]) throws(PortalPredicateError) -> Operand {
        var values: [Value] = []
        for element in elements {
            let v = try scalarValue(element, for: key)
            if !v.isNull { values.append(v) }
        }
        switch key {
        case "@count", "count":
            return .value(.integer(Int64(elements.count)), nil)
        case "countdistinct":
            var distinct: [Value] = []
            for v in values where !distinct.contains(where: { ValueSemantics.compare($0, v) == 0 }) { distinct.append(v) }
            return .value(.integer(Int64(distinct.count)), nil)
        case "@sum", "sum", "@avg", "average":
            var integerSum: Int64? = 0
            var realSum = 0.0
            for v in values {
                let n = ValueSemantics.number(v)
                realSum += ValueSemantics.real(n)
                if case .integer(let i) = n, let sum = integerSum {
                    let (s, overflow) = sum.addingReportingOverflow(i)
                    if overflow { throw invalid("integer overflow in \(key)") }
                    integerSum = s
                } else {
                    integerSum = nil
                }
            }
            if key == "@avg" || key == "average" {
                return values.isEmpty ? .null : .value(.real(realSum / Double(values.count)), nil)
            }
            if let integerSum { return .value(.integer(integerSum), nil) }
            return .value(.real(realSum), nil)
        default:
            let wantsMax = key == "@max" || key == "max"
            var best: Value?
            for v in values {
                if let current = best {
                    let order = ValueSemantics.compare(v, current)
                    if wantsMax ? order > 0 : order < 0 { best = v }
                } else {
                    best = v
                }
            }
            return .value(best ?? .null, nil)
        }
    }

    private func subscriptValue(_ base: Operand, _ index: SubscriptIndex, _ scope: Scope) throws(PortalPredicateError) -> Operand {
        let elements = try collection(base, for: "a subscript")
        switch index {
        case .first: return elements.first ?? .null
        case .last: return elements.last ?? .null
        case .size: return .value(.integer(Int64(elements.count)), nil)
        case .expression(let e):
            let position: Int?
            switch try scalarValue(try expression(e, scope), for: "a subscript") {
            case .integer(let i): position = Int(exactly: i)
            case .real(let r): position = r.rounded() == r ? Int(exactly: r) : nil
            default: position = nil
            }
            guard let position, elements.indices.contains(position) else { return .null }
            return elements[position]
        }
    }

    // MARK: Functions and CAST

    private func function(_ name: String, _ arguments: [ExpressionTree], _ scope: Scope) throws(PortalPredicateError) -> Operand {
        if name == "now" { return .date(Date().timeIntervalSince1970) }
        guard let first = arguments.first else { throw invalid("\(name)() needs an argument") }
        let argument = try expression(first, scope)
        switch name {
        case "count", "sum", "min", "max", "average", "avg", "countdistinct":
            return try aggregate(name == "avg" ? "average" : name, try collection(argument, for: "\(name)()"))
        default:
            return .value(try scalarFunction(name, try scalarValue(argument, for: "\(name)()")), nil)
        }
    }

    private func scalarFunction(_ name: String, _ v: Value) throws(PortalPredicateError) -> Value {
        if v.isNull { return .null }
        switch name {
        case "lowercase", "uppercase":
            if case .blob = v { return v }
            let text = ValueSemantics.text(of: v) ?? ""
            return .text(name == "lowercase" ? TextMatching.lowercase(text) : TextMatching.uppercase(text))
        case "length":
            if case .blob(let bytes) = v { return .integer(Int64(bytes.count)) }
            return .integer(Int64(TextMatching.length(ValueSemantics.text(of: v) ?? "")))
        default:
            break
        }
        let n = ValueSemantics.number(v)
        let x = ValueSemantics.real(n)
        switch name {
        case "abs":
            if case .integer(let i) = n { return i == Int64.min ? .real(-Double(i)) : .integer(abs(i)) }
            return .real(abs(x))
        case "floor", "ceiling", "trunc":
            if case .integer = n { return n }
            let rule: FloatingPointRoundingRule = name == "floor" ? .down : (name == "ceiling" ? .up : .towardZero)
            return .real(x.rounded(rule))
        case "sqrt": return ValueSemantics.finite(x.squareRoot())
        case "ln": return x > 0 ? .real(Foundation.log(x)) : .null
        case "log": return x > 0 ? .real(log10(x)) : .null
        case "exp": return .real(Foundation.exp(x))
        default: throw PortalPredicateError(.unknownName, "unknown function '\(name)'")
        }
    }

    private func cast(_ operand: Operand, to type: String) throws(PortalPredicateError) -> Operand {
        if case .date(let seconds) = operand {
            switch type {
            case "NSDate": return operand
            case "NSString": return .value(DateSemantics.text(seconds).map(Value.text) ?? .null, nil)
            default: return .value(.real(seconds), nil)
            }
        }
        let v = try scalarValue(operand, for: "CAST")
        if v.isNull { return .null }
        switch type {
        case "NSDate":
            switch v {
            case .integer, .real: return .date(ValueSemantics.real(v) + DateSemantics.referenceDateOffset)
            case .text(let s):
                guard let seconds = DateSemantics.parse(s) else {
                    throw invalid("cannot read \"\(s)\" as a date (expected YYYY-MM-DD or YYYY-MM-DD HH:MM:SS)")
                }
                return .date(seconds)
            default: throw invalid("cannot read a blob as a date")
            }
        case "NSString":
            return .value(.text(ValueSemantics.text(of: v) ?? ""), nil)
        default:
            return .value(ValueSemantics.number(v), nil)
        }
    }
}

extension Operand {
    var isObject: Bool { if case .object = self { return true } else { return false } }
}
