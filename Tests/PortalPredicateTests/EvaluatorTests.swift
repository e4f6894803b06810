import Testing
@testable import PortalPredicate

/// A small Chinook-like graph: artists, albums, tracks.
enum Sample {
    static let jobim = MemoryObject(id: 1, attributes: ["Name": "Antônio Carlos Jobim"], affinities: ["Name": .text])
    static let acdc = MemoryObject(id: 2, attributes: ["Name": "AC/DC"], affinities: ["Name": .text])

    static func track(_ id: Int64, _ name: String, composer: Value, milliseconds: Value, price: Double,
                      album: MemoryObject? = nil) -> MemoryObject {
        MemoryObject(id: .integer(id),
                     attributes: ["Name": .text(name), "Composer": composer, "Milliseconds": milliseconds,
                                  "UnitPrice": .real(price), "Code": .text(String(id)), "Raw": .text("300000")],
                     affinities: ["Name": .text, "Composer": .text, "Milliseconds": .integer, "UnitPrice": .numeric,
                                  "Code": .text, "Raw": .blob],
                     toOne: ["Album": album])
    }

    static let bossaAlbum = MemoryObject(id: 10, attributes: ["Title": "Wave", "Released": "2021-06-01 00:00:00",
                                                              "Stamp": .integer(1_622_505_600)],
                                         affinities: ["Title": .text, "Released": .text, "Stamp": .integer],
                                         toOne: ["Artist": jobim])
    static let loveSong = track(100, "Love Song", composer: nil, milliseconds: 300_000, price: 0.99, album: bossaAlbum)
    static let zurich = track(101, "ZÜRICH", composer: "Antônio", milliseconds: 1_200_000, price: 1.99, album: bossaAlbum)
    static let empty = track(102, "", composer: "", milliseconds: nil, price: 0.99)

    /// The album with its tracks (stored out of id order: the evaluator orders by id).
    static let album = {
        var a = bossaAlbum
        a.toManyRelationships["tracks"] = [zurich, loveSong]
        return a
    }()
    static let emptyAlbum = MemoryObject(id: 11, attributes: ["Title": "Nothing"], affinities: ["Title": .text],
                                         toOne: ["Artist": acdc], toMany: ["tracks": []])
}

private func holds(_ text: String, _ object: MemoryObject, _ variables: [String: Argument] = [:]) throws -> Bool {
    try PredicateTree.parse(text).evaluate(with: object, variables: variables)
}

private func value(_ text: String, _ object: MemoryObject = Sample.loveSong) throws -> Value {
    guard case .comparison(let c) = try PredicateTree.parse("\(text) == 0") else { return .null }
    return try c.left.evaluate(with: object)
}

private func failure(_ text: String, _ object: MemoryObject) -> PortalPredicateError? {
    do {
        _ = try PredicateTree.parse(text).evaluate(with: object)
        return nil
    } catch {
        return error
    }
}

@Suite struct EvaluatorTests {
    let love = Sample.loveSong, zurich = Sample.zurich, empty = Sample.empty

    @Test func nullIsTwoValued() throws {
        #expect(try holds("Composer == nil", love))
        #expect(try !holds("Composer != nil", love))
        #expect(try holds("Composer != nil", zurich))
        #expect(try holds(#"Composer != "AC/DC""#, love))            // NULL != value is true
        #expect(try !holds(#"Composer == "AC/DC""#, love))
        #expect(try holds(#"NOT (Composer == "AC/DC")"#, love))
        #expect(try holds(#"NOT (Composer BEGINSWITH "A")"#, love))
        #expect(try !holds(#"Composer < "zzz""#, love))
        #expect(try !holds(#"Composer >= """#, love))
        #expect(try !holds(#"NOT (Composer < "zzz") AND Composer < "zzz""#, love))
        #expect(try holds("nil == nil", love))
        #expect(try !holds("nil != nil", love))
        #expect(try !holds("nil < 1", love))
        #expect(try holds("Composer IN {nil, 'x'}", love))               // nil is a member
        #expect(try !holds("Composer CONTAINS ''", love))
    }

