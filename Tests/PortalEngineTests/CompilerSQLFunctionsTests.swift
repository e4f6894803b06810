import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The registered SQL functions, called directly.
@Suite struct CompilerSQLFunctionsTests {
    func value(_ sql: String, _ bindings: [Value] = []) throws -> Value {
        try TestDatabase().column("SELECT " + sql, bindings)[0]
    }

    @Test func folding() throws {
        #expect(try value("portal_fold(?, 1)", ["ZÜRICH"]) == "zürich")
        #expect(try value("portal_fold(?, 2)", ["Antônio"]) == "Antonio")
        #expect(try value("portal_fold(?, 3)", ["ÉCOLE"]) == "ecole")
        #expect(try value("portal_fold(?, 0)", ["ÉCOLE"]) == "ÉCOLE")
        #expect(try value("portal_fold(?, 3)", [42]) == 42)
        #expect(try value("portal_fold(?, 3)", [.null]) == .null)
        // The empty text stays text (a nil pointer would make it NULL).
        #expect(try value("typeof(portal_fold(?, 1))", [""]) == "text")
        #expect(try value("portal_fold(?, 1)", ["A\u{0}B"]) == "a\u{0}b")
        #expect(try value("portal_lower(?)", ["ÀB\u{0}C"]) == "àb\u{0}c")
        #expect(try value("portal_upper(?)", ["straße"]) == "STRASSE")
        #expect(try value("portal_upper(?)", [12]) == "12")
        #expect(try value("portal_length(?)", ["nul\u{0}byte"]) == 8)
        #expect(try value("portal_length(?)", ["🙂é"]) == 2)
    }

