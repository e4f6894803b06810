import Testing
@testable import PortalPredicate

/// The examples of docs/predicates.md (the part after `where`, without `sort by`/`limit`).
let specificationExamples = [
    #"Composer BEGINSWITH "Antônio""#,
    #"Album.Artist.Name ==[cd] "antonio carlos jobim""#,
    "albums.@count > 10",
    "ANY tracks.Milliseconds > 1000000",
    "ALL tracks.UnitPrice == 0.99",
    "SUBQUERY(invoices, $i, $i.Total > 20).@count >= 2",
    #"ReportsTo.FirstName == "Andrew""#,
    #"InvoiceDate BETWEEN {CAST("2021-01-01", "NSDate"), CAST("2021-12-31", "NSDate")}"#,
    #"Name MATCHES "(?i).*love.*" AND NOT (GenreId IN {1, 3})"#,
    #"Country IN {"Brazil", "Portugal"} AND Fax != nil"#,
]

private func parse(_ text: String, _ arguments: [Argument] = []) throws -> PredicateTree {
    try PredicateTree.parse(text, arguments: arguments)
}

private func comparison(_ text: String) throws -> Comparison {
    guard case .comparison(let c) = try parse(text) else {
        Issue.record("not a comparison: \(text)")
        return Comparison(.literal(.null), .equal, .literal(.null))
    }
    return c
}

private func key(_ path: String) -> ExpressionTree {
    let parts = path.split(separator: ".").map(String.init)
    return parts.dropFirst().reduce(ExpressionTree.key(parts[0])) { .member($0, $1) }
}

private func error(_ text: String) -> PortalPredicateError? {
    do {
        _ = try PredicateTree.parse(text)
        return nil
    } catch {
        return error
    }
}

@Suite struct ParserTests {
    @Test(arguments: specificationExamples)
    func specificationExampleParsesAndRoundTrips(_ text: String) throws {
        let tree = try parse(text)
        #expect(try parse(tree.description) == tree)
    }

    @Test func andBindsTighterThanOr() throws {
        #expect(try parse("a == 1 OR b == 2 AND c == 3") == parse("a == 1 OR (b == 2 AND c == 3)"))
        #expect(try parse("a == 1 AND b == 2 OR c == 3") == parse("(a == 1 AND b == 2) OR c == 3"))
        #expect(try parse("a == 1 OR b == 2 AND c == 3") != parse("(a == 1 OR b == 2) AND c == 3"))
        #expect(try parse("a == 1 || b == 2 && !c == 3") == parse("a == 1 OR (b == 2 AND (NOT c == 3))"))
    }

    @Test func chainsAreOneFlatList() throws {
        let a = PredicateTree.comparison(Comparison(key("a"), .equal, .literal(1)))
        let b = PredicateTree.comparison(Comparison(key("b"), .equal, .literal(2)))
        let c = PredicateTree.comparison(Comparison(key("c"), .equal, .literal(3)))
        #expect(try parse("a == 1 AND b == 2 AND c == 3") == .and([a, b, c]))
        #expect(try parse("a == 1 OR b == 2 OR c == 3") == .or([a, b, c]))
        #expect(try parse("a == 1 || b == 2 && c == 3 || a == 1") == .or([a, .and([b, c]), a]))
        // Parentheses keep their grouping (the printer writes them back).
        #expect(try parse("(a == 1 OR b == 2) OR c == 3") == .or([.or([a, b]), c]))
        #expect(try parse("(a == 1 OR b == 2) OR c == 3").description == "(a == 1 OR b == 2) OR c == 3")
        #expect(try parse("a == 1 AND (b == 2 AND c == 3)").description == "a == 1 AND (b == 2 AND c == 3)")
        #expect(try comparison("x == 1 - 2 - 3").right == .arithmetic(.arithmetic(.literal(1), .subtract, .literal(2)), .subtract, .literal(3)))
    }

    @Test func everyOperatorAndSynonym() throws {
        let forms: [(String, ComparisonOperator)] = [
            ("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less),
            ("<=", .lessOrEqual), ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual),
            ("=>", .greaterOrEqual), ("BETWEEN", .between), ("in", .in), ("Contains", .contains),
            ("BEGINSWITH", .beginsWith), ("endswith", .endsWith), ("LIKE", .like), ("MATCHES", .matches),
        ]
        for (form, op) in forms {
            let c = try comparison("a \(form) b")
            #expect(c.op == op, "\(form)")
            #expect(c.left == .key("a") && c.right == .key("b"))
        }
    }

