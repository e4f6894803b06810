import PortalPredicate

/// `count Track where "Milliseconds" > 300000` compares the text "Milliseconds" with a number
/// (true for every row): SQL's habit of double-quoting names. A string literal that is the
/// name of an attribute, compared with a number or a non-text attribute, gets a warning that
/// says how to write the attribute.
enum QuotedNameWarnings {
    /// The warnings for `predicate` on `entity`.
    static func warnings(_ predicate: PredicateTree, entity: EntityDescription) -> [String] {
        var warnings: [String] = []
        visit(predicate, entity: entity, into: &warnings)
        return warnings
    }

    private static func visit(_ predicate: PredicateTree, entity: EntityDescription, into warnings: inout [String]) {
        switch predicate {
        case .constant: break
        case .not(let inner): visit(inner, entity: entity, into: &warnings)
        case .and(let terms), .or(let terms):
            for term in terms { visit(term, entity: entity, into: &warnings) }
        case .comparison(let c):
            for (literal, other) in [(c.left, c.right), (c.right, c.left)] {
                guard case .literal(.text(let string)) = literal, let attribute = entity.attribute(named: string),
                      isNonText(other, entity: entity) else { continue }
                let warning = "\"\(string)\" is a string here; for the attribute write \(KeyName.written(attribute.name))"
                if !warnings.contains(warning) { warnings.append(warning) }
            }
        }
    }

    /// A number, arithmetic, or an attribute whose affinity is numeric.
    private static func isNonText(_ expression: ExpressionTree, entity: EntityDescription) -> Bool {
        switch expression {
        case .literal(.integer), .literal(.real), .arithmetic, .negate: return true
        case .aggregate(let elements): return !elements.isEmpty && elements.allSatisfy { isNonText($0, entity: entity) }
        case .key(let name):
            guard let attribute = entity.attribute(named: name) else { return false }
            return [.integer, .real, .numeric].contains(ColumnAffinity(declaredType: attribute.declaredType))
        default: return false
        }
    }
}
