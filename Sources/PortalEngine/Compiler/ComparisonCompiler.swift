import PortalPredicate

// Comparisons. Positive forms stay plain (`a = ?`, `a BETWEEN ? AND ?`, `a IN (…)`, a range for
// BEGINSWITH) so that SQLite can answer them from an index; NULL never makes them true.

extension SQLCompiler {
    func comparison(_ comparison: Comparison, in scope: Scope) throws -> SQLFragment {
        let saved = collection
        collection = nil
        defer { collection = saved }
        var comparison = comparison
        // A collection column ranges over its elements where a to-many key path would (without a
        // quantifier: ANY), as the container of IN, as the collection of CONTAINS (`tags CONTAINS
        // "x"`); compared with nil it is the column's own value (`tags == nil`: no array at all).
        var ofColumn = false
        var left = try comparison.quantifier != nil || comparison.right != .literal(.null)
            ? elementOperand(comparison.left, in: scope, ofColumn: &ofColumn) : operand(comparison.left, in: scope)
        if comparison.op == .contains, ofColumn { comparison.op = .equal }
        var right = try comparison.op == .in && collection == nil
            ? elementOperand(comparison.right, in: scope, ofColumn: &ofColumn) : operand(comparison.right, in: scope)
        (left, right) = (Self.asStored(left, comparedWith: right), Self.asStored(right, comparedWith: left))
        (left, right) = (asJSON(left, comparedWith: right), asJSON(right, comparedWith: left))
        let rows = collection
        let core: SQLFragment
        do {
            if rows == nil, comparison.quantifier == nil,
               let semiJoin = try semiJoin(left, comparison.op, comparison.options, right) {
                return semiJoin
            }
            core = try self.core(left, comparison.op, comparison.options, right)
        } catch {
            failingToken = failingToken ?? comparison.op.rawValue
            throw error
        }
        guard let rows else {
            if let quantifier = comparison.quantifier {
                throw PortalPredicateError(.invalidOperation,
                                     "\(quantifier.rawValue) needs a to-many key path (such as relationship.attribute)")
            }
            return core
        }
        guard let quantifier = comparison.quantifier else {
            return "EXISTS (SELECT 1" + rows.fromWhereComparingNullWhenMissing(core, anchor: newAlias()) + ")"
        }
        switch quantifier {
        case .any: return "EXISTS (SELECT 1" + rows.fromWhere(core) + ")"
        case .none: return "NOT EXISTS (SELECT 1" + rows.fromWhere(core) + ")"
        case .all: return "NOT EXISTS (SELECT 1" + rows.fromWhere(dialect.isNotTrue(core)) + ")"
        }
    }

    /// A UUID text literal (or a list of them) compared with an attribute that keeps UUIDs as
    /// 16-byte blobs (Core Data's) becomes the blob, so that it matches as the app's UUID would.
    static func asStored(_ operand: Operand, comparedWith other: Operand) -> Operand {
        guard case .scalar(_, let info) = other, info.attribute?.storage == .uuidBlob else { return operand }
        switch operand {
        case .scalar(_, let literal):
            guard case .text(let text)? = literal.literal, let bytes = StorageConvention.uuidBytes(text) else { return operand }
            return .literal(.blob(bytes))
        case .list(let elements):
            return .list(elements.map { asStored($0, comparedWith: other) })
        case .date, .toMany:
            return operand
        }
    }

    /// A value inside a JSON document compared with a literal (or a list of them): as a number
    /// with a number, as a text with a text (`SQLDialect.jsonValue`).
    func asJSON(_ operand: Operand, comparedWith other: Operand) -> Operand {
        guard case .scalar(_, let info) = operand, let path = info.json else { return operand }
        let literal: Value?
        switch other {
        case .scalar(_, let otherInfo): literal = otherInfo.literal
        case .list(let elements):
            literal = elements.lazy.compactMap { element -> Value? in
                if case .scalar(_, let elementInfo) = element, elementInfo.literal != .null { return elementInfo.literal }
                return nil
            }.first
        case .date, .toMany: literal = nil
        }
        guard let literal, literal != .null else { return operand }
        return .scalar(jsonValue(path, comparedWith: literal), info)
    }

