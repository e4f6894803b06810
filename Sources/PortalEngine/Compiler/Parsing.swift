import PortalPredicate

/// Parses predicate text with the predicate engineer's parser.
func parseQuery(_ text: String, arguments: [Argument]) throws -> Query {
    throw PredicateError(.unsupported, "the predicate parser is not merged yet")
}