    @Test func equalityAndOrderingFollowSQLite() throws {
        #expect(try holds("Milliseconds == 300000", love))
        #expect(try holds("Milliseconds == 300000.0", love))
        #expect(try holds("Milliseconds < 300000.5", love))
        #expect(try holds("Milliseconds > 299999.9", love))
        #expect(try holds(#"1 < "a""#, love))                          // numbers before text
        #expect(try holds(#""a" < X'00'"#, love))                      // text before blobs
        #expect(try holds(#""B" < "a""#, love))                        // BINARY collation
        #expect(try !holds(#""é" == "e\u0301""#, love))                // bytes, not canonical equivalence
        #expect(try holds("9007199254740993 > 9007199254740992.0", love))   // exact, not via Double
        #expect(try !holds("9223372036854775807 > 9223372036854775806.0", love)) // the real is 2^63
        #expect(try holds("9223372036854775807 < 9223372036854775808.0", love))
        #expect(try holds("X'0102' > X'01'", love))
    }

    @Test func affinityConvertsLiterals() throws {
        // INTEGER column against number-like text: converted, as SQLite does.
        #expect(try holds(#"Milliseconds == "300000""#, love))
        #expect(try holds(#"Milliseconds > "299999""#, love))
        #expect(try holds(#"Milliseconds == " 300000 ""#, love))
        #expect(try !holds(#"Milliseconds == "300000x""#, love))
        #expect(try !holds(#"Milliseconds == "0x493E0""#, love))
        // TEXT column against a number: the number becomes text.
        #expect(try holds("Code == 100", love))
        #expect(try holds("Code < 2", love))                           // "100" < "2" as text
        // No affinity on either side: no conversion.
        #expect(try !holds(#""300000" == 300000"#, love))
        // BLOB affinity (no declared type) converts nothing.
        #expect(try !holds("Raw == 300000", love))
        // Folding ([c]) makes a function result: no affinity.
        #expect(try !holds(#"Milliseconds ==[c] "300000""#, love))
    }

    @Test func betweenAndIn() throws {
        #expect(try holds("Milliseconds BETWEEN {300000, 400000}", love))
        #expect(try holds("Milliseconds BETWEEN {200000, 300000}", love))
        #expect(try !holds("Milliseconds BETWEEN {300001, 400000}", love))
        #expect(try !holds("Milliseconds BETWEEN {nil, 400000}", love))
        #expect(try holds("Milliseconds BETWEEN $range", love, ["range": .list([1, 300_000])]))
        #expect(failure("Milliseconds BETWEEN {1, 2, 3}", love)?.kind == .invalidOperation)
        #expect(try holds("Milliseconds IN {1, 300000}", love))
        #expect(try !holds("Milliseconds IN {}", love))
        #expect(try holds(#"Milliseconds IN {"300000"}"#, love))
        #expect(try holds("Milliseconds IN $list", love, ["list": .list([300_000])]))
        #expect(try holds(#"Name IN[c] {"love song"}"#, love))
        #expect(try holds("{1, 2, 3} CONTAINS 2", love))
    }

    @Test func stringOperatorsAndOptions() throws {
        #expect(try holds(#"Name CONTAINS "ove S""#, love))
        #expect(try !holds(#"Name CONTAINS "love""#, love))            // case-sensitive
        #expect(try holds(#"Name CONTAINS[c] "LOVE""#, love))
        #expect(try holds(#"Name BEGINSWITH "Love""#, love))
        #expect(try !holds(#"Name BEGINSWITH "love""#, love))
        #expect(try holds(#"Name ENDSWITH "Song""#, love))
        #expect(try !holds(#"Name ENDSWITH "song""#, love))
        #expect(try holds(#""ZÜRICH" ==[c] "zürich""#, love))
        #expect(try !holds(#""ZÜRICH" == "zürich""#, love))
        #expect(try holds(#""Antônio" ==[d] "Antonio""#, love))
        #expect(try !holds(#""Antônio" ==[c] "antonio""#, love))
        #expect(try holds(#""Antônio" ==[cd] "ANTONIO""#, love))
        #expect(try !holds(#""Antônio" ==[n] "Antonio""#, love))
        #expect(try holds(#""Straße" ==[c] "STRASSE""#, love))
        #expect(try holds(#"Composer BEGINSWITH[cd] "anto""#, zurich))
        #expect(try holds(#"Name >[c] "zz""#, zurich))                // "zürich": ü sorts after z by bytes
        #expect(try holds("Milliseconds BEGINSWITH '12'", zurich))       // numbers as their text
        // Empty strings.
        #expect(try !holds(#"Name CONTAINS """#, empty))                // an empty needle finds nothing
        #expect(try !holds(#"Name BEGINSWITH "" OR Name ENDSWITH """#, empty))
        #expect(try holds(#"Name == """#, empty))
        #expect(try !holds(#"Name == nil"#, empty))
    }