    /// `Album.Artist.Name == "AC/DC"` as `t0."AlbumId" IN (SELECT pc1."AlbumId" FROM "Album" AS pc1
    /// JOIN "Artist" AS pc2 ON … WHERE pc2."Name" = ?)`: indexes serve both the inner condition
    /// and the outer foreign key, where a correlated subquery per row would scan. Only for
    /// comparisons that are false on NULL (a missing related row makes the value NULL) and whose
    /// other side does not depend on the row; nil when the form does not apply.
    private func semiJoin(_ left: Operand, _ op: ComparisonOperator, _ options: ComparisonOptions,
                          _ right: Operand) throws -> SQLFragment? {
        guard case .scalar(_, let info) = left, let local = info.local, let first = info.path.first,
              let outer = first.outerColumn, let inner = first.innerColumn, isConstant(right) else { return nil }
        switch op {
        case .notEqual: return nil
        case .equal:
            guard case .scalar(_, let value) = right, let literal = value.literal, literal != .null else { return nil }
        case .contains:
            if case .list = right { return nil }
        case .in:
            // A missing related row makes the value NULL, which `IN {nil, …}` matches.
            if isNullLiteral(right) { return nil }
            if case .list(let elements) = right, elements.contains(where: isNullLiteral) { return nil }
        default: break
        }
        let element = Operand.scalar(.raw(local), ScalarInfo(attribute: info.attribute, isPlainColumn: true))
        let condition = try core(element, op, options, right)
        return .raw(outer + " IN (SELECT " + inner + " FROM " + JoinStep.render(info.path) + " WHERE ") + condition + ")"
    }

    /// Literals, lists of literals and dates: values that do not depend on the row.
    private func isConstant(_ operand: Operand) -> Bool {
        switch operand {
        case .scalar(_, let info): return info.literal != nil
        case .list(let elements): return elements.allSatisfy(isConstant)
        case .date: return true
        case .toMany: return false
        }
    }

    /// The comparison of two single values (elements, when a to-many path is involved).
    func core(_ left: Operand, _ op: ComparisonOperator, _ options: ComparisonOptions,
              _ right: Operand) throws -> SQLFragment {
        let rule = TextRule(options, dialect)
        for operand in [left, right] {
            if case .toMany = operand {
                throw PortalPredicateError(.invalidOperation, "\(op.rawValue) cannot apply to \(operand.kindDescription)")
            }
        }
        switch op {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            return try ordered(left, op, rule, right)
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else {
                let count = if case .list(let values) = right { "\(values.count) values" } else { "one value" }
                throw PortalPredicateError(.invalidOperation, "BETWEEN needs exactly two values {lower, upper}, not \(count)")
            }
            let value = try scalar(left, against: bounds, for: op)
            return rule.left(value) + " BETWEEN " + rule.right(try scalar(bounds[0], against: value, of: left, for: op))
                + " AND " + rule.right(try scalar(bounds[1], against: value, of: left, for: op))
        case .in:
            return try membership(left, rule, right)
        case .contains:
            if case .list = left { return try membership(right, rule, left) }
            return try text(left, op, rule.fold, right)
        case .beginsWith, .endsWith, .like, .matches:
            return try text(left, op, rule.fold, right)
        }
    }

    /// `== != < <= > >=`.
    private func ordered(_ left: Operand, _ op: ComparisonOperator, _ rule: TextRule, _ right: Operand) throws -> SQLFragment {
        if case .scalar(_, let info) = right, info.literal == .null, op == .equal || op == .notEqual {
            return try scalar(left, for: op) + (op == .equal ? " IS NULL" : " IS NOT NULL")
        }
        if case .scalar(_, let info) = left, info.literal == .null, op == .equal || op == .notEqual {
            return try scalar(right, for: op) + (op == .equal ? " IS NULL" : " IS NOT NULL")
        }
        let (l, r) = try pair(left, right, for: op)
        switch op {
        case .equal:
            return try equality(left, l, rule, right, r)
        case .notEqual:
            return dialect.nullSafeEqual(rule.left(l), rule.right(r), negated: true)
        default:
            return rule.left(l) + " \(op.rawValue) " + rule.right(r)
        }
    }

    /// `==`: `=` where one side is a literal (NULL cannot occur there; handled before) keeps an
    /// index usable; the dialect's null-safe equality between two expressions makes nil == nil
    /// true, as NSPredicate does.
    private func equality(_ left: Operand, _ l: SQLFragment, _ rule: TextRule, _ right: Operand,
                          _ r: SQLFragment) throws -> SQLFragment {
        let literal = isLiteral(left) || isLiteral(right)
        // Folded text against a text literal: compared fold to fold without the folded text.
        if rule.fold != 0 && !rule.locale {
            if isTextLiteral(right) { return dialect.foldedEqual(l, r, flags: rule.fold) }
            if isTextLiteral(left) { return dialect.foldedEqual(r, l, flags: rule.fold) }
        }
        return literal ? rule.left(l) + " = " + rule.right(r) : dialect.nullSafeEqual(rule.left(l), rule.right(r), negated: false)
    }

