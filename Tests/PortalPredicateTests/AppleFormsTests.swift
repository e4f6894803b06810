import Testing
@testable import PortalPredicate

// The forms of Apple's predicate language that real code uses
// (docs/predicates.md, "Apple's forms that real code uses").

private func parse(_ text: String, _ arguments: [Argument] = []) throws -> PredicateTree {
    try PredicateTree.parse(text, arguments: arguments)
}

private func failure(_ text: String, _ arguments: [Argument] = []) -> PortalPredicateError? {
    do { _ = try PredicateTree.parse(text, arguments: arguments); return nil } catch { return error }
}

private func holds(_ text: String, _ object: MemoryObject = Sample.zurich) throws -> Bool {
    try PredicateTree.parse(text).evaluate(with: object)
}

private func value(_ text: String) throws -> Value {
    try PredicateTree.parse("x == " + text).evaluateRight()
}

private extension PredicateTree {
    func evaluateRight() throws -> Value {
        guard case .comparison(let c) = self else { return .null }
        return try c.right.evaluate(with: Sample.zurich)
    }
}

/// The text prints and parses back to the same tree.
private func roundTrips(_ text: String, _ arguments: [Argument] = []) throws -> Bool {
    let tree = try parse(text, arguments)
    return try parse(tree.description) == tree
}

@Suite struct AppleFormsTests {
    @Test func bitwiseOperators() throws {
        let flags = ExpressionTree.key("flags")
        #expect(try parse("(flags & 4) != 0") == .comparison(Comparison(.arithmetic(flags, .bitwiseAnd, .literal(4)), .notEqual, .literal(0))))
        // Tighter than comparisons, looser than + -, C's order among themselves: << then & then ^ then |.
        #expect(try parse("flags & 4 != 0") == parse("(flags & 4) != 0"))
        #expect(try parse("a | b ^ c & d << e + 1 == 0") == parse("(a | (b ^ (c & (d << (e + 1))))) == 0"))
        #expect(try parse("1 << 3 == 8").description == "1 << 3 == 8")
        #expect(try parse("a >> 1 > 2") == parse("(a >> 1) > 2"))
        #expect(try value("1 << 3") == 8)
        #expect(try value("12 & 10") == 8)
        #expect(try value("12 | 3") == 15)
        #expect(try value("12 ^ 10") == 6)
        #expect(try value("-16 >> 2") == -4)
        #expect(try value("1 << -1") == 0)          // a negative shift goes the other way, as SQLite
        #expect(try value("1 << 64") == 0)
        #expect(try value("-1 >> 70") == -1)
        #expect(try value("7.9 & 3") == 3)          // reals truncate
        #expect(try value("'6x' | 1") == 7)         // text by its leading integer
        #expect(try value("nil & 1") == .null)
        #expect(try holds("(Milliseconds & 0x20000) != 0"))   // 1_200_000 is 0x124F80
        for text in ["a & b | c == 1", "(a | b) & c == 1", "a << (b + 1) == 2", "a - (b ^ c) == 1", "-(a & 1) == 0"] {
            #expect(try roundTrips(text), "\(text)")
        }
        // `&&` and `||` stay AND and OR.
        #expect(try parse("a == 1 && b & 1 == 1 || c | 2 == 2") == parse("(a == 1 AND (b & 1) == 1) OR (c | 2) == 2"))
    }

    @Test func colonFunctionCalls() throws {
        #expect(try parse("lowercase:(type) == 'individual'") == parse("lowercase(type) == 'individual'"))
        #expect(try parse("sum:(tracks.Milliseconds) > 3") == parse("sum(tracks.Milliseconds) > 3"))
        #expect(try parse("abs:(-2) == 2").description == "abs(-2) == 2")
        #expect(try holds("uppercase:(Name) == 'ZÜRICH'"))
        #expect(failure("frobnicate:(x) == 1")?.kind == .unknownName)
        #expect(failure("lowercase:(a, b) == 1")?.kind == .invalidOperation)
    }

    @Test func localeOption() throws {
        #expect(try comparison("a >[l] 'b'").options == [.localeSensitive])
        #expect(try comparison("a ==[cl] 'b'").options == [.caseInsensitive, .localeSensitive])
        #expect(try comparison("a ==[LDC] 'b'").options == [.caseInsensitive, .diacriticInsensitive, .localeSensitive])
        #expect(try parse("a ==[lc] 'b'").description == "a ==[cl] \"b\"")
        #expect(failure("a ==[cc] 'b'")?.kind == .syntax)
        #expect(failure("a ==[x] 'b'")?.message.contains("c, d, l and n") == true)
        // Bytes put "a" after "B"; Unicode collation puts it before.
        #expect(try holds("'a' > 'B'"))
        #expect(try !holds("'a' >[l] 'B'"))
        #expect(try holds("'a' <[l] 'B' AND 'B' <[l] 'c'"))
        #expect(try holds("'e\\u0301' ==[l] '\\u00e9'"))      // canonically equivalent
        #expect(try !holds("'e\\u0301' == '\\u00e9'"))
        #expect(try holds("'Zürich' ==[cl] 'zürich'"))
        #expect(try holds("3 >[l] 20") == false)              // numbers stay numbers
        #expect(try holds("Name IN[l] {'a', 'ZÜRICH'}"))
    }

    private func comparison(_ text: String) throws -> Comparison {
        guard case .comparison(let c) = try parse(text) else { throw PortalPredicateError(.syntax, "not a comparison") }
        return c
    }

