import PortalPredicate

/// Parses predicate text with the predicate engineer's parser.
func parseQuery(_ text: String, arguments: [Argument]) throws -> Query {
    try Query.parse(text, arguments: arguments)
}