    /// `value IN list`, or, with a to-many path or one value on the right, `==`. Membership is
    /// `==` to one element, so NULL is a member of `{nil, 1}` (Apple's meaning): literals go in
    /// one `IN (…)` that an index serves, a NULL literal adds `IS NULL`, other elements null-safe
    /// equality.
    private func membership(_ value: Operand, _ rule: TextRule, _ container: Operand) throws -> SQLFragment {
        guard case .list(let elements) = container else {
            if isNullLiteral(container) { return try scalar(value, for: .in) + " IS NULL" }
            if isNullLiteral(value) { return try scalar(container, for: .in) + " IS NULL" }
            let (l, r) = try pair(value, container, for: .in)
            return try equality(value, l, rule, container, r)
        }
        let l = try scalar(value, against: elements, for: .in)
        var literals: [SQLFragment] = [], terms: [SQLFragment] = []
        var matchesNull = false
        for element in elements {
            if isNullLiteral(element) {
                matchesNull = true
            } else if isLiteral(element) || isDate(element) {
                literals.append(rule.right(try scalar(element, against: l, of: value, for: .in)))
            } else {
                let r = rule.right(try scalar(element, against: l, of: value, for: .in))
                terms.append(dialect.nullSafeEqual(rule.left(l), r, negated: false))
            }
        }
        if !literals.isEmpty {
            terms.insert(rule.isPlain ? dialect.membership(l, inLiterals: literalValues(elements)) ?? list(l, literals)
                                      : list(rule.left(l), literals), at: 0)
        }
        if matchesNull { terms.append(l + " IS NULL") }
        switch terms.count {
        case 0: return SQLFragment(dialect.boolean(false))
        case 1: return terms[0]
        default: return SQLCompiler.grouped(terms, separator: " OR ")
        }
    }

    private func list(_ value: SQLFragment, _ literals: [SQLFragment]) -> SQLFragment {
        value + " IN (" + .joined(literals, separator: ", ") + ")"
    }

    /// The values of `elements` when each is a number or text literal or NULL (NULLs left out);
    /// empty when one is something else (a date, a column), which has no place in a list of values.
    private func literalValues(_ elements: [Operand]) -> [Value] {
        var values: [Value] = []
        for element in elements {
            guard case .scalar(_, let info) = element, let literal = info.literal else { return [] }
            switch literal {
            case .integer, .real, .decimal, .text: values.append(literal)
            case .null: continue
            case .blob: return []
            }
        }
        return values
    }

    private func isNullLiteral(_ operand: Operand) -> Bool {
        if case .scalar(_, let info) = operand, info.literal == .null { return true }
        return false
    }

    private func isDate(_ operand: Operand) -> Bool {
        if case .date = operand { return true }
        return false
    }

    /// CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES.
    private func text(_ left: Operand, _ op: ComparisonOperator, _ fold: Int, _ right: Operand) throws -> SQLFragment {
        for operand in [left, right] {
            if case .scalar(_, let info) = operand, let relationship = info.relationship {
                throw PortalPredicateError(.invalidOperation,
                                     "\(op.rawValue) cannot apply to the to-one relationship '\(relationship.name)'")
            }
            if case .list = operand {
                throw PortalPredicateError(.invalidOperation, "\(op.rawValue) cannot apply to a list")
            }
        }
        let (l, r) = try pair(left, right, for: op)
        if op == .beginsWith, fold == 0, case .scalar(_, let info) = left, info.isPlainColumn, info.affinity == .text,
           case .scalar(_, let pattern) = right, case .text(let prefix)? = pattern.literal,
           let successor = prefixSuccessor(prefix) {
            // A range in byte order, which an index of the column (BINARY, the default) serves;
            // then the exact test on the rows in range, which also covers NUL bytes.
            let binary = dialect.byteOrdered(l)
            return "(" + binary + " >= " + .bound(.text(prefix)) + " AND " + binary + " < " + .bound(.text(successor))
                + " AND " + dialect.textTest(.beginsWith, l, .bound(.text(prefix)), flags: 0) + ")"
        }
        let literal: String? = if case .scalar(_, let info) = right, case .text(let text)? = info.literal { text } else { nil }
        if op == .matches, let literal {
            _ = try TextMatching.matches("", regex: literal, options: [])   // an invalid pattern fails here, not per row
        }
        let textColumn = if case .scalar(_, let info) = left { info.affinity == .text } else { false }
        // Case-sensitive tests on a text column may need no function call.
        if fold == 0, textColumn, let literal, !literal.isEmpty,
           let plain = dialect.plainTextTest(op, l, r, byteCount: literal.utf8.count) {
            return plain
        }
        return dialect.textTest(op, l, r, flags: fold)
    }

    /// A single value for `op`; lists are errors, dates become Unix seconds.
    private func scalar(_ operand: Operand, for op: ComparisonOperator) throws -> SQLFragment {
        switch operand {
        case .scalar(let sql, _): return sql
        case .date(let seconds): return .bound(.real(seconds))
        default: throw PortalPredicateError(.invalidOperation, "\(op.rawValue) cannot apply to \(operand.kindDescription)")
        }
    }

