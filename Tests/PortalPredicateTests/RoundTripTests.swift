import Testing
@testable import PortalPredicate

@Suite struct RoundTripTests {
    @Test func generatedPredicatesRoundTrip() throws {
        var generator = TreeGenerator(seed: 2026)
        for _ in 0..<3_000 {
            let tree = generator.predicate()
            let text = tree.description
            let reparsed = try PredicateTree.parse(text)
            #expect(reparsed == tree, "\(text)")
            // The canonical form is a fixed point.
            #expect(reparsed.description == text)
        }
    }

    @Test func generatedQueriesRoundTrip() throws {
        var generator = TreeGenerator(seed: 11)
        for _ in 0..<500 {
            let sort = (0..<Int.random(in: 0..<3, using: &generator.random)).map { _ in
                QuerySortKey(keyPath: (0..<Int.random(in: 1..<3, using: &generator.random)).map { _ in generator.name() },
                               ascending: generator.chance(50))
            }
            let query = Query(predicate: generator.predicate(), sort: sort,
                              limit: generator.chance(50) ? Int.random(in: 0..<1_000, using: &generator.random) : nil)
            #expect(try Query.parse(query.description) == query, "\(query.description)")
        }
    }

    @Test func canonicalForms() throws {
        let cases = [
            ("a = 1 && b <> 2 || !c =< 3", "a == 1 AND b != 2 OR NOT c <= 3"),
            ("a ==[dc] 'x'", #"a ==[cd] "x""#),
            ("#Size > 3", "#Size > 3"),
            ("#plain > 3", "plain > 3"),
            ("(a + b) * c > -(d)", "(a + b) * c > -d"),
            ("a - (b - c) == 1", "a - (b - c) == 1"),
            ("(a ** b) ** c == 1", "a ** b ** c == 1"),
            ("a ** (b ** c) == 1", "a ** (b ** c) == 1"),
            ("some x > 1", "ANY x > 1"),
            ("(-5).x == 1", "(-5).x == 1"),
            ("a == yes", "a == 1"),
            ("a == nil", "a == NULL"),
            ("x == 0x10", "x == 16"),
        ]
        for (input, canonical) in cases {
            #expect(try PredicateTree.parse(input).description == canonical)
        }
        let weird = PredicateTree.comparison(Comparison(.key("Unit Price"), .equal, .variable("my var")))
        #expect(weird.description == #"#"Unit Price" == $"my var""#)
        #expect(try PredicateTree.parse(weird.description) == weird)
    }

    @Test func substitutingVariables() throws {
        let p = try PredicateTree.parse("a > $min AND b IN $list AND SUBQUERY(r, $x, $x.v == $min).@count > 0 AND c == -$n")
        let bound = try p.substituting(variables: ["min": .value(3), "list": .list([1, 2]), "n": .value(4)])
        #expect(bound == (try PredicateTree.parse("a > 3 AND b IN {1, 2} AND SUBQUERY(r, $x, $x.v == 3).@count > 0 AND c == -4")))
        do {
            _ = try p.substituting(variables: ["mn": .value(3)])
            Issue.record("an unknown variable must be an error")
        } catch {
            #expect(error.kind == .unknownName)
            #expect(error.suggestion == "$mn")
        }
    }
}
