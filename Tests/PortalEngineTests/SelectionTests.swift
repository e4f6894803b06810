import Foundation
import Testing
import PortalPredicate
@testable import PortalEngine
@testable import PortalSQLite

/// Projections, groups and aggregates on Chinook, each compared with SQL written by hand.
@Suite struct SelectionTests {
    let store: Store

    init() throws {
        var options = StoreOptions(readOnly: true)
        options.switchesToWAL = false
        store = try Store(path: chinookPath, options: options)
    }

    private func rows(_ entity: String, _ selection: Selection, where predicate: String? = nil,
                      sort: [SortKey] = [], limit: Int? = nil) throws -> [[Value]] {
        try store.read { ctx in
            try ctx.find(entity, select: selection, where: predicate, sortedBy: sort, limit: limit).map { $0.values }
        }
    }

    private func sql(_ text: String) throws -> [[Value]] {
        try store.read { ctx in try ctx.query(text).rows.map { $0.values } }
    }

    /// A projection, a find and a count read a predicate's `SORT` and `LIMIT` alike (one select
    /// assembles them, `Select.find`): the projection sorted and limited by them, the count over
    /// the limited rows and not sorted when nothing is limited.
    @Test func aPredicatesSortAndLimitMeanTheSameToEveryRead() throws {
        let predicate = "GenreId < 6 SORT(Name DESC) LIMIT(2)"
        let projected = try rows("Genre", Selection([SelectionItem("Name")]), where: predicate)
        #expect(projected == [[.text("Rock And Roll")], [.text("Rock")]])
        let found = try store.read { ctx in try ctx.find("Genre", where: predicate).map { $0["Name"] } }
        #expect(found == [.text("Rock And Roll"), .text("Rock")])
        #expect(try store.read { ctx in try ctx.count("Genre", where: predicate) } == 2)
        let count = try store.read { ctx in try ctx.compiledSQL("Genre", where: "GenreId < 6 SORT(Name DESC)", count: true) }
        #expect(count.sql == #"SELECT count(*) FROM "Genre" AS t0 WHERE t0."GenreId" < ?"#)
    }

    @Test func revenuePerCountryThroughTwoToOneSteps() throws {
        let found = try rows("InvoiceLine", Selection([SelectionItem("Invoice.Customer.Country", as: "country"),
                                                        SelectionItem("sum(UnitPrice * Quantity)", as: "revenue")],
                                                       groupBy: ["Invoice.Customer.Country"]),
                             sort: [SortKey("revenue", ascending: false), SortKey("country")])
        let expected = try sql("""
            SELECT c.Country, sum(l.UnitPrice * l.Quantity) AS r FROM InvoiceLine l JOIN Invoice i ON i.InvoiceId = l.InvoiceId
            JOIN Customer c ON c.CustomerId = i.CustomerId GROUP BY c.Country ORDER BY r DESC, c.Country
            """)
        #expect(found.count == 24)
        #expect(found == expected)
    }

    @Test func perEntityAggregatesOverToManyAndNames() throws {
        let found = try rows("Album", Selection([SelectionItem("Title"), SelectionItem("sum(tracks.Milliseconds)", as: "length"),
                                                  SelectionItem("count(tracks)", as: "n")]),
                             where: "ArtistId == 1", sort: [SortKey("length", ascending: false)])
        let expected = try sql("""
            SELECT a.Title, (SELECT coalesce(sum(Milliseconds), 0) FROM Track t WHERE t.AlbumId = a.AlbumId) AS len,
            (SELECT count(*) FROM Track t WHERE t.AlbumId = a.AlbumId) FROM Album a WHERE a.ArtistId = 1 ORDER BY len DESC
            """)
        #expect(found == expected && found.count == 2)
        let names = try store.read { ctx in
            try ctx.find("Album", select: Selection([SelectionItem("Title"), SelectionItem("AlbumId * 2", as: "twice")]), limit: 1)
        }
        #expect(names.first?.names == ["Title", "twice"])
    }