    /// A value compared with `other` (the SQL of `otherOperand`): a date takes the form `other`
    /// is stored in.
    private func scalar(_ operand: Operand, against other: SQLFragment, of otherOperand: Operand,
                        for op: ComparisonOperator) throws -> SQLFragment {
        if case .date(let seconds) = operand { return date(seconds, against: other, of: otherOperand) }
        return try scalar(operand, for: op)
    }

    /// A date compared with `other` (the SQL of `otherOperand`): as the type of the column it is
    /// compared with, where the dialect knows it, else by the rule of `Dates.sql`.
    private func date(_ seconds: Double, against other: SQLFragment, of otherOperand: Operand) -> SQLFragment {
        if case .scalar(_, let info) = otherOperand, let declaredType = info.attribute?.declaredType,
           let typed = dialect.date(seconds, comparedWithColumnOf: declaredType) {
            return typed
        }
        return Dates.sql(seconds, against: other, isTextColumn: isTextColumn(otherOperand), dialect)
    }

    /// An attribute with TEXT affinity holds text (or NULL, or a blob), never numbers.
    private func isTextColumn(_ operand: Operand) -> Bool {
        if case .scalar(_, let info) = operand, info.attribute != nil, info.affinity == .text { return true }
        return false
    }

    private func pair(_ left: Operand, _ right: Operand, for op: ComparisonOperator) throws -> (SQLFragment, SQLFragment) {
        switch (left, right) {
        case (.date, .date): return (try scalar(left, for: op), try scalar(right, for: op))
        case (.date(let seconds), _):
            let r = try scalar(right, against: [left], for: op)
            return (date(seconds, against: r, of: right), r)
        default:
            let l = try scalar(left, against: [right], for: op)
            return (l, try scalar(right, against: l, of: left, for: op))
        }
    }

    /// `operand` compared with `others`: an id loses its column's affinity unless
    /// the others are numbers or NULL, where affinity changes nothing and an index still serves.
    private func scalar(_ operand: Operand, against others: [Operand], for op: ComparisonOperator) throws -> SQLFragment {
        let sql = try scalar(operand, for: op)
        guard case .scalar(_, let info) = operand, info.isIdentity else { return sql }
        let harmless = others.allSatisfy { other in
            guard case .scalar(_, let otherInfo) = other, let literal = otherInfo.literal else { return false }
            switch literal {
            case .integer, .real, .decimal, .null: return true
            case .text, .blob: return false
            }
        }
        return harmless ? sql : dialect.withoutAffinity(sql)
    }

    private func isTextLiteral(_ operand: Operand) -> Bool {
        if case .scalar(_, let info) = operand, case .text? = info.literal { return true }
        return false
    }

    private func isLiteral(_ operand: Operand) -> Bool {
        if case .scalar(_, let info) = operand, info.literal != nil { return true }
        return false
    }
}

/// How the sides of a comparison are prepared for its options: folded for `[c]`/`[d]` (flags 1
/// and 2 of the dialect's folding), and with `[l]` compared in Unicode collation order, on the
/// left side.
struct TextRule {
    let fold: Int
    let locale: Bool
    let dialect: any SQLDialect

    init(_ options: ComparisonOptions, _ dialect: any SQLDialect) {
        self.dialect = dialect
        let plain = options.contains(.normalized)
        fold = plain ? 0 : (options.contains(.caseInsensitive) ? 1 : 0) | (options.contains(.diacriticInsensitive) ? 2 : 0)
        locale = !plain && options.contains(.localeSensitive)
    }

    /// True when the values are compared as they are: no folding, no collation.
    var isPlain: Bool { fold == 0 && !locale }

    func right(_ sql: SQLFragment) -> SQLFragment {
        dialect.folded(sql, fold)
    }

    func left(_ sql: SQLFragment) -> SQLFragment {
        locale ? dialect.localeOrdered(right(sql)) : right(sql)
    }
}

/// The smallest string greater than every string that starts with `prefix` (in UTF-8 byte order,
/// which is Unicode scalar order): the last scalar that can grow, grown by one. Nil when none can.
func prefixSuccessor(_ prefix: String) -> String? {
    var scalars = Array(prefix.unicodeScalars)
    while let last = scalars.popLast() {
        var next = last.value + 1
        if next == 0xD800 { next = 0xE000 }
        if let scalar = Unicode.Scalar(next) {
            scalars.append(scalar)
            var result = String.UnicodeScalarView()
            result.append(contentsOf: scalars)
            return String(result)
        }
    }
    return nil
}