    /// The ASCII fast path of `portal_fold` (bytes folded in SQLite's memory) gives the same text
    /// as the evaluator's fold for every ASCII character and for mixed text, with every flag.
    @Test func foldingASCIIBytesAgreesWithTheEvaluator() throws {
        let samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) } + ["MiXeD 123", "ZÜRICH", "", "Ab\u{0}C"]
            // Eight bytes and more: the word-at-a-time path, every byte of ASCII in it, and its ends.
            + [String((0..<128).map { Character(UnicodeScalar(UInt8($0))) }), "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[`abcz{",
               "ZURICH ZÜRICH zürich ABCDEFGH", "ÀBCDEFGHIJ", "ABCDEFGHÀ", "ABCDEFG\u{7F}H\u{80}"]
        for text in samples {
            for flags in 1...3 {
                let expected = TextMatching.fold(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
                #expect(try value("portal_fold(?, \(flags))", [.text(text)]) == .text(expected), "\(text.debugDescription) \(flags)")
            }
        }
    }

    /// `+(x) = text COLLATE portal_fold<flags>` (what `==[c]`/`[d]` with a text literal compiles
    /// to) answers what `portal_fold(x, flags) = portal_fold(text, flags)` answers, for text on
    /// the ASCII path and on Foundation's (ß, Cherokee, decomposed letters), numbers, blobs, NULL;
    /// the literal's kept fold follows a literal that changes.
    @Test func foldEqualsAgreesWithComparingTheFolds() throws {
        let texts: [Value] = ["Zürich", "ZÜRICH", "zürich", "zurich", "", "A\u{0}b", "a\u{0}B", "STRASSE", "straße",
                              "\u{13A0}", "\u{AB70}", "e\u{301}cole", "École", "東京", "K", "\u{212A}", "12", 12, .real(12.5),
                              .blob([0x31, 0x32]), .null]
        let literals: [Value] = ["zürich", "ZURICH", "", "a\u{0}b", "strasse", "Straße", "\u{13A0}", "ecole", "東京", "k", "12", .null]
        for x in texts {
            for literal in literals {
                for flags in 1...3 {
                    let expected = try value("portal_fold(?, \(flags)) = portal_fold(?, \(flags))", [x, literal])
                    #expect(try value("+(?) = ? COLLATE portal_fold\(flags)", [x, literal]) == expected,
                            "\(x) \(literal) \(flags)")
                }
            }
        }
    }

    @Test func matching() throws {
        #expect(try value("portal_like(?, ?, 0)", ["abc", "a*"]) == 1)
        #expect(try value("portal_like(?, ?, 0)", ["abc", "A*"]) == 0)
        #expect(try value("portal_like(?, ?, 1)", ["abc", "A?C"]) == 1)
        #expect(try value("portal_like(?, ?, 0)", ["a%c", "a%c"]) == 1)
        #expect(try value("portal_like(?, ?, 0)", ["abc", "a%"]) == 0)
        #expect(try value("portal_like(?, ?, 0)", [.null, "*"]) == .null)
        #expect(try value("portal_matches(?, ?, 0)", ["love me", ".*love.*"]) == 1)
        #expect(try value("portal_matches(?, ?, 0)", ["love me", "love"]) == 0)
        #expect(try value("portal_matches(?, ?, 1)", ["LOVE", "love"]) == 1)
        #expect(try value("portal_contains(?, ?, 3)", ["Zürich", "URI"]) == 1)
        #expect(try value("portal_beginswith(?, ?, 0)", ["a\u{0}b", "a\u{0}"]) == 1)
        #expect(try value("portal_endswith(?, ?, 0)", [123, "23"]) == 1)
        #expect(throws: TestFailure.self) { try value("portal_matches(?, ?, 0)", ["x", "("]) }
    }

    /// The collation keeps the right side's fold while its bytes stay the same: rows whose
    /// right side changes from row to row, and back, answer as comparing the folds does.
    @Test func foldCollationFollowsARightSideThatChanges() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE t (x, y);
            INSERT INTO t VALUES ('Zürich', 'zürich'), ('ZÜRICH', 'zurich'), ('Oslo', 'zürich'), ('STRASSE', 'straße'),
                                 ('oslo', 'OSLO'), ('Zürich', 'ZÜRICH'), (12, '12'), (NULL, 'x'), ('x', NULL), ('东京', '东京');
            """)
        for flags in 1...3 {
            let expected = try database.column("SELECT portal_fold(x, \(flags)) = portal_fold(y, \(flags)) FROM t ORDER BY rowid")
            #expect(try database.column("SELECT +(x) = y COLLATE portal_fold\(flags) FROM t ORDER BY rowid") == expected)
            #expect(expected.contains(1) && expected.contains(0))
        }
    }

    /// The pattern kept for the statement: a constant pattern over many rows, a pattern that
    /// changes from row to row (SQLite drops what was kept), and options that change.
    @Test func matchesKeepsItsPatternOnlyWhileItHolds() throws {
        let database = try TestDatabase()
        try database.execute("""
            CREATE TABLE t (s TEXT, p TEXT, f INTEGER);
            INSERT INTO t VALUES ('abc', 'a.c', 0), ('ABC', 'a.c', 0), ('ABC', 'a.c', 1), ('xyz', 'x.*', 0), ('abc', 'x.*', 0),
                                 ('name 12 5', 'name 1[0-9]* 5.*', 0), ('name 2 5', 'name 1[0-9]* 5.*', 0), (NULL, 'a', 0);
            """)
        #expect(try database.column("SELECT portal_matches(s, 'a.c', 0) FROM t ORDER BY rowid")
                == [1, 0, 0, 0, 1, 0, 0, .null])
        #expect(try database.column("SELECT portal_matches(s, p, 0) FROM t ORDER BY rowid") == [1, 0, 0, 1, 0, 1, 0, .null])
        #expect(try database.column("SELECT portal_matches(s, p, f) FROM t ORDER BY rowid") == [1, 0, 1, 1, 0, 1, 0, .null])
        #expect(try database.column("SELECT portal_matches(s, 'a.c', f) FROM t ORDER BY rowid") == [1, 0, 1, 0, 1, 0, 0, .null])
    }

    /// The string tests fold each row's bytes against the second argument folded once: the
    /// same answers as the evaluator's, for ASCII, non-ASCII, Foundation-folded and invalid text,
    /// numbers, every flag, a part that changes from row to row.
    @Test func stringTestsAgreeWithTheEvaluator() throws {
        func text(_ value: Value) -> String {
            switch value {
            case .text(let text): return text
            case .integer(let n): return String(n)
            default: return ""
            }
        }
        let database = try TestDatabase()
        try database.execute("CREATE TABLE t (s, p)")
        let texts = ["Zürich", "ZÜRICH", "zurich", "Straße", "STRASSE", "Ꭰx", "ǰa", "abc", "", "a\u{0}b", "東京", "Antônio", "ANTONIO"]
        let parts = ["zü", "ZU", "CH", "ss", "ß", "ꭰ", "ǰ", "", "B", "\u{0}", "京", "ton", "ÔN"]
        for text in texts {
            for part in parts {
                try database.execute("INSERT INTO t VALUES ('\(text.replacingOccurrences(of: "\u{0}", with: "' || char(0) || '"))', "
                                     + "'\(part.replacingOccurrences(of: "\u{0}", with: "' || char(0) || '"))')")
            }
        }
        try database.execute("INSERT INTO t VALUES (123, '23'), (CAST(X'61FF62' AS TEXT), 'a'), (CAST(X'61FF62' AS TEXT), '\u{FFFD}b')")
        let rows = try database.query("SELECT s, p FROM t ORDER BY rowid")
        for flags in 0...3 {
            var options: ComparisonOptions = []
            if flags & 1 != 0 { options.insert(.caseInsensitive) }
            if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
            for (function, evaluate) in [("portal_contains", TextMatching.contains), ("portal_beginswith", TextMatching.beginsWith),
                                         ("portal_endswith", TextMatching.endsWith)] as [(String, (String, String, ComparisonOptions) -> Bool)] {
                let answers = try database.column("SELECT \(function)(s, p, \(flags)) FROM t ORDER BY rowid")
                for (row, answer) in zip(rows, answers) {
                    let expected: Value = evaluate(text(row[0]), text(row[1]), options) ? 1 : 0
                    #expect(answer == expected, "\(function)(\(row[0]), \(row[1]), \(flags))")
                }
                // A constant part, kept for the statement.
                #expect(try database.column("SELECT \(function)(s, 'zü', \(flags)) FROM t ORDER BY rowid")
                        == rows.map { evaluate(text($0[0]), "zü", options) ? 1 : 0 })
            }
        }
    }

    @Test func affinityOfDeclaredTypes() {
        let cases: [(String, ColumnAffinity)] = [
            ("NVARCHAR(200)", .text), ("int", .integer), ("", .blob), ("DATETIME", .numeric), ("Floating", .real),
            ("BIGINT", .integer), ("character", .text), ("double precision", .real), ("NUMERIC(10,2)", .numeric),
            ("blob", .blob), ("CHARINT", .integer), ("ÜText", .text), ("x", .numeric),
        ]
        for (type, affinity) in cases { #expect(ColumnAffinity(declaredType: type) == affinity, "\(type)") }
    }

    @Test func datesRoundTrip() throws {
        #expect(DateSemantics.parse("2021-01-01") == 1_609_459_200)
        #expect(DateSemantics.parse("2021-01-01 00:00:01") == 1_609_459_201)
        #expect(DateSemantics.parse("2021-01-01T10:20:30.5Z") == 1_609_459_200 + 37_230.5)
        #expect(DateSemantics.parse("1969-12-31 23:59:59") == -1)
        // An offset from UTC, as PostgreSQL writes a timestamptz: the same instant.
        #expect(DateSemantics.parse("2021-01-01 05:30:00+05:30") == 1_609_459_200)
        #expect(DateSemantics.parse("2020-12-31 20:30:00.25-0330") == 1_609_459_200.25)
        #expect(DateSemantics.parse("2021-01-01 01:00:00+01") == 1_609_459_200)
        #expect(DateSemantics.parse("2021-01-01+01") == nil)
        #expect(DateSemantics.parse("2021-01-01 01:00:00+1") == nil)
        #expect(DateSemantics.parse("2021-13-01") == nil)
        #expect(DateSemantics.parse("2021-01-01x") == nil)
        #expect(DateSemantics.parse("yesterday") == nil)
        #expect(Dates.isoText(1_609_459_200) == .text("2021-01-01 00:00:00"))
        #expect(Dates.isoText(-1) == .text("1969-12-31 23:59:59"))
        #expect(Dates.isoText(951_782_400) == .text("2000-02-29 00:00:00"))
        #expect(Dates.isoText(1e12) == .null)   // past year 9999
        #expect(Dates.cast(.integer(0)) == DateSemantics.referenceDateOffset)
        let sqliteNow = try value("CAST(strftime('%s', 'now') AS INTEGER)")
        guard case .integer(let seconds) = sqliteNow else { throw TestFailure("strftime gave \(sqliteNow)") }
        #expect(abs(Double(seconds) - Dates.now()) < 5)
    }

    /// The date text of a number of seconds, against SQLite's own (`strftime` with `%f`, whose
    /// `.000` the engine leaves out), on random times with fractions, also just short of the
    /// next second.
    @Test func dateTextAgreesWithSQLitesOnFractions() throws {
        var random = SeededRandom(seed: 0xDA7E)
        var times: [Double] = [0.9994, 0.9996, 59.9997, 86_399.9996, -0.0004, -0.9996, 1_609_459_199.9999]
        for _ in 0..<2_000 {
            // Tenths of a millisecond, never a tie at half of one (where float rounding may differ).
            var tenths = random.int(0...9_999)
            if tenths % 10 == 5 { tenths += 1 }
            times.append(Double(random.int(-2_000_000_000...4_000_000_000)) + Double(tenths) / 10_000)
        }
        let database = try TestDatabase()
        for time in times {
            let sqlite = try database.column("SELECT strftime('%Y-%m-%d %H:%M:%f', ?, 'unixepoch')", [.real(time)])
            guard case .text(let text)? = sqlite.first else { throw TestFailure("no text for \(time)") }
            let expected = text.hasSuffix(".000") ? String(text.dropLast(4)) : text
            #expect(DateSemantics.text(time) == expected, "\(time)")
        }
    }

    @Test func argumentsAndVariables() throws {
        let database = try TestDatabase.chinook()
        let schema = try database.schema()
        let track = try #require(schema.entity(named: "Track"))
        let filter = try PredicateCompiler.compile("Milliseconds > %@ AND GenreId IN %@ AND %K BEGINSWITH $p",
                                                   arguments: [.value(300_000), .list([1, 2]), .value("Name")],
                                                   variables: ["p": .value("A")], entity: track, schema: schema, alias: "t0", dialect: .sqlite)
        let found = try database.column("SELECT count(*) FROM Track AS t0 WHERE " + filter.condition.sql,
                                        filter.condition.bindings)
        let expected = try database.column(
            "SELECT count(*) FROM Track WHERE Milliseconds > 300000 AND GenreId IN (1, 2) AND Name GLOB 'A*'")
        #expect(found == expected)
        #expect(filter.condition.sql.contains("?"))
        #expect(!filter.condition.sql.contains("300000"))
    }
}