    @Test func countDistinctHavingAndOneRowWithoutGroups() throws {
        let one = try rows("Track", Selection([SelectionItem("count()"), SelectionItem("count(distinct AlbumId)"),
                                                SelectionItem("min(Milliseconds)"), SelectionItem("average(Bytes)")]))
        #expect(one == (try sql("SELECT count(*), count(DISTINCT AlbumId), min(Milliseconds), avg(Bytes) FROM Track")))
        let having = try rows("Track", Selection([SelectionItem("Genre.Name", as: "genre"), SelectionItem("count()", as: "tracks")],
                                                  groupBy: ["Genre.Name"], having: "tracks > 300 AND avg(Milliseconds) > 200000"),
                              sort: [SortKey("genre")])
        #expect(having == (try sql("""
            SELECT g.Name, count(*) FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.Name
            HAVING count(*) > 300 AND avg(t.Milliseconds) > 200000 ORDER BY g.Name
            """)))
        #expect(!having.isEmpty)
        let byName = try rows("Track", Selection([SelectionItem("Genre.Name", as: "g"), SelectionItem("count()", as: "tracks")],
                                                  groupBy: ["g"], having: "tracks > 300 AND avg(Milliseconds) > 200000"),
                              sort: [SortKey("g")])
        #expect(byName == having)
        let distinct = try rows("Track", Selection([SelectionItem("MediaTypeId")], distinct: true), sort: [SortKey("MediaTypeId")])
        #expect(distinct == (try sql("SELECT DISTINCT MediaTypeId FROM Track ORDER BY 1")))
    }

    @Test func aProjectionDecodesIntoAStructByItsNames() throws {
        struct Genre: Decodable, Equatable { var name: String; var tracks: Int }
        let genres = try store.read { ctx in
            try ctx.fetch(Genre.self, from: "Track", select: Selection([SelectionItem("Genre.Name", as: "name"),
                                                                        SelectionItem("count()", as: "tracks")],
                                                                       groupBy: ["Genre.Name"]),
                          sortedBy: [SortKey("tracks", ascending: false)], limit: 1)
        }
        #expect(genres == [Genre(name: "Rock", tracks: 1297)])
    }

    @Test func mistakesAreNamedWithTheirPart() throws {
        func failure(_ selection: Selection, where predicate: String? = nil) -> PortalError? {
            portalError { try rows("Track", selection, where: predicate) }
        }
        let inWhere = failure(Selection([SelectionItem("Name")]), where: "sum(Milliseconds) > 10")
        #expect(inWhere?.description.contains("belongs in 'having'") == true)
        let ungrouped = failure(Selection([SelectionItem("Name"), SelectionItem("count()")], groupBy: ["AlbumId"]))
        #expect(ungrouped?.description.contains("'Name' is neither a group key nor an aggregate") == true)
        #expect(ungrouped?.description.contains("column 1") == true)
        let unknown = failure(Selection([SelectionItem("Milisecond")]))
        #expect(unknown?.suggestion == "Milliseconds")
        let text = failure(Selection([SelectionItem("sum(Name)")]))
        #expect(text?.description.contains("needs numbers") == true)
    }

    /// A selection's mistake is a `PortalError` that says which part it is in and keeps the
    /// predicate error, whose range is within that part's text: a caller can point at it.
    @Test func aMistakeSaysItsPartAndKeepsThePredicateError() throws {
        let selection = Selection([SelectionItem("AlbumId")], groupBy: ["AlbumId"], having: "count() > 1 AND Nmae != nil")
        let error = try #require(portalError { try rows("Track", selection) })
        #expect(error.kind == .predicate && error.entity == "Track")
        #expect(error.selectionPart == .having)
        #expect(error.predicateError?.kind == .unknownName)
        #expect(error.predicateError?.range(in: "count() > 1 AND Nmae != nil") == 16..<20)
        #expect(error.message.hasPrefix("invalid selection for Track (having): "))
        let sorted = try #require(portalError {
            try store.read { try $0.find("Track", select: Selection([SelectionItem("Name")]), sortedBy: [SortKey("Nmae")]) }
        })
        #expect(sorted.selectionPart == .sortKey(0))
    }

    /// A long selection's compile stops when asked (`PredicateInterruption`), as a predicate's
    /// does: `.interrupted`, not a mistake in the selection. The question says yes on this
    /// test's thread only.
    @Test func anInterruptedCompileIsInterrupted() throws {
        let having = (1...20_000).map { "count() == \($0)" }.joined(separator: " OR ")
        let selection = Selection([SelectionItem("AlbumId")], groupBy: ["AlbumId"], having: having)
        Thread.current.threadDictionary["stop compiling"] = true
        PredicateInterruption.requested = { Thread.current.threadDictionary["stop compiling"] != nil }
        defer {
            PredicateInterruption.requested = nil
            Thread.current.threadDictionary["stop compiling"] = nil
        }
        let error = portalError { try rows("Track", selection) }
        #expect(error?.kind == .interrupted)
    }
}