    @Test func likeAndMatches() throws {
        #expect(try holds(#"Name LIKE "Love*""#, love))
        #expect(try holds(#"Name LIKE "?ove Son?""#, love))
        #expect(try !holds(#"Name LIKE "love*""#, love))
        #expect(try holds(#"Name LIKE[c] "LOVE*""#, love))
        #expect(try holds(#"Name LIKE "*""#, empty))
        #expect(try !holds(#"Name LIKE "?""#, empty))
        #expect(try holds(#""a%b_c" LIKE "a%b_c""#, love))              // % and _ are not special
        #expect(try !holds(#""axbyc" LIKE "a%b_c""#, love))
        #expect(try holds(#""a*b" LIKE "a*b""#, love))
        #expect(try holds(#""zürich" LIKE "z?rich""#, love))
        #expect(try holds(#"Name MATCHES "Love.*""#, love))
        #expect(try !holds(#"Name MATCHES "Love""#, love))              // whole string only
        #expect(try holds(#"Name MATCHES "(?i).*love.*""#, love))
        #expect(try holds(#"Name MATCHES[c] "love song""#, love))
        #expect(try holds(#""ab" MATCHES "a|ab""#, love))               // backtracks to the whole string
        #expect(try holds(#"Name MATCHES "\w+ \w+""#, love))
        #expect(failure(#"Name MATCHES "(""#, love)?.kind == .invalidOperation)
    }

    @Test func toOnePaths() throws {
        #expect(try holds(#"Album.Title == "Wave""#, love))
        #expect(try holds(#"Album.Artist.Name ==[cd] "antonio carlos jobim""#, love))
        #expect(try holds("Album == 10", love))                         // a to-one compares as its id
        #expect(try holds("Album == nil", empty))
        #expect(try holds("Album.Title == nil", empty))                 // through a missing to-one: NULL
        #expect(try holds("Album.Artist.Name == nil", empty))
        #expect(try !holds(#"Album.Title == "Wave""#, empty))
        #expect(try holds(#"NOT (Album.Title == "Wave")"#, empty))
    }

    @Test func toManyQuantifiers() throws {
        let album = Sample.album, none = Sample.emptyAlbum
        #expect(try holds("ANY tracks.Milliseconds > 1000000", album))
        #expect(try holds("SOME tracks.Milliseconds > 1000000", album))
        #expect(try holds("tracks.Milliseconds > 1000000", album))      // implicit ANY
        #expect(try !holds("ALL tracks.Milliseconds > 1000000", album))
        #expect(try holds("ALL tracks.Milliseconds >= 300000", album))
        #expect(try !holds("NONE tracks.Milliseconds > 1000000", album))
        #expect(try holds("NONE tracks.Milliseconds > 2000000", album))
        #expect(try holds("ALL tracks.UnitPrice == 0.99", none))        // true when there are none
        #expect(try !holds("ANY tracks.UnitPrice == 0.99", none))
        #expect(try holds("NONE tracks.UnitPrice == 0.99", none))
        #expect(try holds("ANY tracks.Composer == nil", album))
        #expect(try holds(#"ANY tracks.Name CONTAINS[c] "zür""#, album))
        #expect(try holds(#"ANY tracks.Album.Artist.Name BEGINSWITH "Ant""#, album))
        #expect(failure("ANY Title == 1", album)?.kind == .invalidOperation)
        #expect(failure("tracks.Name == Title", album) == nil)
    }