    @Test func options() throws {
        #expect(try comparison(#"a ==[c] "x""#).options == [.caseInsensitive])
        #expect(try comparison(#"a ==[d] "x""#).options == [.diacriticInsensitive])
        #expect(try comparison(#"a LIKE[cd] "x""#).options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try comparison(#"a BEGINSWITH[n] "x""#).options == [.normalized])
        #expect(try comparison(#"a == "x""#).options == [])
        #expect(error(#"a ==[q] "x""#)?.kind == .syntax)
    }

    @Test func quantifiers() throws {
        #expect(try comparison("ANY r.a > 1").quantifier == .any)
        #expect(try comparison("some r.a > 1").quantifier == .any)
        #expect(try comparison("ALL r.a > 1").quantifier == .all)
        #expect(try comparison("NONE r.a > 1").quantifier == Quantifier.none)
        #expect(try comparison("r.a > 1").quantifier == nil)
        #expect(try comparison("ANY r.a > 1").left == key("r.a"))
    }

    private func decimal(_ text: String) -> Value { ExactDecimal(text).map(Value.decimal) ?? .null }

    /// A number no double writes back as it is written keeps every digit (its scale too); one a
    /// double writes back stays a double, and an exponent makes a double.
    @Test func decimalLiteralsKeepEveryDigit() throws {
        let cases: [(String, Value)] = [
            ("12345678901234567890.0123456780", decimal("12345678901234567890.0123456780")),
            ("-0.0000000001", decimal("-0.0000000001")), ("4.10", decimal("4.10")), ("0.00", decimal("0.00")),
            ("007.50", decimal("7.50")), ("99999999999999999999", decimal("99999999999999999999")),
            ("0.1", 0.1), ("2.5", 2.5), ("-0.0", .real(-0.0)), ("1e-320", Double("1e-320").map(Value.real) ?? .null), ("4.10e0", 4.1),
        ]
        for (text, value) in cases {
            let parsed = try comparison("a == \(text)").right
            #expect(parsed == .literal(value), "\(text)")
            // Printed as written, read back the same.
            let tree = try parse("a == \(text)")
            #expect(try parse(tree.description) == tree, "\(tree.description)")
        }
        #expect(decimal("-0.000") == decimal("0.000"))
        #expect(ExactDecimal("1e5") == nil && ExactDecimal("1.") == nil && ExactDecimal(".5") == nil && ExactDecimal("NaN") == nil)
        #expect(ExactDecimal("-12.50")?.double == -12.5)
        // Whether SQLite's double keeps the number (its scale aside).
        #expect(ExactDecimal("4.10")?.isDoubleExactly == true && ExactDecimal("-0.0000000001")?.isDoubleExactly == true)
        #expect(ExactDecimal("12345678901234567890.0123456789")?.isDoubleExactly == false)
        #expect(ExactDecimal("0.30000000000000004")?.isDoubleExactly == true && ExactDecimal("0.3000000000000000444")?.isDoubleExactly == false)
    }

