import Testing
@testable import PortalShell
import PortalEngine

@Suite struct ErrorReportTests {
    @Test func caretUnderTheRange() {
        let error = ShellError("unknown attribute 'Nmae' on Track (did you mean 'Name'?)", 17..<21)
        #expect(error.report(command: "find Track where Nmae == \"x\"") == """
            error: unknown attribute 'Nmae' on Track (did you mean 'Name'?)
              find Track where Nmae == "x"
                               ^~~~

            """)
    }

    @Test func caretCountsDisplayWidthAndFindsTheLine() {
        let error = ShellError("bad", 16..<17)
        #expect(error.report(command: "find 東京\nwhere x ?") == "error: bad\n  where x ?\n          ^\n")
    }

    @Test func locatesAnUnknownNameWithoutAPosition() {
        let error = PredicateError(.unknownName, "no attribute named 'Nmae'")
        #expect(ShellError.locate(error, in: "NmaeX == 1 OR Nmae == 2", offset: 10) == 24..<28)
    }
}

@Suite struct ImportReaderTests {
    @Test func csvWithQuotesNullsAndLines() throws {
        let text = "a,b,c\n1,\"x, \"\"y\"\"\",\n2,\"multi\nline\",\"\"\n"
        let (header, rows, _) = try DelimitedReader.records(Array(text.utf8), tab: false)
        #expect(header == ["a", "b", "c"])
        #expect(rows.map(\.line) == [2, 3])
        #expect(rows[0].values == ["1", "x, \"y\"", .null])
        #expect(rows[1].values == ["2", "multi\nline", ""])
    }

    @Test func csvErrorsNameTheLine() {
        #expect(throws: ImportError.self) { try DelimitedReader.records(Array("a,b\n1,2\n3\n".utf8), tab: false) }
        do {
            _ = try DelimitedReader.records(Array("a,b\n1,2\n3\n".utf8), tab: false)
        } catch {
            #expect(error.line == 3)
            #expect(error.message == "1 field, but the header names 2")
        }
        do {
            _ = try DelimitedReader.records(Array("a\n\"open\n".utf8), tab: false)
        } catch {
            #expect(error.line == 2)
        }
    }

    @Test func tsvUnescapes() throws {
        let (_, rows, _) = try DelimitedReader.records(Array("a\tb\nx\\ty\t\\N\n".utf8), tab: true)
        #expect(rows[0].values == ["x\ty", .null])
    }

    @Test func json() throws {
        let records = try JSONReader.records(Array("[{\"a\": 1, \"b\": \"x\\u00e9\", \"c\": null, \"d\": 2.5, \"e\": true}]".utf8), lines: false)
        #expect(records.count == 1)
        #expect(records[0].fields.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(records[0].fields.map(\.value) == [1, "xé", nil, 2.5, 1])
        let lines = try JSONReader.records(Array("{\"a\":1}\n{\"a\":2}\n".utf8), lines: true)
        #expect(lines.map(\.line) == [1, 2])
    }

    @Test func malformedJSONNamesTheLine() {
        do {
            _ = try JSONReader.records(Array("[\n{\"a\": 1},\n{\"a\": }\n]".utf8), lines: false)
            Issue.record("accepted malformed JSON")
        } catch {
            #expect(error.line == 3)
        }
    }
}

@Suite struct DemoTests {
    @Test func generatorIsDeterministic() {
        var a = SplitMix64(seed: 42)
        var b = SplitMix64(seed: 42)
        #expect((0..<100).map { _ in a.next() } == (0..<100).map { _ in b.next() })
        var c = SplitMix64(seed: 1)
        #expect(c.next() == 0x910A_2DEC_8902_5CC1)
    }

    @Test func dates() {
        #expect(DemoDate.day(fromDays: 0) == "1970-01-01")
        #expect(DemoDate.day(fromDays: 19_000) == "2022-01-08")
        #expect(DemoDate.day(fromDays: -1) == "1969-12-31")
        #expect(DemoDate.timestamp(seconds: 86_399) == "1970-01-01 23:59:59")
        #expect(DemoDate.day(fromDays: 11_016) == "2000-02-29")
    }
}

@Suite struct CompletionTests {
    let schema = Schema(entities: [
        EntityDescription(name: "Track", kind: .table,
                          attributes: [AttributeDescription(name: "TrackId", declaredType: "INTEGER", isNullable: false, defaultValue: nil, primaryKeyPosition: 1),
                                       AttributeDescription(name: "Name", declaredType: "TEXT", isNullable: false, defaultValue: nil, primaryKeyPosition: nil),
                                       AttributeDescription(name: "AlbumId", declaredType: "INTEGER", isNullable: true, defaultValue: nil, primaryKeyPosition: nil)],
                          primaryKey: ["TrackId"], hasRowid: true,
                          relationships: [RelationshipDescription(name: "Album", kind: .toOne, destination: "Album", sourceColumns: ["AlbumId"], destinationColumns: ["AlbumId"])],
                          indexes: []),
        EntityDescription(name: "Album", kind: .table,
                          attributes: [AttributeDescription(name: "AlbumId", declaredType: "INTEGER", isNullable: false, defaultValue: nil, primaryKeyPosition: 1),
                                       AttributeDescription(name: "Title", declaredType: "TEXT", isNullable: false, defaultValue: nil, primaryKeyPosition: nil)],
                          primaryKey: ["AlbumId"], hasRowid: true, relationships: [], indexes: []),
    ])

    func complete(_ line: String) -> [String] {
        let start = line.lastIndex(where: { " (=".contains($0) }).map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 0
        return Completion.candidates(line: line, start: start, word: String(line.dropFirst(start)), schema: schema, variables: ["artist"])
    }

    @Test func commandsEntitiesAttributesKeyPathsVariables() {
        #expect(complete("fi") == ["find", "first"])
        #expect(complete(".sch") == [".schema"])
        #expect(complete("find Tr") == ["Track"])
        #expect(complete("find Track where Na") == ["Name"])
        #expect(complete("find Track where Album.Ti") == ["Album.Title"])
        #expect(complete("find Track where Name == $ar") == ["$artist"])
        #expect(complete("mode js") == ["json"])
        #expect(complete("find Track where Name BEGINS") == ["BEGINSWITH"])
    }

    @Test func issue14_namesAfterSelectGroupByAndHaving() {
        #expect(complete("find Track sel") == ["select"])
        #expect(complete("find Track select Na") == ["Name"])
        #expect(complete("find Track select Name, Album.Ti") == ["Album.Title"])
        #expect(complete("find Track select Name, count() group by Alb") == ["AlbumId", "Album"])
        #expect(complete("find Track select AlbumId, count() as n group by AlbumId hav") == ["having"])
        #expect(complete("find Track select AlbumId, count() as n group by AlbumId having max(Tr").first == "TrackId")
        #expect(complete("count Track group by Na") == ["Name"])
    }

    @Test func issue11_point9_quotingCaseAndReplacement() {
        let spaced = Schema(entities: [
            EntityDescription(name: "Ünïcödé Tâble", kind: .table,
                              attributes: [AttributeDescription(name: "id", declaredType: "INTEGER", isNullable: false, defaultValue: nil, primaryKeyPosition: 1),
                                           AttributeDescription(name: "full name", declaredType: "TEXT", isNullable: true, defaultValue: nil, primaryKeyPosition: nil)],
                              primaryKey: ["id"], hasRowid: true,
                              relationships: [RelationshipDescription(name: "lines", kind: .toMany, destination: "Line", sourceColumns: ["id"], destinationColumns: ["owner"])],
                              indexes: []),
        ])
        func complete(_ line: String) -> [String] {
            let start = line.lastIndex(where: { " (=".contains($0) }).map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 0
            return Completion.candidates(line: line, start: start, word: String(line.dropFirst(start)), schema: spaced, variables: [])
        }
        #expect(complete("find Ün") == ["#\"Ünïcödé Tâble\""])
        #expect(complete("find #\"Ünïcödé Tâble\" where fu") == ["#\"full name\""])
        #expect(complete("find #\"Ünïcödé Tâble\" where #\"fu") == ["#\"full name\""])
        #expect(complete("find #\"Ünïcödé Tâble\" where Li") == ["lines", "limit", "LIKE"])
        #expect(complete("find #\"Ünïcödé Tâble\" sort by fu") == ["#\"full name\""])
        #expect(Completion.replacement(for: "Al", matches: ["ALL", "Album", "AlbumId"]) == "Al")
        #expect(Completion.replacement(for: "Alb", matches: ["Album", "AlbumId"]) == "Album")
        #expect(Completion.replacement(for: "al", matches: ["ALL"]) == "ALL")
    }
}

@Suite struct SwiftGeneratorTests {
    @Test func identifiersAndTypes() {
        #expect(SwiftGenerator.typeIdentifier("invoice items") == "InvoiceItems")
        #expect(SwiftGenerator.propertyIdentifier("TrackId") == "trackId")
        #expect(SwiftGenerator.propertyIdentifier("ID") == "id")
        #expect(SwiftGenerator.propertyIdentifier("default") == "`default`")
        #expect(SwiftGenerator.swiftType("NVARCHAR(200)") == "String")
        #expect(SwiftGenerator.swiftType("NUMERIC(10,2)") == "Double")
        #expect(SwiftGenerator.swiftType("INTEGER") == "Int64")
    }
}