    @Test func aggregatesAndSubscripts() throws {
        let album = Sample.album, none = Sample.emptyAlbum
        #expect(try value("tracks.@count", album) == 2)
        #expect(try value("tracks[SIZE]", album) == 2)
        #expect(try value("tracks.@sum.Milliseconds", album) == 1_500_000)
        #expect(try value("tracks.@avg.Milliseconds", album) == 750_000.0)
        #expect(try value("tracks.@min.Milliseconds", album) == 300_000)
        #expect(try value("tracks.@max.Name", album) == "ZÜRICH")
        #expect(try value("tracks.@sum.UnitPrice", album) == .real(0.99 + 1.99))
        #expect(try value("tracks[FIRST].Name", album) == "Love Song")  // ordered by id
        #expect(try value("tracks[LAST].Name", album) == "ZÜRICH")
        #expect(try value("tracks[1].Name", album) == "ZÜRICH")
        #expect(try value("tracks[5].Name", album) == nil)
        #expect(try value("tracks.@count", none) == 0)
        #expect(try value("tracks.@sum.Milliseconds", none) == 0)
        #expect(try value("tracks.@avg.Milliseconds", none) == nil)
        #expect(try value("tracks.@max.Milliseconds", none) == nil)
        #expect(try value("tracks[FIRST].Name", none) == nil)
        #expect(try value("count(tracks)", album) == 2)
        #expect(try value("sum(tracks.Milliseconds)", album) == 1_500_000)
        #expect(try value("average(tracks.Milliseconds)", album) == 750_000.0)
        #expect(try value("min(tracks.Name)", album) == "Love Song")
        #expect(try value("max({1, 5, 3})", album) == 5)
        #expect(try value("{1, 2, 3}.@count", album) == 3)
        #expect(try value("{4, 5}[LAST]", album) == 5)
        #expect(failure("tracks.@sum > 1", album)?.kind == .invalidOperation)
        #expect(failure("tracks.@median.Milliseconds > 1", album)?.kind == .unknownName)
        #expect(try holds("tracks.@count > 1 AND tracks.@sum.Milliseconds > 1000000", album))
    }

    @Test func subquery() throws {
        let album = Sample.album
        #expect(try value("SUBQUERY(tracks, $t, $t.Milliseconds > 500000).@count", album) == 1)
        #expect(try value("SUBQUERY(tracks, $t, $t.Milliseconds > 0 AND $t.Composer != nil).@count", album) == 1)
        #expect(try value("SUBQUERY(tracks, $t, Milliseconds > 0).@count", album) == 2)   // bare keys: the element
        #expect(try value("SUBQUERY(tracks, $t, $t.Album.Title == 'Wave')[FIRST].Name", album) == "Love Song")
        #expect(try holds("SUBQUERY(tracks, $t, $t.UnitPrice > 1).@count >= 1", album))
        #expect(try value("SUBQUERY(tracks, $t, FALSEPREDICATE).@count", album) == 0)
    }

    @Test func arithmeticAndFunctions() throws {
        #expect(try value("7 / 2") == 3.5)                               // real division
        #expect(try value("1 / 0") == nil)
        #expect(try value("7 * 6 - 2") == 40)
        #expect(try value("2 ** 10") == 1024.0)
        #expect(try value("9223372036854775807 + 1") == .real(9223372036854775808.0))
        #expect(try value("-Milliseconds") == -300_000)
        #expect(try value("Milliseconds / 1000") == 300.0)
        #expect(try value("Composer + 1") == nil)
        #expect(try value(#""12abc" + 1"#) == 13)
        #expect(try value("lowercase('ZÜRICH')") == "zürich")
        #expect(try value("uppercase(Name)") == "LOVE SONG")
        #expect(try value("length('Zürich😀')") == 7)
        #expect(try value("length(Composer)") == nil)
        #expect(try value("abs(-3)") == 3)
        #expect(try value("abs(-2.5)") == 2.5)
        #expect(try value("sqrt(16)") == 4.0)
        #expect(try value("sqrt(-1)") == nil)
        #expect(try value("floor(2.5)") == 2.0)
        #expect(try value("ceiling(2.1)") == 3.0)
        #expect(try value("trunc(-2.7)") == -2.0)
        #expect(try value("floor(2)") == 2)
        #expect(try value("ln(1)") == 0.0)
        #expect(try value("log(1000)") == 3.0)
        #expect(try value("ln(0)") == nil)
        #expect(try value("exp(0)") == 1.0)
        #expect(try value("SELF") == 100)
        #expect(try holds("SELF == 100", love))
        #expect(try holds("SELF IN {1, 100}", love))
    }

