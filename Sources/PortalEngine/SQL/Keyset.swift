import PortalPredicate

/// Keyset bounds for paging without OFFSET: "the rows after (or before) this key" in an ORDER BY
/// of several parts, with SQLite's NULL order (NULLs first ascending, last descending).
public enum Keyset {
    /// One part of the order: an SQL expression (`t0."Name"`), its direction, and whether it
    /// can be NULL.
    public struct Part: Sendable {
        /// The expression ordered by.
        public var expression: String
        /// True for ascending.
        public var ascending: Bool
        /// True when the expression can be NULL.
        public var nullable: Bool

        /// A part of the order.
        public init(expression: String, ascending: Bool, nullable: Bool) {
            self.expression = expression
            self.ascending = ascending
            self.nullable = nullable
        }

        /// `expression ASC` or `DESC` (the other way when `reversed`), NULL first in ascending order.
        public func ordering(reversed: Bool, in dialect: any SQLDialect) -> String {
            expression + dialect.direction(ascending: ascending != reversed, nullable: nullable)
        }
    }

    /// Which rows of the order the condition selects, relative to the key.
    public enum Direction: Sendable { case after, atOrAfter, before }

    /// `(a, b) = (?, ?)`: the row whose key columns (of `alias`) hold `values`.
    public static func equals(_ columns: [String], alias: String? = nil, _ values: [Value], dialect: some SQLSpelling) -> SQLFragment {
        let names = columns.map { (alias.map { $0 + "." } ?? "") + dialect.quoted($0) }
        return "(\(names.joined(separator: ", "))) = (" + SQLFragment.bound(values) + ")"
    }

    /// The rows after, at or after, or before the row whose order values are `values`.
    public static func condition(_ parts: [Part], _ values: [Value], _ direction: Direction) -> SQLFragment {
        // Fast path: all ascending, no NULL in the key: one row-value comparison SQLite serves
        // from an index. Rows with a NULL sort value come first, so "before" must include them.
        if parts.allSatisfy(\.ascending), !values.contains(where: \.isNull) {
            let lhs = "(\(parts.map(\.expression).joined(separator: ", ")))"
            let rhs = "(" + SQLFragment.bound(values) + ")"
            switch direction {
            case .after: return lhs + " > " + rhs
            case .atOrAfter: return lhs + " >= " + rhs
            case .before:
                let nulls = parts.filter(\.nullable).map { " OR \($0.expression) IS NULL" }
                return lhs + " < " + rhs + nulls.joined()
            }
        }
        return expanded(parts, values, direction)
    }

    /// The general form: OR over i of (parts before i equal AND part i strictly beyond).
    private static func expanded(_ parts: [Part], _ values: [Value], _ direction: Direction) -> SQLFragment {
        var disjuncts: [SQLFragment] = []
        for i in parts.indices {
            guard let last = beyond(parts[i], values[i], forward: direction != .before) else { continue }
            let terms = (0..<i).map { equal(parts[$0], values[$0]) } + [last]
            disjuncts.append(SQLFragment.joined(terms, separator: " AND ").parenthesized)
        }
        if direction == .atOrAfter {
            disjuncts.append(SQLFragment.joined(parts.indices.map { equal(parts[$0], values[$0]) }, separator: " AND ").parenthesized)
        }
        if disjuncts.isEmpty { return SQLFragment("1 = 0") }   // false, spelled for every dialect
        return SQLFragment.joined(disjuncts, separator: " OR ")
    }

    private static func equal(_ part: Part, _ value: Value) -> SQLFragment {
        value.isNull ? SQLFragment("\(part.expression) IS NULL") : part.expression + " = " + .bound(value)
    }

    /// "Strictly after `value` in this part's order" (or before when not `forward`); nil when nothing can be.
    private static func beyond(_ part: Part, _ value: Value, forward: Bool) -> SQLFragment? {
        let e = part.expression
        // In display order, NULLs come first when ascending and last when descending.
        let nullsFirst = part.ascending
        let greater = part.ascending == forward   // looking for larger values?
        if value.isNull {
            // Beyond NULL: everything non-NULL if NULLs are at the side we move away from.
            return nullsFirst == forward ? SQLFragment("\(e) IS NOT NULL") : nil
        }
        let comparison = e + (greater ? " > " : " < ") + .bound(value)
        // NULLs lie beyond a value when they sit at the end we move towards.
        let nullsBeyond = nullsFirst != forward
        return nullsBeyond ? "(" + comparison + " OR \(e) IS NULL)" : comparison
    }
}
