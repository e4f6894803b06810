import Foundation
import Testing

/// From the outside: `find … select … group by … having …`, `count … group by`, `first`
/// and `export` with a selection, each answer compared with sqlite3 running SQL written by hand on
/// the same file; mistakes end with status 1 and a caret under the culprit.
@Suite struct SelectGroupTests {
    let db: String
    let folder: URL

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    func ours(_ command: String) throws -> String {
        let r = try Shell.run([db, "-e", command, "--format", "tsv"])
        #expect(r.status == 0, "\(command): \(r.stderr)")
        #expect(r.stderr == "")
        return r.stdout
    }

    func sqlite3(_ sql: String) throws -> String {
        try Spawn.run("/usr/bin/sqlite3", ["-tabs", "-header", db, sql])
    }

    @Test func answersAgreeWithSQLWrittenByHand() throws {
        let cases: [(String, String)] = [
            ("find InvoiceLine select Invoice.Customer.Country as country, trunc(sum(UnitPrice * Quantity) * 100) as cents "
                + "group by Invoice.Customer.Country sort by cents desc, country limit 5",
             "SELECT c.Country AS country, trunc(sum(l.UnitPrice * l.Quantity) * 100) AS cents FROM InvoiceLine l "
                + "JOIN Invoice i ON i.InvoiceId = l.InvoiceId JOIN Customer c ON c.CustomerId = i.CustomerId "
                + "GROUP BY c.Country ORDER BY cents DESC, country LIMIT 5"),
            ("count Track where Milliseconds > 300000 group by Genre.Name limit 4",
             "SELECT g.Name AS \"Genre.Name\", count(*) AS count FROM Track t JOIN Genre g ON g.GenreId = t.GenreId "
                + "WHERE t.Milliseconds > 300000 GROUP BY g.Name ORDER BY count DESC, g.Name LIMIT 4"),
            ("find Album select Title, sum(tracks.Milliseconds) as length, count(tracks) as n where Artist.Name BEGINSWITH 'Led' "
                + "sort by length desc",
             "SELECT a.Title, (SELECT coalesce(sum(Milliseconds), 0) FROM Track WHERE AlbumId = a.AlbumId) AS length, "
                + "(SELECT count(*) FROM Track WHERE AlbumId = a.AlbumId) AS n FROM Album a JOIN Artist r ON r.ArtistId = a.ArtistId "
                + "WHERE r.Name LIKE 'Led%' ORDER BY length DESC"),
            ("find Track select count(), count(distinct Composer) as composers, min(Milliseconds), max(Name)",
             "SELECT count(*) AS \"count()\", count(DISTINCT Composer) AS composers, min(Milliseconds) AS \"min(Milliseconds)\", "
                + "max(Name) AS \"max(Name)\" FROM Track"),
            ("find Track select MediaTypeId, GenreId, count() as n group by MediaTypeId, GenreId having n >= 100 sort by n desc",
             "SELECT MediaTypeId, GenreId, count(*) AS n FROM Track GROUP BY 1, 2 HAVING n >= 100 ORDER BY n DESC"),
            ("find Customer select distinct Country sort by Country limit 3",
             "SELECT DISTINCT Country FROM Customer ORDER BY Country LIMIT 3"),
            ("first Track select Name, uppercase(Composer) as who where Composer != nil sort by Name",
             "SELECT Name, upper(Composer) AS who FROM Track WHERE Composer IS NOT NULL ORDER BY Name LIMIT 1"),
        ]
        for (command, sql) in cases {
            let expected = try sqlite3(sql)
            #expect(try ours(command) == expected, "\(command)")
            #expect(expected.split(separator: "\n").count > 1, "\(sql) must return rows")
        }
    }

    /// A selection's name in `having` stays the selection's under CONTAINS and IN, whose sides
    /// may otherwise be a collection column's elements.
    @Test func havingNamesTheSelectionUnderContainsAndIn() throws {
        #expect(try ours("find Track select Composer as who, count() as n group by Composer "
                         + "having who CONTAINS \"Jimmy Page, Robert\" AND n IN {15, 12} sort by n desc")
                == "who\tn\nJimmy Page, Robert Plant\t15\nJimmy Page, Robert Plant, Charlie Jones, Michael Lee\t12\n")
    }

    @Test func exportAndExplainTakeTheSameClauses() throws {
        let path = folder.appendingPathComponent("genres.csv").path
        let r = try Shell.run([db, "-e", "export Track select Genre.Name as genre, count() as tracks group by Genre.Name sort by tracks desc limit 2 to \(path)"])
        #expect(r.status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "\"genre\",\"tracks\"\n\"Rock\",1297\n\"Latin\",579\n")
        let explain = try Shell.run([db, "-e", "explain find Track select GenreId, count() as n group by GenreId having n > $min",
                                     "-p", "min=100"])
        #expect(explain.stdout.contains("GROUP BY"))
        #expect(explain.stdout.contains("HAVING"))
        #expect(explain.stdout.contains("\"100\""))
    }

    @Test func mistakesPointAtTheirPart() throws {
        /// The message, the command and a caret under `culprit`.
        func report(_ message: String, _ command: String, _ culprit: String) -> String {
            let start = command.range(of: culprit).map { command.distance(from: command.startIndex, to: $0.lowerBound) } ?? 0
            return "error: " + message + "\n  " + command + "\n  " + String(repeating: " ", count: start) + "^"
                + String(repeating: "~", count: culprit.count - 1) + "\n"
        }
        let cases: [(String, String)] = [(String, String, String)]([
            ("find Track select Name where sum(Milliseconds) > 3", "sum",
             "sum() over rows belongs in 'having' (or in 'select'), not in a filter: a filter tests one row at a time"),
            ("find Track select Name, count() group by AlbumId", "Name",
             "'Name' is neither a group key nor an aggregate: add it to 'group by', or aggregate it (min(…), max(…), count(…))"),
            ("find Track select AlbumId, count() group by Albumid2", "Albumid2",
             "Track has no attribute or relationship named 'Albumid2' (did you mean 'AlbumId'?)"),
            ("find Track select AlbumId, count() as n group by AlbumId having sum(Nme) > 1", "Nme",
             "Track has no attribute or relationship named 'Nme' (did you mean 'Name'?)"),
        ]).map { command, culprit, message in (command, report(message, command, culprit)) }
        for (command, message) in cases {
            let r = try Shell.run([db, "-e", command])
            #expect(r.status == 1, "\(command)")
            #expect(r.stdout == "")
            #expect(r.stderr == message)
        }
    }
}