    @Test func datesAndCasts() throws {
        let album = Sample.bossaAlbum
        #expect(try holds(#"Released BETWEEN {CAST("2021-01-01", "NSDate"), CAST("2021-12-31", "NSDate")}"#, album))
        #expect(try !holds(#"Released < CAST("2021-06-01", "NSDate")"#, album))
        #expect(try holds(#"Released == CAST("2021-06-01T00:00:00Z", "NSDate")"#, album))
        #expect(try holds(#"Stamp == CAST("2021-06-01", "NSDate")"#, album))       // Unix seconds
        #expect(try holds(#"Stamp > CAST("2021-05-31 23:59:59", "NSDate")"#, album))
        #expect(try holds("Released < now()", album))
        #expect(try value(#"CAST(CAST("2024-02-29 12:34:56", "NSDate"), "NSString")"#) == "2024-02-29 12:34:56")
        #expect(try value(#"CAST(CAST(0, "NSDate"), "NSString")"#) == "2001-01-01 00:00:00")
        #expect(try value(#"CAST("42", "NSNumber")"#) == 42)
        #expect(try value(#"CAST(1.5, "NSString")"#) == "1.5")
        #expect(try value(#"CAST(100.0, "NSString")"#) == "100.0")
        #expect(try value(#"CAST(1e20, "NSString")"#) == "1.0e+20")
        #expect(failure(#"Released > CAST("June", "NSDate")"#, album)?.kind == .invalidOperation)
    }

    @Test func unknownNamesAreErrorsWithSuggestions() throws {
        let e = try #require(failure("Composr == 1", love))
        #expect(e.kind == .unknownName)
        #expect(e.suggestion == "Composer")
        #expect(failure("Album.Titel == 1", love)?.suggestion == "Title")
        let v = try #require(failure("Name == $nam", love))
        #expect(v.kind == .unknownName)
        #expect(try holds("Name == $name", love, ["name": .value("Love Song")]))
        #expect(try holds("name == 'Love Song'", love))                 // names resolve case-insensitively
    }

    @Test func deepTreesWithinTheLimitEvaluateAndPrint() throws {
        let nots = String(repeating: "NOT ", count: 498) + "Milliseconds == 300000"
        let p = try PredicateTree.parse(nots)
        #expect(try p.evaluate(with: love))
        #expect(try PredicateTree.parse(p.description) == p)
        let sum = "Milliseconds == " + (0..<480).map { _ in "1" }.joined(separator: " + ")
        let q = try PredicateTree.parse(sum)
        #expect(try !q.evaluate(with: love))
        #expect(try PredicateTree.parse(q.description) == q)
        let parens = String(repeating: "(", count: 490) + "Milliseconds" + String(repeating: ")", count: 490) + " == 300000"
        #expect(try holds(parens, love))
    }

    @Test func generatedTreesEvaluateWithoutCrashing() {
        // Whatever the tree, evaluation either answers or throws a PortalPredicateError.
        var generator = TreeGenerator(seed: 99)
        var answered = 0
        for _ in 0..<2_000 {
            let tree = generator.predicate()
            if (try? tree.evaluate(with: Sample.album, variables: ["x": .value(1), "a": .list([1, 2])])) != nil {
                answered += 1
            }
        }
        #expect(answered > 100)
    }
}

@Suite struct QueryEvaluationTests {
    @Test func filtersSortsAndLimits() throws {
        let tracks: [any EvaluationObject] = [Sample.zurich, Sample.empty, Sample.loveSong]
        func names(_ text: String) throws -> [Value] {
            try Query.parse(text).evaluate(over: tracks).map { $0.attribute("Name") ?? .null }
        }
        #expect(try names("TRUEPREDICATE") == ["Love Song", "ZÜRICH", ""])              // by id
        #expect(try names("TRUEPREDICATE SORT(Name ASC)") == ["", "Love Song", "ZÜRICH"])
        #expect(try names("UnitPrice < 1 SORT(Name DESC)") == ["Love Song", ""])
        #expect(try names("TRUEPREDICATE SORT(Milliseconds ASC) LIMIT(2)") == ["", "Love Song"])  // NULL first
        #expect(try names("TRUEPREDICATE SORT(UnitPrice DESC, Name) LIMIT(2)") == ["ZÜRICH", ""])
        #expect(try names("TRUEPREDICATE SORT(Album.Title ASC)") == ["", "Love Song", "ZÜRICH"])
        #expect(try names("TRUEPREDICATE LIMIT(0)") == [])
        #expect(try names("SELF.Name == 'ZÜRICH'") == ["ZÜRICH"])
    }
}
