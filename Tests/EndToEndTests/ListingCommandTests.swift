import Testing

/// `schemas`, `databases` and `describe` on an SQLite file: the connection's databases (as
/// sqlite3's `.databases`) and an entity as psql's `\d` shows a table.
@Suite struct ListingCommandTests {
    @Test func schemasAndDatabasesListTheConnectionsFiles() throws {
        let run = try Shell.run([Shell.chinook, "-r", "-e", "schemas", "-e", "databases"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            schema\towner\tentities\tsearch_order
            temp\t\t0\t1
            main\t\t11\t2
            database\tfile
            main\t\(Shell.chinook)
            temp\t

            """, "\(run.stdout)")
    }

    @Test func describeShowsColumnsIndexesConstraintsAndWhatRefersToIt() throws {
        let run = try Shell.run([Shell.chinook, "-r", "-e", "describe Album", "-e", "describe Nothing"])
        #expect(run.status == 1)
        let rows = run.stdout.split(separator: "\n").dropFirst(2).map { $0.split(separator: "\t").joined(separator: "|") }
        #expect(rows == [
            "Album|columns|AlbumId|INTEGER|no", "Album|columns|Title|NVARCHAR(160)|no", "Album|columns|ArtistId|INTEGER|no",
            "Album|indexes|IFK_AlbumArtistId|ArtistId|no",
            "Album|constraints|primary key|PRIMARY KEY (AlbumId)",
            "Album|constraints|foreign key|FOREIGN KEY (ArtistId) REFERENCES Artist (ArtistId)",
            "Album|referencedBy|Track|Track.AlbumId",
        ], "\(run.stdout)")
        #expect(run.stderr.hasPrefix("error: unknown entity 'Nothing'"), "\(run.stderr)")
    }
}
