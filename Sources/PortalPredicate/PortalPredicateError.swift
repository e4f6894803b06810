/// Why a predicate could not be parsed or compiled, and where.
public struct PortalPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem, for code to switch on.
    public enum Kind: Sendable, Hashable {
        /// The text does not follow the grammar.
        case syntax
        /// Nesting deeper than the parser's limit.
        case tooDeep
        /// An entity, attribute, relationship, variable or function that does not exist.
        case unknownName
        /// An operator or function applied where it cannot apply (`@sum` on text, …).
        case invalidOperation
        /// A construct of Apple's language that has no meaning on a database (`FUNCTION`, …).
        case unsupported
        /// A `%@` placeholder without an argument, a wrong argument type, …
        case argument
        /// The caller asked the parse or the compile to stop (`PredicateInterruption`).
        case interrupted
    }

    /// What kind of problem.
    public var kind: Kind
    /// What is wrong and what was expected, in a sentence without the "error:" prefix.
    public var message: String
    /// Where, in characters (grapheme clusters) from the start of the predicate text: the
    /// offending token's range. `nil` when it cannot be pinned to one place.
    public var range: Range<Int>?
    /// The closest valid name, for "did you mean …?".
    public var suggestion: String?

    /// An error of `kind` with `message`, at `range` when known.
    public init(_ kind: Kind, _ message: String, range: Range<Int>? = nil, suggestion: String? = nil) {
        self.kind = kind
        self.message = message
        self.range = range
        self.suggestion = suggestion
    }

    /// The message, with "(did you mean '…'?)" when there is a suggestion.
    public var description: String {
        guard let suggestion else { return message }
        return "\(message) (did you mean '\(suggestion)'?)"
    }
}
