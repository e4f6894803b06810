import PortalPredicate

/// Parses predicate text (with its `%@`-style arguments) with PortalPredicate's parser.
func parseQuery(_ text: String, arguments: [Argument]) throws -> Query {
    try Query.parse(text, arguments: arguments)
}