    @Test func literals() throws {
        let cases: [(String, Value)] = [
            ("42", 42), ("-42", -42), ("0x1F", 31), ("0o17", 15), ("0b101", 5), ("0XfF", 255),
            ("1.5", 1.5), ("-1.5", -1.5), ("1e3", 1000.0), ("2.5E-1", 0.25), ("1e+2", 100.0),
            ("TRUE", 1), ("yes", 1), ("FALSE", 0), ("No", 0), ("NULL", nil), ("nil", nil),
            (#""a\"b""#, "a\"b"), (#"'it\'s'"#, "it's"), (#""tab\there""#, "tab\there"),
            (#""\n\r\0\\""#, "\n\r\0\\"), (#""\u00e9""#, "é"), (#""\uD83D\uDE00""#, "😀"),
            (#""\d+""#, #"\d+"#), ("'single \"double\"'", "single \"double\""),
            ("9223372036854775807", .integer(Int64.max)), ("-9223372036854775808", .integer(Int64.min)),
            ("9223372036854775808", decimal("9223372036854775808")), ("X'0aFF'", .blob([10, 255])),
            (#""Zürich 😀""#, "Zürich 😀"),
        ]
        for (text, value) in cases {
            #expect(try comparison("a == \(text)").right == .literal(value), "\(text)")
        }
        #expect(error("a == 0x") != nil)
        #expect(error("a == 0b2") != nil)
        #expect(error("a == 1e") != nil)
        #expect(error("a == 12abc") != nil)
        #expect(error("a == 0x8000000000000000")?.kind == .syntax)
        #expect(error(#"a == "open"#)?.message.contains("unterminated") == true)
        #expect(error(#"a == "\u12""#) != nil)
    }

    @Test func namesAndKeys() throws {
        #expect(try comparison("#Size > 3").left == .key("Size"))
        #expect(try comparison("#first > 3").left == .key("first"))
        #expect(try comparison(#"#"Unit Price" > 3"#).left == .key("Unit Price"))
        #expect(try comparison("Album.Artist.Name == 1").left == key("Album.Artist.Name"))
        #expect(try comparison("Zürich_2 == 1").left == .key("Zürich_2"))
        #expect(try comparison("r.@count > 1").left == .member(.key("r"), "@count"))
        #expect(try comparison("r.@sum.Total > 1").left == .member(.member(.key("r"), "@sum"), "Total"))
        #expect(try comparison("r.#size > 1").left == .member(.key("r"), "size"))
        #expect(try comparison("SELF == 3").left == .self)
        #expect(try comparison("$x == 3").left == .variable("x"))
        #expect(try comparison("$x.Total == 3").left == .member(.variable("x"), "Total"))
        #expect(error("size > 3")?.kind == .syntax)
    }

    @Test func subscripts() throws {
        #expect(try comparison("r[FIRST].a == 1").left == .member(.subscript(.key("r"), .first), "a"))
        #expect(try comparison("r[last] == 1").left == .subscript(.key("r"), .last))
        #expect(try comparison("r[SIZE] == 1").left == .subscript(.key("r"), .size))
        #expect(try comparison("r[1 + 1] == 1").left == .subscript(.key("r"), .expression(.arithmetic(.literal(1), .add, .literal(1)))))
    }

    @Test func arithmeticPrecedence() throws {
        #expect(try comparison("a + b * c ** d > 1").left ==
                .arithmetic(.key("a"), .add, .arithmetic(.key("b"), .multiply, .arithmetic(.key("c"), .power, .key("d")))))
        #expect(try comparison("(a + b) * c > 1").left ==
                .arithmetic(.arithmetic(.key("a"), .add, .key("b")), .multiply, .key("c")))
        #expect(try comparison("-a.b > 1").left == .negate(.member(.key("a"), "b")))
        #expect(try comparison("-(5) > 1").left == .literal(-5))
        #expect(try comparison("- -5 > 1").left == .literal(5))
        #expect(try comparison("2 ** -1 > a").left == .arithmetic(.literal(2), .power, .literal(-1)))
        #expect(try comparison("a / 2 > 1").left == .arithmetic(.key("a"), .divide, .literal(2)))
    }

    @Test func parenthesesAroundExpressionsAndPredicates() throws {
        #expect(try parse("(a > 1)") == parse("a > 1"))
        #expect(try parse("((a + 1)) > 2") == parse("a + 1 > 2"))
        #expect(try parse("(a + 1) * 2 > 3 AND (b == 1 OR c == 2)") ==
                .and(parse("(a + 1) * 2 > 3"), parse("b == 1 OR c == 2")))
        #expect(try parse("NOT (a) == 1") == .not(parse("a == 1")))
        #expect(error("(a)")?.message.contains("comparison operator") == true)
        #expect(error("1 + (a > 2) == 3") != nil)
    }

    @Test func aggregatesFunctionsSubqueryCast() throws {
        #expect(try comparison("a IN {1, 'x', NULL}").right == .aggregate([.literal(1), .literal("x"), .literal(nil)]))
        #expect(try comparison("a IN {}").right == .aggregate([]))
        #expect(try comparison("LOWERCASE(a) == 'x'").left == .function("lowercase", [.key("a")]))
        #expect(try comparison("now() > a").left == .function("now", []))
        for name in Parser.functions.keys where name != "now" {
            #expect(try comparison("\(name)(a) == 1").left == .function(name, [.key("a")]))
        }
        #expect(try comparison("SUBQUERY(r, $x, $x.a > 1 AND $x.b == 2).@count > 0").left ==
                .member(.subquery(collection: .key("r"), variable: "x", predicate: parse("$x.a > 1 AND $x.b == 2")), "@count"))
        #expect(try comparison(#"a > CAST("2021-01-01", "NSDate")"#).right == .cast(.literal("2021-01-01"), "NSDate"))
        #expect(error(#"a > CAST("x", "NSWhatever")"#)?.kind == .unsupported)
        #expect(error("abs(a, b) > 1")?.kind == .invalidOperation)
        let unknown = error("lowercse(a) == 'x'")
        #expect(unknown?.kind == .unknownName)
        #expect(unknown?.suggestion == "lowercase")
    }

