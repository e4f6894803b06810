import Foundation
import Testing
import PortalPredicate
import PortalEngine
@testable import PortalPostgres

/// Chinook's music tables copied into PostgreSQL; each predicate compiled by the engine in
/// SQLite's dialect and in PostgreSQL's must select the same tracks on both databases, and a
/// grouped selection must give the same groups.
@Suite struct PostgresDifferentialTests {
    static let chinook = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/chinook/Chinook_Sqlite.sqlite").path
    static let tables = [
        ("Genre", "\"GenreId\" integer PRIMARY KEY, \"Name\" text"),
        ("MediaType", "\"MediaTypeId\" integer PRIMARY KEY, \"Name\" text"),
        ("Artist", "\"ArtistId\" integer PRIMARY KEY, \"Name\" text"),
        ("Album", "\"AlbumId\" integer PRIMARY KEY, \"Title\" text NOT NULL, \"ArtistId\" integer NOT NULL REFERENCES \"Artist\""),
        ("Track", "\"TrackId\" integer PRIMARY KEY, \"Name\" text NOT NULL, \"AlbumId\" integer REFERENCES \"Album\", "
            + "\"MediaTypeId\" integer NOT NULL REFERENCES \"MediaType\", \"GenreId\" integer REFERENCES \"Genre\", "
            + "\"Composer\" text, \"Milliseconds\" integer NOT NULL, \"Bytes\" integer, \"UnitPrice\" numeric(10,2) NOT NULL"),
    ]
    static let predicates = [
        "Milliseconds > 300000", #"Name BEGINSWITH "A""#, #"Name CONTAINS[c] "love""#, #"Name ENDSWITH "s""#,
        #"Name LIKE "*Love*""#, #"Name LIKE[c] "?he*""#, "Composer == nil", "Composer != nil AND GenreId IN {1, 3}",
        #"Album.Artist.Name == "AC/DC""#, #"Album.Title CONTAINS[cd] "rock""#, "NOT (GenreId == 1)",
        #"Name MATCHES "[A-C].*""#, "UnitPrice > 0.99", "Bytes / 1000 > 10000", "Album.tracks.@count > 20",
        "ANY Album.tracks.Milliseconds > 1000000", #"SUBQUERY(Album.tracks, $t, $t.Composer BEGINSWITH "Jimmy").@count > 3"#,
        #"Composer BEGINSWITH[c] "a" OR Name ==[c] "dazed and confused""#, "TrackId BETWEEN {10, 20}",
        #"Name IN {"Balls to the Wall", "Fast As a Shark"}"#, "Genre.Name == MediaType.Name", "Milliseconds * 2 < Bytes / 100",
        "abs(Milliseconds - 200000) < 1000", #"uppercase(Name) BEGINSWITH "THE""#, "length(Name) > 40",
        "Album.Artist.Name == nil OR Album.Artist.albums.@count >= 10", "TRUEPREDICATE", "FALSEPREDICATE",
    ]

    @Test func predicatesSelectTheSameTracksOnBothDatabases() throws {
        let db = try ScratchDatabase()
        var options = StoreOptions(readOnly: true)
        options.switchesToWAL = false
        let sqlite = try Store(path: Self.chinook, options: options)
        try copyChinook(from: sqlite, to: db)
        let schema = try sqlite.read { ctx in try ctx.schema }
        let track = try #require(schema.entity(named: "Track"))
        var agreed = 0
        for predicate in Self.predicates {
            var results: [[[Value]]] = []
            for dialect in [SQLiteDialect() as any SQLDialect, PostgresDialect()] {
                let filter = try PredicateCompiler.compile(predicate, entity: track, schema: schema, alias: "t0", dialect: dialect)
                let select = Select(track, columns: .expressions([SQLFragment("t0.\"TrackId\"")]), condition: filter.condition,
                                    order: SQLFragment("1"))
                let sql = select.rendered(in: dialect)
                results.append(dialect is PostgresDialect ? try db.rows(sql)
                               : try sqlite.read { ctx in try ctx.query(sql.sql, sql.bindings).rows.map(\.values) })
            }
            #expect(results[0] == results[1], "\(predicate): SQLite \(results[0].count) rows, PostgreSQL \(results[1].count)")
            if results[0] == results[1] { agreed += 1 }
        }
        #expect(agreed == Self.predicates.count)
        let grouped = Selection([SelectionItem("Genre.Name", as: "genre"), SelectionItem("count()", as: "n"),
                                 SelectionItem("max(Milliseconds)", as: "longest")], groupBy: ["Genre.Name"], having: "n > 10")
        var groups: [[[Value]]] = []
        for dialect in [SQLiteDialect() as any SQLDialect, PostgresDialect()] {
            let compiled = try PredicateCompiler.compile(grouped, sortedBy: [SortKey("genre")], entity: track, schema: schema,
                                                         alias: "t0", dialect: dialect)
            var select = Select(track, columns: .expressions(compiled.columns), order: compiled.order)
            select.groupBy = compiled.groupBy
            select.having = compiled.having
            let sql = select.rendered(in: dialect)
            groups.append(dialect is PostgresDialect ? try db.rows(sql)
                          : try sqlite.read { ctx in try ctx.query(sql.sql, sql.bindings).rows.map(\.values) })
        }
        #expect(groups[0] == groups[1])
        #expect(groups[0].count > 5)
    }

    /// The five music tables, row by row through the connection protocol, in one transaction.
    private func copyChinook(from sqlite: Store, to db: ScratchDatabase) throws {
        try db.connection.begin(.immediate)
        for (table, columns) in Self.tables {
            try db.connection.execute("CREATE TABLE \"\(table)\" (\(columns))")
            let rows = try sqlite.read { ctx in try ctx.query("SELECT * FROM \"\(table)\"") }
            let insert = Insert(table, columns: rows.columns).rendered(in: PostgresDialect())
            let statement = try db.connection.prepare(insert.sql)
            for row in rows.rows {
                try statement.bind(row.values)
                while try statement.step() {}
                statement.reset()
            }
        }
        try db.connection.commit()
    }
}
