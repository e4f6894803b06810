import Foundation
import Testing
import PortalPredicate
import PortalEngine
@testable import PortalPostgres

/// Chinook copied into PostgreSQL (`PostgresCopy`, as `--copy-to` does); PostgreSQL's catalog must
/// describe it as SQLite's does, and each predicate compiled by the engine in SQLite's dialect
/// against SQLite's schema and in PostgreSQL's against PostgreSQL's must select the same tracks,
/// and a grouped selection the same groups.
@Suite struct PostgresDifferentialTests {
    static let chinook = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/chinook/Chinook_Sqlite.sqlite").path
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
        _ = try PostgresCopy(to: "dbname=\(db.name)").copy(from: sqlite, progress: { _, _, _ in }, interrupted: { false })
        let sqliteSchema = try sqlite.read { ctx in try ctx.schema }
        let postgresSchema = try PostgresCatalog().schema(of: db.connection)
        try expectSameShape(sqliteSchema, postgresSchema)
        var agreed = 0
        for predicate in Self.predicates {
            var results: [[[Value]]] = []
            for dialect in [SQLiteDialect() as any SQLDialect, PostgresDialect()] {
                let schema = dialect is PostgresDialect ? postgresSchema : sqliteSchema
                let track = try #require(schema.entity(named: "Track"))
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
            let schema = dialect is PostgresDialect ? postgresSchema : sqliteSchema
            let track = try #require(schema.entity(named: "Track"))
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

    /// The same entities, attribute names, keys, relationships and index names.
    private func expectSameShape(_ sqlite: Schema, _ postgres: Schema) throws {
        #expect(Set(sqlite.entities.map(\.name)) == Set(postgres.entities.map(\.name)))
        for entity in sqlite.entities {
            let other = try #require(postgres.entity(named: entity.name))
            #expect(entity.attributes.map(\.name) == other.attributes.map(\.name), "\(entity.name)")
            #expect(entity.attributes.map(\.isNullable) == other.attributes.map(\.isNullable), "\(entity.name)")
            #expect(entity.primaryKey == other.primaryKey, "\(entity.name)")
            let relationships = { (e: EntityDescription) in
                Set(e.relationships.map { "\($0.name) \($0.kind) \($0.destination) \($0.sourceColumns) \($0.destinationColumns)" })
            }
            #expect(relationships(entity) == relationships(other), "\(entity.name)")
            let indexes = { (e: EntityDescription) in Set(e.indexes.map(\.name).filter { $0.hasPrefix("IFK_") }) }
            #expect(indexes(entity) == indexes(other), "\(entity.name)")
        }
    }
}
