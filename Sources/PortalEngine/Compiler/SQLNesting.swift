import PortalPredicate

/// Keeps what reaches SQLite within what its parser takes. SQLite's LALR parser has a fixed
/// stack (about 100 entries) and its expressions a depth limit (1,000); how much of either a
/// level of our SQL uses depends on the construct (an `EXISTS (SELECT …` level uses ten times
/// what a `(` does). So instead of guessing a cost model, SQL that nests deeper than any
/// ordinary predicate does is parsed by SQLite itself, once, on a private in-memory connection
/// (the dialect's `nestingProblem`), before it is handed on; if SQLite's parser refuses its nesting, the predicate is refused with
/// our error. Flat chains (`a OR b OR …`, `IN {…}`) and runs of NOT never get here: the compiler
/// keeps them shallow.
enum SQLNesting {
    /// Up to this many nested parentheses SQLite's parser always copes: a parenthesis costs at
    /// most the symbols of one pending `(SELECT … FROM … WHERE … AND` (about ten: nested
    /// SUBQUERY counts overflow at 15 parentheses, ANY chains at 30; `CompilerNestingTests`).
    static let unchecked = 9

    /// Throws `.tooDeep` when the dialect's parser cannot take `condition` as a WHERE clause.
    static func check(_ condition: SQLFragment, in dialect: any SQLDialect) throws {
        guard depth(of: condition.sql) > unchecked else { return }
        if let problem = dialect.nestingProblem(in: "SELECT 1 WHERE " + condition.sql) {
            throw PortalPredicateError(.tooDeep, "the predicate nests too deeply for SQLite to run (\(problem)); "
                                     + "split it, or nest fewer parentheses, quantifiers or SUBQUERYs")
        }
    }

    /// The deepest nesting of parentheses in SQL text (outside quoted names).
    static func depth(of sql: String) -> Int {
        var depth = 0, deepest = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case 0x22, 0x27: quote = byte
            case 0x28: depth += 1; deepest = max(deepest, depth)
            case 0x29: depth -= 1
            default: break
            }
        }
        return deepest
    }
}
