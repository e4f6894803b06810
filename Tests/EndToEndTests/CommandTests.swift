import Foundation
import Testing

/// Every command of the shell on a copy of Chinook: stdout, stderr and exit status.
@Suite struct CommandTests {
    let db: String
    let folder: URL

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    func run(_ commands: String, _ extra: [String] = []) throws -> Run {
        try Shell.run([db, "-e", commands] + extra)
    }

    @Test func findWithWhereSortLimitOffset() throws {
        let r = try run("find Track where Milliseconds > 1000000 AND GenreId == 19 sort by Milliseconds desc limit 2 offset 1", ["--format", "csv"])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == """
            TrackId,Name,AlbumId,MediaTypeId,GenreId,Composer,Milliseconds,Bytes,UnitPrice
            2910,Dave,231,3,19,,2825166,574325829,1.99
            2918,\"\"\"?\"\"\",231,3,19,,2782333,528227089,1.99

            """)
    }

    @Test func firstCountGet() throws {
        #expect(try run("count Track").stdout == "3503\n")
        #expect(try run("count Track where Album.Artist.Name == \"AC/DC\"").stdout == "18\n")
        let first = try run("first Artist sort by Name desc", ["--format", "csv", "--no-header"])
        #expect(first.stdout == "155,Zeca Pagodinho\n")
        let get = try run("get Artist 1", ["--format", "tsv"])
        #expect(get.stdout == "ArtistId\tName\n1\tAC/DC\n")
        let composite = try run("get PlaylistTrack 1, 3402", ["--format", "csv"])
        #expect(composite.stdout == "PlaylistId,TrackId\n1,3402\n")
        let missing = try run("get Artist 999999")
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("error: no Artist with ArtistId = 999999\n"))
    }

    @Test func realmSortAndLimitClauses() throws {
        let r = try run("find Genre where GenreId < 6 SORT(Name DESC) LIMIT(2)", ["--format", "csv", "--no-header"])
        #expect(r.stdout == "5,Rock And Roll\n1,Rock\n")
    }

    /// A predicate's `LIMIT(n)` caps a count as it caps a find's rows.
    @Test func countAndFindReadAPredicatesLimitAlike() throws {
        #expect(try run("count Genre where GenreId < 6 SORT(Name DESC) LIMIT(2)").stdout == "2\n")
        let explained = try run("explain count Genre where GenreId < 6 SORT(Name DESC)", ["--format", "csv"])
        #expect(explained.stdout.hasPrefix("sql,bindings,plan,warnings\n\"SELECT count(*) FROM \"\"Genre\"\" AS t0 WHERE t0.\"\"GenreId\"\" < ?\",[6],"))
    }

    @Test func parametersAreBoundAsText() throws {
        let r = try Shell.run([db, "-p", "name=AC/DC", "-e", "find Artist where Name == $name", "--format", "csv"])
        #expect(r.stdout == "ArtistId,Name\n1,AC/DC\n")
        let n = try Shell.run([db, "-p", "id=3", "-e", "find Artist where ArtistId == $id", "--format", "csv", "--no-header"])
        #expect(n.stdout == "3,Aerosmith\n")
    }

    @Test func explainShowsSQLBindingsAndPlan() throws {
        let r = try run("explain find Track where Name == \"Balls to the Wall\"", ["--format", "table"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("sql: SELECT "))
        #expect(r.stdout.contains("bindings: [\"Balls to the Wall\"]"))
        #expect(r.stdout.contains("plan:\n"))
        #expect(r.stdout.contains("SCAN") || r.stdout.contains("SEARCH"))
    }

    /// `explain update` and `explain delete` show their statement and plan and change nothing.
    @Test func explainOfAWriteShowsItAndRunsNothing() throws {
        let update = try run("explain update Track set Name = \"x\" where TrackId == 1", ["--format", "table"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.hasPrefix("sql: UPDATE \"Track\""))
        #expect(update.stdout.contains("bindings: [\"x\", 1]"))
        let delete = try run("explain delete Track where Composer == nil", ["--format", "table"])
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(delete.stdout.hasPrefix("sql: DELETE FROM \"Track\""))
        #expect(try run("count Track where Name == \"x\" OR Composer == nil").stdout == "977\n")   // as in the file
    }

    @Test func entitiesAndSchema() throws {
        let entities = try run("entities", ["--format", "csv"])
        #expect(entities.stdout == """
            entity,kind,rows,attributes
            Album,table,347,3
            Artist,table,275,2
            Customer,table,59,13
            Employee,table,8,15
            Genre,table,25,2
            Invoice,table,412,9
            InvoiceLine,table,2240,5
            MediaType,table,5,2
            Playlist,table,18,2
            PlaylistTrack,table,8715,2
            Track,table,3503,9

            """)
        let schema = try run("schema Album", ["--format", "csv"])
        #expect(schema.status == 0)
        #expect(schema.stdout.hasPrefix("entity,section,name,kind,withoutRowid,sql,type,nullable,default,id,generated,"))
        #expect(schema.stdout.contains("\nAlbum,attributes,AlbumId,,,,INTEGER,no,,1,,"))
        #expect(schema.stdout.contains("\nAlbum,relationships,Artist,to-one,,,,,,,,Artist,ArtistId,"))
        #expect(schema.stdout.contains("\nAlbum,relationships,tracks,to-many,,,,,,,,Track,Track.AlbumId,"))
        #expect(schema.stdout.contains("\nAlbum,indexes,IFK_AlbumArtistId,,,,,,,,,,,ArtistId,no,"))
    }

    @Test func createUpdateUpsertDelete() throws {
        let create = try run("create Artist set Name = \"Ünïcode Band\"", ["--format", "csv"])
        #expect(create.status == 0)
        #expect(create.stdout == "ArtistId,Name\n276,Ünïcode Band\n")
        let update = try run("update Track set Milliseconds = Milliseconds + 1000 where AlbumId == 1")
        #expect(update.status == 0)
        #expect(update.stdout == "")
        #expect(update.stderr == "updated 10 Track\n")
        #expect(try run("find Track where TrackId == 1", ["--format", "csv", "--no-header"]).stdout.contains(",344719,"))
        let upsert = try run("upsert Genre set GenreId = 1, Name = 'Rock & Roll'; upsert Genre set GenreId = 26, Name = 'Polka'", ["--format", "csv", "--no-header"])
        #expect(upsert.stdout == "1,Rock & Roll\n26,Polka\n")
        let delete = try run("delete Genre where GenreId == 26")
        #expect(delete.stderr == "deleted 1 Genre\n")
        #expect(try run("count Genre").stdout == "25\n")
    }

    @Test func transactions() throws {
        let r = try run("begin; delete PlaylistTrack where PlaylistId == 1; count PlaylistTrack where PlaylistId == 1; rollback; count PlaylistTrack where PlaylistId == 1")
        #expect(r.status == 0)
        #expect(r.stdout == "0\n3290\n")
        let committed = try run("begin; update Artist set Name = 'X' where ArtistId == 1; commit; get Artist 1", ["--format", "csv", "--no-header"])
        #expect(committed.stdout == "1,X\n")
    }

    @Test func variablesAndSessionSettings() throws {
        let r = try run("let $g = 'Jazz'; vars; mode csv; headers off; null (none); find Track where Genre.Name == $g AND Composer == nil limit 1; timer on; count Genre")
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("name\tvalue\n$g\tJazz\n"))
        #expect(r.stdout.contains(",(none),"))
        #expect(r.stdout.hasSuffix("25\n"))
        #expect(r.stderr.hasPrefix("time: "))
    }

    @Test func outputReadOpen() throws {
        let out = folder.appendingPathComponent("out.txt").path
        let script = folder.appendingPathComponent("script.txt").path
        try "count Artist\n".write(toFile: script, atomically: true, encoding: .utf8)
        let r = try run("output \(out); count Album; output stdout; read \(script); open \(db); count Genre")
        #expect(r.status == 0)
        #expect(r.stdout == "275\n25\n")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "347\n")
    }

    @Test func importAndExport() throws {
        let csv = folder.appendingPathComponent("genres.csv").path
        try "Name,GenreId\nPolka,100\n\"Trip, Hop\",101\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let imported = try run("import Genre from \(csv)")
        #expect(imported.status == 0)
        #expect(imported.stderr == "imported 2 Genre\n")
        let json = folder.appendingPathComponent("out.json").path
        let exported = try run("export Genre where GenreId >= 100 sort by GenreId to \(json)")
        #expect(exported.stderr == "exported 2 Genre to \(json)\n")
        #expect(try String(contentsOfFile: json, encoding: .utf8) == "[\n{\"GenreId\":100,\"Name\":\"Polka\"},\n{\"GenreId\":101,\"Name\":\"Trip, Hop\"}\n]\n")
        let ndjson = folder.appendingPathComponent("artists.ndjson").path
        try "{\"Name\": \"Nova\"}\n{\"Name\": \"Ørsted\", \"ArtistId\": 500}\n".write(toFile: ndjson, atomically: true, encoding: .utf8)
        #expect(try run("import Artist from \(ndjson); get Artist 500", ["--format", "csv", "--no-header"]).stdout == "500,Ørsted\n")
    }

    @Test func sqlReadsAndWrites() throws {
        let read = try run("sql SELECT count(*) AS n FROM Track", ["--format", "csv"])
        #expect(read.stdout == "n\n3503\n")
        let write = try run("sql CREATE TABLE Note (NoteId INTEGER PRIMARY KEY, Body TEXT); create Note set Body = 'hi'", ["--format", "csv"])
        #expect(write.status == 0)
        #expect(write.stdout == "NoteId,Body\n1,hi\n")
    }

    @Test func helpAndQuit() throws {
        let help = try run("help")
        #expect(help.stdout.contains("find E [where P]"))
        #expect(help.stdout.contains("find E select [distinct] ITEM [as NAME], …"))
        let find = try run("help find").stdout
        #expect(find.hasPrefix("find E [where P]") && find.contains("\nfind E select") && find.contains("[group by KEY, …] [having P]"))
        #expect(try run("help update").stdout == "update E set KEY = EXPR [, …] where P\n  update the matching entities (where TRUEPREDICATE: all)\n")
        let quit = try run("count Genre; quit; count Track")
        #expect(quit.stdout == "25\n")
    }

    @Test func generateSwift() throws {
        let r = try run("generate swift Artist")
        #expect(r.stdout == """
            import PortalEngine

            /// The table Artist.
            public struct Artist: PortalEntity, Codable, Sendable, Hashable {
                public static let entityName = "Artist"
                public static let idAttribute = "ArtistId"
                public var artistId: Int64
                public var name: String?

                public enum CodingKeys: String, CodingKey {
                    case artistId = "ArtistId"
                    case name = "Name"
                }
            }

            extension Artist: RowDecodable, RowEncodable {
                public static let decodedColumns: [String] = ["ArtistId", "Name"]
                public static let encodedColumns: [String] = ["ArtistId", "Name"]

                public init(row: borrowing RowReader) throws {
                    self.artistId = try row[0]
                    self.name = try row[1]
                }

                public func encode(into row: inout RowWriter) {
                    row.append(artistId)
                    row.append(name)
                }
            }

            """)
    }

    @Test func commandsFromStandardInputAndFile() throws {
        let r = try Shell.run([db], input: "count Genre\ncount MediaType;\n")
        #expect(r.stdout == "25\n5\n")
        let file = folder.appendingPathComponent("cmds.txt").path
        try "find Genre where GenreId == 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try Shell.run([db, "-f", file, "--format", "csv", "--no-header"]).stdout == "1,Rock\n")
        #expect(try Shell.run([db, "-f", "-", "--format", "csv", "--no-header"], input: "count Genre").stdout == "25\n")
    }
}