    @Test func keyPathArgumentsAndPrintfSpecifiers() throws {
        #expect(try parse("ANY moods.%K == %@", [.value("name"), .value("calm")]) == parse("ANY moods.name == 'calm'"))
        #expect(try parse("%K.%K BEGINSWITH 'a'", [.value("Album"), .value("Title")]) == parse("Album.Title BEGINSWITH 'a'"))
        #expect(try parse("a.%K == 1", [.value("b.c")]) == parse("a.b.c == 1"))
        #expect(try parse("SUBQUERY(%K, $x, $x.%K >= %lu).@count > 0", [.value("tracks"), .value("Milliseconds"), .value(5)])
            == parse("SUBQUERY(tracks, $x, $x.Milliseconds >= 5).@count > 0"))
        #expect(failure("a.%K == 1", [.value(3)])?.kind == .argument)
        let integers = ["%d", "%i", "%u", "%ld", "%li", "%lu", "%lld", "%llu", "%hd", "%hu", "%hhd", "%qd", "%zd", "%zu",
                        "%td", "%jd", "%x", "%X", "%o", "%D", "%U", "%O", "%c", "%C", "%lx"]
        for form in integers {
            #expect(try parse("a == \(form)", [.value(7)]) == parse("a == 7"), "\(form)")
            #expect(failure("a == \(form)", [.value("x")])?.kind == .argument, "\(form)")
        }
        for form in ["%f", "%lf", "%Lf", "%e", "%E", "%g", "%G", "%a", "%A", "%la", "%F"] {
            #expect(try parse("a == \(form)", [.value(.real(2.5))]) == parse("a == 2.5"), "\(form)")
            #expect(try parse("a == \(form)", [.value(2)]) == parse("a == 2.0"), "\(form)")
        }
        for form in ["%s", "%S", "%ls"] {
            #expect(try parse("a == \(form)", [.value("x")]) == parse("a == 'x'"), "\(form)")
        }
        #expect(failure("a == %y")?.message.contains("printf specifier") == true)
    }

    @Test func inWithNilMatchesNull() throws {
        #expect(try holds("Composer IN {nil, 'x'}", Sample.loveSong))
        #expect(try holds("Composer IN {NULL}", Sample.loveSong))
        #expect(try !holds("Composer IN {'x'}", Sample.loveSong))
        #expect(try holds("Composer IN {nil, 'Antônio'}", Sample.zurich))
        #expect(try !holds("Composer IN {nil}", Sample.zurich))
        #expect(try holds("{nil, 1} CONTAINS Composer", Sample.loveSong))
    }

    @Test func emptyNeedlesAreFalse() throws {
        for op in ["BEGINSWITH", "ENDSWITH", "CONTAINS"] {
            for options in ["", "[c]", "[d]", "[cd]", "[n]", "[l]", "[cdl]"] {
                #expect(try !holds("Name \(op)\(options) ''"), "\(op)\(options)")
                #expect(try !holds("Name \(op)\(options) \"\"", Sample.empty), "\(op)\(options) on empty text")
            }
        }
        #expect(try holds("Name BEGINSWITH 'Z' AND Name ENDSWITH 'H' AND Name CONTAINS 'RIC'"))
    }

    @Test func selectorOperatorsHaveNoMeaning() throws {
        for text in ["SELF isKindOfClass: %@", "name respondsToSelector: 'x'", "SELF conformsToProtocol: x"] {
            let error = try #require(failure(text, [.value("NSString")]), "\(text)")
            #expect(error.kind == .unsupported)
            #expect(error.message.contains("has no meaning on a database"))
        }
        let error = try #require(failure("SELF isKindOfClass: x"))
        #expect(error.message.hasPrefix("'isKindOfClass:'"))
        #expect(error.range == 5..<18)
    }

    @Test func errorMessages() throws {
        // Curly quotes suggest straight ones, wherever they stand.
        let curly = try #require(failure("name == “Bob”"))
        #expect(curly.message.contains("straight quotes"))
        #expect(curly.range == 8..<9)
        #expect(failure("name == ‘Bob’")?.message.contains("straight quotes") == true)
        // SQL's doubled quote suggests the backslash.
        let doubled = try #require(failure("name == 'It''s'"))
        #expect(doubled.message.contains("\\'"))
        #expect(doubled.range == 11..<13)
        #expect(failure(#"name == "say ""hi"""#)?.message.contains("\\\"") == true)
        #expect(try parse("name == ''") == parse("name == \"\""))
        // An unknown @aggregate has a place.
        let aggregate = try #require(failure("tracks.@foo > 1"))
        #expect(aggregate.kind == .unknownName)
        #expect(aggregate.range == 7..<11)
        #expect(failure("tracks.@summ > 1")?.suggestion == "@sum")
        #expect(try parse("tracks.@COUNT > 1") == parse("tracks.@COUNT > 1"))
        // A bad regular expression: the engine's reason, under the pattern.
        let regex = try #require(failure("name MATCHES 'a(b' OR x == 1"))
        #expect(regex.message == "invalid regular expression for MATCHES: expected ')'")
        #expect(regex.range == 13..<18)
        #expect(failure("name MATCHES '[a-'")?.range == 13..<18)
        // The bitwise operators are no longer unexpected characters, `>>` no longer a '>' without value.
        #expect(failure("a & 1 == 1") == nil)
        #expect(failure("a >> 1 == 1") == nil)
        #expect(failure("a ~ 1")?.message == "unexpected character '~'")
    }
}