    @Test func unsupportedForms() throws {
        #expect(error("FUNCTION(a, 'foo') == 1")?.kind == .unsupported)
        #expect(error("TERNARY(a > 1, 1, 2) == 1")?.kind == .unsupported)
        #expect(error("a UNION b == 1")?.kind == .unsupported)
        #expect(error("a INTERSECT b == 1")?.kind == .unsupported)
        #expect(error("a MINUS b == 1")?.kind == .unsupported)
        #expect(error(#"a UTI-CONFORMS-TO "public.text""#)?.kind == .unsupported)
        #expect(error(#"a UTI-EQUALS "public.text""#)?.kind == .unsupported)
    }

    @Test func constantsAndNot() throws {
        #expect(try parse("TRUEPREDICATE") == .constant(true))
        #expect(try parse("falsepredicate OR TRUEPREDICATE") == .or(.constant(false), .constant(true)))
        #expect(try parse("NOT NOT TRUEPREDICATE") == .not(.not(.constant(true))))
        #expect(try parse("! TRUEPREDICATE") == .not(.constant(true)))
    }

    @Test func formatArguments() throws {
        #expect(try parse("a > %@", [.value(30)]) == parse("a > 30"))
        #expect(try parse("%K == %@", [.value("Album.Title"), .value("x")]) == parse("Album.Title == 'x'"))
        #expect(try parse("a IN %@", [[1, 2, 3].predicateArgument]) == parse("a IN {1, 2, 3}"))
        #expect(try parse("a == %d AND b == %i AND c == %ld AND d == %lld", [.value(1), .value(2), .value(3), .value(4)]) ==
                parse("a == 1 AND b == 2 AND c == 3 AND d == 4"))
        #expect(try parse("a == %f AND b == %f", [.value(1), .value(2.5)]) == parse("a == 1.0 AND b == 2.5"))
        #expect(try parse("a == %s", [.value("x y")]) == parse("a == 'x y'"))
        #expect(try parse("a == %@", [.value(.blob([1, 2]))]) == parse("a == X'0102'"))
        #expect(try parse("a == %@", [Optional<Int>.none.predicateArgument]) == parse("a == nil"))
        #expect(try parse("%K == 1", [.value("Unit Price")]) == .comparison(Comparison(.key("Unit Price"), .equal, .literal(1))))
        // Too few, too many, wrong types.
        #expect(throws: PortalPredicateError.self) { try parse("a == %@") }
        #expect(error("a == %@")?.kind == .argument)
        #expect((try? parse("a == 1", [.value(1)])) == nil)
        #expect((try? parse("a == %d", [.value("x")])) == nil)
        #expect((try? parse("%K == 1", [.value(1)])) == nil)
        #expect((try? parse("%K == 1", [.value("a..b")])) == nil)
        #expect((try? parse("a == %f", [.value("x")])) == nil)
        #expect((try? parse("a == %@", [.value(.real(.nan))])) == nil)
        #expect(error("a == %y")?.kind == .syntax)
    }

    @Test func sortAndLimit() throws {
        let q = try Query.parse("a > 1 SORT(Album.Title ASC, b DESC, c) LIMIT(5)")
        #expect(q.predicate == (try parse("a > 1")))
        #expect(q.sort == [QuerySortKey(keyPath: ["Album", "Title"]), QuerySortKey(keyPath: ["b"], ascending: false),
                           QuerySortKey(keyPath: ["c"])])
        #expect(q.limit == 5)
        #expect(try Query.parse("TRUEPREDICATE limit(3) sort(#Size descending)") ==
                Query(predicate: .constant(true), sort: [QuerySortKey(keyPath: ["Size"], ascending: false)], limit: 3))
        #expect(try Query.parse(q.description) == q)
        #expect((try? Query.parse("a > 1 LIMIT(-1)")) == nil)
        #expect((try? Query.parse("a > 1 LIMIT(1) LIMIT(2)")) == nil)
        #expect((try? Query.parse("a > 1 SORT(b SIDEWAYS)")) == nil)
        #expect((try? PredicateTree.parse("a > 1 SORT(b)")) == nil)
        // SORT and LIMIT are not reserved words elsewhere.
        #expect(try parse("sort == 1 AND limit == 2") == parse("#sort == 1 AND #limit == 2"))
    }

    @Test func errorMessagesAndColumns() throws {
        let e1 = try #require(error("Name == AND Milliseconds > 3"))
        #expect(e1.kind == .syntax)
        #expect(e1.message == "expected a value after '==' (found AND)")
        #expect(e1.range == 8..<11)

        let e2 = try #require(error("Name == 'Zürich' AND"))
        #expect(e2.message == "expected a value after AND (found end of input)")
        #expect(e2.range == 20..<21)

        let e3 = try #require(error("(a == 1"))
        #expect(e3.message.hasPrefix("expected ')'"))
        #expect(e3.range == 7..<8)

        let e4 = try #require(error("a == 1 b == 2"))
        #expect(e4.message == "expected AND, OR or the end of the predicate after '1' (found 'b')")
        #expect(e4.range == 7..<8)

        let e5 = try #require(error("名前 ~ 1"))
        #expect(e5.message == "unexpected character '~'")
        #expect(e5.range == 3..<4)

        let e6 = try #require(error("a"))
        #expect(e6.message == "expected a comparison operator after 'a' (found end of input)")

        let e7 = try #require(error("a == 'é' &&& b == 1"))
        #expect(e7.range == 11..<12)
    }

    @Test func deepNestingIsAnErrorNotACrash() throws {
        for opener in ["(", "NOT ", "-", "{", "abs(", "! "] {
            let text = String(repeating: opener, count: 100_000) + "a == 1"
            #expect(error(text)?.kind == .tooDeep, "\(opener)")
        }
        // A chain is one level however long: 20,000 terms parse and print back.
        let longChain = (0..<20_000).map { "a\($0) == 1" }.joined(separator: " AND ")
        let longTree = try parse(longChain)
        #expect(try parse(longTree.description) == longTree)
        let longSum = "x == " + (0..<2_000).map { "a\($0)" }.joined(separator: " + ")
        #expect(error(longSum)?.kind == .tooDeep)
        let longPath = "x" + String(repeating: ".y", count: 2_000) + " == 1"
        #expect(error(longPath)?.kind == .tooDeep)
        // Within the limit is fine.
        let nested = String(repeating: "(", count: 200) + "a == 1" + String(repeating: ")", count: 200)
        #expect(try parse(nested) == parse("a == 1"))
        let chain = (0..<300).map { "a\($0) == 1" }.joined(separator: " OR ")
        let tree = try parse(chain)
        #expect(try parse(tree.description) == tree)
    }

    @Test func randomBytesNeverCrash() throws {
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array("()[]{}.,=!<>&|+-*/%@#$\"'\\ aZé0x9_ANDORNOTanyallSUBQUERY".utf8)
        for _ in 0..<3_000 {
            let length = Int.random(in: 0..<60, using: &generator)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                bytes.append(Bool.random(using: &generator) ? UInt8.random(in: 0...255, using: &generator)
                                                           : alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let tree = try? PredicateTree.parse(text) {
                #expect(try PredicateTree.parse(tree.description) == tree, "\(text)")
            }
        }
    }
}
