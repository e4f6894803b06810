import PortalPredicate

/// Every row of docs/predicates.md's table and every example in it, each with the same condition
/// written by hand in SQL, on Chinook: the compiler's tests on SQLite and the PostgreSQL
/// differential run them all.
public enum ChinookPredicateCases {
    public struct Case: CustomStringConvertible, Sendable {
        public var entity: String
        public var predicate: String
        /// The same condition written by hand in SQLite's SQL.
        public var sql: String
        public var variables: [String: Argument] = [:]
        /// How a parameterised test names the case.
        public var description: String { "\(entity) where \(predicate)" }

        init(entity: String, predicate: String, sql: String, variables: [String: Argument] = [:]) {
            (self.entity, self.predicate, self.sql, self.variables) = (entity, predicate, sql, variables)
        }
    }

    public static let table: [Case] = [
        // == and =, nil
        Case(entity: "Track", predicate: #"Composer == "AC/DC""#, sql: "Composer = 'AC/DC'"),
        Case(entity: "Track", predicate: #"Composer = "AC/DC""#, sql: "Composer = 'AC/DC'"),
        Case(entity: "Track", predicate: "Composer == nil", sql: "Composer IS NULL"),
        Case(entity: "Track", predicate: "nil == Composer", sql: "Composer IS NULL"),
        // != and <> include NULLs
        Case(entity: "Track", predicate: #"Composer != "AC/DC""#, sql: "Composer IS NULL OR Composer <> 'AC/DC'"),
        Case(entity: "Track", predicate: #"Composer <> "AC/DC""#, sql: "Composer IS NULL OR Composer <> 'AC/DC'"),
        Case(entity: "Track", predicate: "Composer != nil", sql: "Composer IS NOT NULL"),
        // ordering
        Case(entity: "Track", predicate: "Milliseconds < 100000", sql: "Milliseconds < 100000"),
        Case(entity: "Track", predicate: "Milliseconds <= 100000", sql: "Milliseconds <= 100000"),
        Case(entity: "Track", predicate: "Milliseconds =< 100000", sql: "Milliseconds <= 100000"),
        Case(entity: "Track", predicate: "Milliseconds > 1000000", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "Milliseconds >= 1000000", sql: "Milliseconds >= 1000000"),
        Case(entity: "Track", predicate: "Milliseconds => 1000000", sql: "Milliseconds >= 1000000"),
        Case(entity: "Track", predicate: #"Composer < "B""#, sql: "Composer < 'B'"),
        Case(entity: "Track", predicate: #"Milliseconds > "300000""#, sql: "Milliseconds > 300000"),
        // BETWEEN, IN
        Case(entity: "Track", predicate: "Milliseconds BETWEEN {200000, 210000}",
             sql: "Milliseconds >= 200000 AND Milliseconds <= 210000"),
        Case(entity: "Track", predicate: "GenreId IN {1, 3}", sql: "GenreId IN (1, 3)"),
        Case(entity: "Track", predicate: "GenreId IN $genres", sql: "GenreId IN (2, 4, 5)",
             variables: ["genres": .list([2, 4, 5])]),
        Case(entity: "Track", predicate: "GenreId IN {}", sql: "0"),
        // nil in the list matches NULL, as NSPredicate's IN does.
        Case(entity: "Track", predicate: "Composer IN {nil, \"AC/DC\"}", sql: "Composer = 'AC/DC' OR Composer IS NULL"),
        Case(entity: "Track", predicate: "Milliseconds > $min", sql: "Milliseconds > 500000",
             variables: ["min": .value(500000)]),
        // string operators, case-sensitive
        Case(entity: "Track", predicate: #"Name BEGINSWITH "Love""#, sql: "Name GLOB 'Love*'"),
        Case(entity: "Track", predicate: #"Name BEGINSWITH "love""#, sql: "Name GLOB 'love*'"),
        Case(entity: "Track", predicate: #"Composer BEGINSWITH "Antonio""#, sql: "Composer GLOB 'Antonio*'"),
        Case(entity: "Track", predicate: #"Composer BEGINSWITH[c] "antonio""#, sql: "Composer LIKE 'antonio%'"),
        Case(entity: "Track", predicate: #"Name ENDSWITH "Love""#, sql: "Name GLOB '*Love'"),
        Case(entity: "Track", predicate: #"Name CONTAINS "love""#, sql: "Name GLOB '*love*'"),
        Case(entity: "Track", predicate: #"Composer CONTAINS "Jobim""#, sql: "Composer GLOB '*Jobim*'"),
        Case(entity: "Track", predicate: #"Name LIKE "*Love*""#, sql: "Name GLOB '*Love*'"),
        Case(entity: "Track", predicate: #"Name LIKE "?ove""#, sql: "Name GLOB '?ove'"),
        Case(entity: "Track", predicate: #"Name LIKE "%ove""#, sql: "Name = '%ove'"),
        Case(entity: "Track", predicate: #"Name MATCHES "Love.*""#, sql: "Name GLOB 'Love*'"),
        Case(entity: "Track", predicate: #"Name MATCHES "ove""#, sql: "Name = 'ove'"),
        Case(entity: "Track", predicate: #"Name MATCHES "(?i).*love.*""#, sql: "lower(Name) GLOB '*love*'"),
        // options
        Case(entity: "Artist", predicate: #"Name ==[c] "ac/dc""#, sql: "Name = 'AC/DC'"),
        Case(entity: "Artist", predicate: #"Name ==[d] "Antonio Carlos Jobim""#, sql: "Name = 'Antônio Carlos Jobim'"),
        Case(entity: "Artist", predicate: #"Name ==[cd] "antonio carlos jobim""#, sql: "Name = 'Antônio Carlos Jobim'"),
        Case(entity: "Artist", predicate: #"Name ==[c] "antonio carlos jobim""#, sql: "0"),
        Case(entity: "Artist", predicate: #"Name ==[n] "AC/DC""#, sql: "Name = 'AC/DC'"),
        Case(entity: "Artist", predicate: #"Name ==[c] "ANTÔNIO CARLOS JOBIM""#, sql: "Name = 'Antônio Carlos Jobim'"),
        Case(entity: "Artist", predicate: #"Name ==[n] "antônio carlos jobim""#, sql: "0"),
        Case(entity: "Artist", predicate: #"Name BEGINSWITH[c] "ac""#, sql: "Name LIKE 'ac%'"),
        Case(entity: "Artist", predicate: #"Name CONTAINS[cd] "JOBIM""#, sql: "Name LIKE '%jobim%'"),
        Case(entity: "Artist", predicate: #"Name ENDSWITH[c] "ORCHESTRA""#, sql: "Name LIKE '%orchestra'"),
        Case(entity: "Artist", predicate: #"Name LIKE[c] "a*""#, sql: "Name LIKE 'a%'"),
        Case(entity: "Artist", predicate: #"Name IN[c] {"ac/dc", "AEROSMITH"}"#, sql: "Name IN ('AC/DC', 'Aerosmith')"),
        // to-one key paths
        Case(entity: "Track", predicate: #"Album.Title == "Let There Be Rock""#,
             sql: "AlbumId IN (SELECT AlbumId FROM Album WHERE Title = 'Let There Be Rock')"),
        Case(entity: "Track", predicate: #"Album.Artist.Name == "AC/DC""#,
             sql: "AlbumId IN (SELECT AlbumId FROM Album JOIN Artist USING (ArtistId) WHERE Artist.Name = 'AC/DC')"),
        Case(entity: "Track", predicate: "Album == nil", sql: "AlbumId IS NULL"),
        Case(entity: "Track", predicate: "Genre != nil", sql: "GenreId IS NOT NULL"),
        Case(entity: "Customer", predicate: #"SupportRep.FirstName == "Jane""#,
             sql: "SupportRepId IN (SELECT EmployeeId FROM Employee WHERE FirstName = 'Jane')"),
        Case(entity: "Customer", predicate: #"SupportRepId.FirstName == "Jane""#,
             sql: "SupportRepId IN (SELECT EmployeeId FROM Employee WHERE FirstName = 'Jane')"),
        Case(entity: "Employee", predicate: "ReportsTo == nil", sql: "ReportsTo IS NULL"),
        Case(entity: "Employee", predicate: "ReportsTo.FirstName == nil", sql: "ReportsTo IS NULL"),
        Case(entity: "Employee", predicate: "ReportsTo.ReportsTo.FirstName == \"Andrew\"",
             sql: "ReportsTo IN (SELECT e.EmployeeId FROM Employee e JOIN Employee b ON b.EmployeeId = e.ReportsTo WHERE b.FirstName = 'Andrew')"),
        // to-many: ANY/SOME/ALL/NONE, implicit ANY
        Case(entity: "Album", predicate: "ANY tracks.Milliseconds > 1000000",
             sql: "AlbumId IN (SELECT AlbumId FROM Track WHERE Milliseconds > 1000000)"),
        Case(entity: "Album", predicate: "SOME tracks.Milliseconds > 1000000",
             sql: "AlbumId IN (SELECT AlbumId FROM Track WHERE Milliseconds > 1000000)"),
        Case(entity: "Album", predicate: "tracks.Milliseconds > 1000000",
             sql: "AlbumId IN (SELECT AlbumId FROM Track WHERE Milliseconds > 1000000)"),
        Case(entity: "Album", predicate: "ALL tracks.Milliseconds > 300000",
             sql: "AlbumId NOT IN (SELECT AlbumId FROM Track WHERE Milliseconds <= 300000 AND AlbumId NOT NULL)"),
        Case(entity: "Album", predicate: "NONE tracks.Milliseconds > 300000",
             sql: "AlbumId NOT IN (SELECT AlbumId FROM Track WHERE Milliseconds > 300000 AND AlbumId NOT NULL)"),
        Case(entity: "Album", predicate: #"ANY tracks.Composer == nil"#,
             sql: "AlbumId IN (SELECT AlbumId FROM Track WHERE Composer IS NULL)"),
        Case(entity: "Album", predicate: #"ALL tracks.Composer != nil"#,
             sql: "AlbumId NOT IN (SELECT AlbumId FROM Track WHERE Composer IS NULL AND AlbumId NOT NULL)"),
        Case(entity: "Album", predicate: #"ANY tracks.Genre.Name == "Jazz""#,
             sql: "AlbumId IN (SELECT AlbumId FROM Track JOIN Genre USING (GenreId) WHERE Genre.Name = 'Jazz')"),
        Case(entity: "Artist", predicate: "ANY albums.tracks.Milliseconds > 1500000",
             sql: "ArtistId IN (SELECT ArtistId FROM Album JOIN Track USING (AlbumId) WHERE Milliseconds > 1500000)"),
        Case(entity: "Track", predicate: #"ANY Album.tracks.Name == "Put The Finger On You""#,
             sql: "AlbumId IN (SELECT AlbumId FROM Track WHERE Name = 'Put The Finger On You')"),
        Case(entity: "Genre", predicate: #""Warner 25 Anos" IN tracks.Album.Title"#,
             sql: "GenreId IN (SELECT GenreId FROM Track JOIN Album USING (AlbumId) WHERE Album.Title = 'Warner 25 Anos')"),
        Case(entity: "Artist", predicate: #""Warner 25 Anos" IN albums.Title"#,
             sql: "ArtistId IN (SELECT ArtistId FROM Album WHERE Title = 'Warner 25 Anos')"),
        // aggregates
        Case(entity: "Artist", predicate: "albums.@count > 10",
             sql: "(SELECT COUNT(*) FROM Album WHERE Album.ArtistId = Artist.ArtistId) > 10"),
        Case(entity: "Album", predicate: "tracks[SIZE] >= 25",
             sql: "(SELECT COUNT(*) FROM Track WHERE Track.AlbumId = Album.AlbumId) >= 25"),
        Case(entity: "Album", predicate: "count(tracks) >= 25",
             sql: "(SELECT COUNT(*) FROM Track WHERE Track.AlbumId = Album.AlbumId) >= 25"),
        Case(entity: "Album", predicate: "tracks.@count == 0",
             sql: "AlbumId NOT IN (SELECT AlbumId FROM Track WHERE AlbumId NOT NULL)"),
        Case(entity: "Album", predicate: "tracks.@sum.Milliseconds > 5000000",
             sql: "(SELECT SUM(Milliseconds) FROM Track WHERE Track.AlbumId = Album.AlbumId) > 5000000"),
        Case(entity: "Album", predicate: "sum(tracks.Milliseconds) > 5000000",
             sql: "(SELECT SUM(Milliseconds) FROM Track WHERE Track.AlbumId = Album.AlbumId) > 5000000"),
        Case(entity: "Album", predicate: "tracks.@avg.Milliseconds > 600000",
             sql: "(SELECT AVG(Milliseconds) FROM Track WHERE Track.AlbumId = Album.AlbumId) > 600000"),
        Case(entity: "Album", predicate: "tracks.@min.Milliseconds > 400000",
             sql: "(SELECT MIN(Milliseconds) FROM Track WHERE Track.AlbumId = Album.AlbumId) > 400000"),
        Case(entity: "Album", predicate: "tracks.@max.Milliseconds < 100000",
             sql: "(SELECT MAX(Milliseconds) FROM Track WHERE Track.AlbumId = Album.AlbumId) < 100000"),
        Case(entity: "Album", predicate: "max(tracks.Milliseconds) < 100000",
             sql: "(SELECT MAX(Milliseconds) FROM Track WHERE Track.AlbumId = Album.AlbumId) < 100000"),
        Case(entity: "Customer", predicate: "SUBQUERY(invoices, $i, $i.Total > 13).@count >= 2",
             sql: "(SELECT COUNT(*) FROM Invoice WHERE Invoice.CustomerId = Customer.CustomerId AND Total > 13) >= 2"),
        Case(entity: "Customer", predicate: #"SUBQUERY(invoices, $i, $i.Total > 15 AND BillingCountry == "France").@count > 0"#,
             sql: "CustomerId IN (SELECT CustomerId FROM Invoice WHERE Total > 15 AND BillingCountry = 'France')"),
        // arithmetic and functions
        Case(entity: "Track", predicate: "Milliseconds / 1000 > 1000", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "Milliseconds / 2000 == 203", sql: "Milliseconds = 406000"),
        Case(entity: "Track", predicate: "Milliseconds * 2 + 1 > 2000001", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "Milliseconds - 1000000 > 0", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "-Milliseconds < -1000000", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "2 ** 3 == 8 AND Milliseconds > 1000000", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "length(Name) > 60", sql: "length(Name) > 60"),
        Case(entity: "Track", predicate: #"lowercase(Name) == "love""#, sql: "lower(Name) = 'love'"),
        Case(entity: "Track", predicate: #"uppercase(Name) == "LOVE""#, sql: "upper(Name) = 'LOVE'"),
        Case(entity: "Track", predicate: "abs(-Milliseconds) > 1000000", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "sqrt(Milliseconds) > 1000", sql: "Milliseconds > 1000000"),
        Case(entity: "Track", predicate: "floor(Milliseconds / 1000) == 343", sql: "Milliseconds / 1000 = 343"),
        // dates
        Case(entity: "Invoice", predicate: #"InvoiceDate < CAST("2021-02-01", "NSDate")"#,
             sql: "InvoiceDate < '2021-02-01 00:00:00'"),
        Case(entity: "Invoice", predicate: #"InvoiceDate == CAST("2021-01-11T00:00:00Z", "NSDate")"#,
             sql: "InvoiceDate = '2021-01-11 00:00:00'"),
        Case(entity: "Invoice", predicate: "InvoiceDate > CAST(662688000, \"NSDate\")",
             sql: "InvoiceDate > '2022-01-01 00:00:00'"),
        Case(entity: "Invoice", predicate: "InvoiceDate < now()", sql: "1"),
        Case(entity: "Employee", predicate: #"BirthDate < CAST("1960-01-01", "NSDate")"#,
             sql: "BirthDate < '1960-01-01'"),
        // SELF, constants, NOT, precedence
        Case(entity: "Track", predicate: "SELF == 5", sql: "TrackId = 5"),
        Case(entity: "Track", predicate: "SELF IN {1, 2, 3}", sql: "TrackId IN (1, 2, 3)"),
        Case(entity: "Track", predicate: "TRUEPREDICATE", sql: "1"),
        Case(entity: "Track", predicate: "FALSEPREDICATE", sql: "0"),
        Case(entity: "Track", predicate: #"NOT (Composer == "AC/DC")"#, sql: "Composer IS NULL OR Composer <> 'AC/DC'"),
        Case(entity: "Track", predicate: #"NOT (Composer BEGINSWITH "A")"#, sql: "Composer IS NULL OR Composer NOT GLOB 'A*'"),
        Case(entity: "Track", predicate: #"NOT (Composer CONTAINS "a" OR Bytes > 1000000)"#,
             sql: "(Composer IS NULL OR Composer NOT GLOB '*a*') AND (Bytes IS NULL OR Bytes <= 1000000)"),
        Case(entity: "Track", predicate: #"!(Milliseconds < 300000) && !(Composer == nil)"#,
             sql: "Milliseconds >= 300000 AND Composer IS NOT NULL"),
        Case(entity: "Track", predicate: "NOT NOT (Composer == nil)", sql: "Composer IS NULL"),
        Case(entity: "Track", predicate: "GenreId == 1 OR GenreId == 2 AND MediaTypeId == 2",
             sql: "GenreId = 1 OR (GenreId = 2 AND MediaTypeId = 2)"),
        Case(entity: "Track", predicate: "GenreId == 1 || GenreId == 2 && MediaTypeId == 2",
             sql: "GenreId = 1 OR (GenreId = 2 AND MediaTypeId = 2)"),
        // case-insensitive names
        Case(entity: "Track", predicate: #"composer == "AC/DC" AND album.artist.name == "AC/DC""#,
             sql: "Composer = 'AC/DC' AND AlbumId IN (SELECT AlbumId FROM Album JOIN Artist USING (ArtistId) WHERE Artist.Name = 'AC/DC')"),
    ]

    /// The examples of docs/predicates.md (the part after `where`, without the shell's sort/limit).
    public static let examples: [Case] = [
        Case(entity: "Track", predicate: #"Composer BEGINSWITH "Antônio""#, sql: "substr(Composer, 1, 7) = 'Antônio'"),
        Case(entity: "Track", predicate: #"Album.Artist.Name ==[cd] "antonio carlos jobim""#,
             sql: "AlbumId IN (SELECT AlbumId FROM Album JOIN Artist USING (ArtistId) WHERE Artist.Name = 'Antônio Carlos Jobim')"),
        Case(entity: "Artist", predicate: "albums.@count > 10",
             sql: "ArtistId IN (SELECT ArtistId FROM Album GROUP BY ArtistId HAVING COUNT(*) > 10)"),
        Case(entity: "Album", predicate: "ANY tracks.Milliseconds > 1000000",
             sql: "EXISTS (SELECT 1 FROM Track WHERE Track.AlbumId = Album.AlbumId AND Milliseconds > 1000000)"),
        Case(entity: "Album", predicate: "ALL tracks.UnitPrice == 0.99",
             sql: "NOT EXISTS (SELECT 1 FROM Track WHERE Track.AlbumId = Album.AlbumId AND UnitPrice <> 0.99)"),
        Case(entity: "Customer", predicate: "SUBQUERY(invoices, $i, $i.Total > 20).@count >= 2",
             sql: "CustomerId IN (SELECT CustomerId FROM Invoice WHERE Total > 20 GROUP BY CustomerId HAVING COUNT(*) >= 2)"),
        Case(entity: "Employee", predicate: #"ReportsTo.FirstName == "Andrew""#,
             sql: "ReportsTo IN (SELECT EmployeeId FROM Employee WHERE FirstName = 'Andrew')"),
        Case(entity: "Invoice",
             predicate: #"InvoiceDate BETWEEN {CAST("2021-01-01", "NSDate"), CAST("2021-12-31", "NSDate")}"#,
             sql: "InvoiceDate >= '2021-01-01' AND InvoiceDate <= '2021-12-31 00:00:00'"),
        Case(entity: "Track", predicate: #"Name MATCHES "(?i).*love.*" AND NOT (GenreId IN {1, 3})"#,
             sql: "lower(Name) GLOB '*love*' AND (GenreId IS NULL OR GenreId NOT IN (1, 3))"),
        Case(entity: "Customer", predicate: #"Country IN {"Brazil", "Portugal"} AND Fax != nil"#,
             sql: "Country IN ('Brazil', 'Portugal') AND Fax IS NOT NULL"),
    ]

    /// The table's rows, then the examples.
    public static let all = table + examples
}
