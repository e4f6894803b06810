import Foundation
import Testing

/// Through the real binary: a Swift predicate closure is accepted wherever predicate text is,
/// with the same answers as the NSPredicate text that says the same, carets under errors, and
/// `explain` showing that text.
@Suite struct SwiftClosurePredicateTests {
    func shell(_ command: String) throws -> Run {
        try Shell.run(["-r", Shell.chinook, "-e", command])
    }

    @Test func closuresCountWhatTheirNSPredicateTextCounts() throws {
        let pairs = [
            (#"{ $0.Milliseconds > 300_000 && $0.album?.Title.starts(with: "A") == true }"#,
             #"Milliseconds > 300000 AND Album.Title BEGINSWITH "A""#),
            (#"#Predicate<Track> { track in track.Composer?.contains("Jobim") ?? false }"#, #"Composer CONTAINS "Jobim""#),
            (#"{ $0.Composer != "AC/DC" }"#, #"Composer != "AC/DC""#),
            (#"{ (1...3).contains($0.GenreId ?? 0) && [1, 2].contains($0.MediaTypeId) }"#,
             "GenreId BETWEEN {1, 3} AND MediaTypeId IN {1, 2}"),
            (#"{ $0.Name.localizedStandardContains("love") }"#, #"Name CONTAINS[cd] "love""#),
            (#"{ $0.Name.caseInsensitiveCompare("wave") == .orderedSame || $0.Composer?.lowercased() == "u2" }"#,
             #"Name ==[c] "wave" OR lowercase(Composer) == "u2""#),
        ]
        for (closure, text) in pairs {
            let a = try shell("count Track where " + closure), b = try shell("count Track where " + text)
            #expect(a.status == 0 && a.stdout == b.stdout, "\(closure): \(a.stdout) \(a.stderr) vs \(b.stdout)")
        }
        let albums = try shell("count Album where { $0.tracks.contains { $0.Milliseconds > 1_000_000 } }")
        #expect(albums.stdout == (try shell("count Album where ANY tracks.Milliseconds > 1000000")).stdout)
        let artists = try shell("count Artist where { $0.albums.count > 10 }")
        #expect(artists.stdout == (try shell("count Artist where albums.@count > 10")).stdout)
        let found = try shell(#"find Track select Name where { $0.Composer?.contains("Jobim") == true } sort by Name limit 1"#)
        #expect(found.status == 0)
    }

    @Test func updatesAndDeletesTakeClosures() throws {
        let (folder, database) = try Shell.chinookCopy()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try Shell.run([database, "-e", "update Track set UnitPrice = 2.99 where { $0.Milliseconds > 2_500_000 }",
                                 "-e", "count Track where UnitPrice == 2.99",
                                 "-e", "delete InvoiceLine where { $0.track?.Milliseconds ?? 0 > 2_500_000 }",
                                 "-e", "count InvoiceLine where Track.Milliseconds > 2500000"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "155\n0\n")
        #expect(run.stderr == "updated 155 Track\ndeleted 84 InvoiceLine\n")
    }

    @Test func errorsHaveCarets() throws {
        let typo = try shell("count Track where { $0.Miliseconds > 3 }")
        #expect(typo.status == 1)
        #expect(typo.stderr == "error: Track has no attribute or relationship named 'Miliseconds' (did you mean 'Milliseconds'?)\n"
            + "  count Track where { $0.Miliseconds > 3 }\n                         ^~~~~~~~~~~\n")
        let missing = try shell("count Track where { $0.Milliseconds > }")
        #expect(missing.stderr == "error: expected a value (found '}')\n"
            + "  count Track where { $0.Milliseconds > }\n                                        ^\n")
        let other = try shell(#"count Track where #Predicate<Album> { $0.Title == "x" }"#)
        #expect(other.stderr.hasPrefix("error: the predicate is over Album, not Track\n"))
    }

    @Test func explainShowsTheNSPredicateText() throws {
        let run = try Shell.run(["-r", Shell.chinook, "--format", "table", "-e",
                                 #"explain count Track where { $0.Milliseconds > 300_000 && $0.album?.Title.starts(with: "A") == true }"#])
        #expect(run.stdout.hasPrefix(#"predicate: Milliseconds > 300000 AND (Album != NULL AND Album.Title BEGINSWITH "A")"#
                                     + "\nsql: SELECT count(*) FROM \"Track\" AS t0 WHERE "), "\(run.stdout)\(run.stderr)")
        // The machine formats carry it too, as the row's first column.
        let json = try Shell.run(["-r", Shell.chinook, "--format", "json", "-e", #"explain count Track where { $0.Milliseconds > 300_000 }"#])
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.first?["predicate"] as? String == "Milliseconds > 300000", "\(json.stdout)")
        #expect((rows?.first?["sql"] as? String)?.hasPrefix("SELECT count(*)") == true)
        let csv = try Shell.run(["-r", Shell.chinook, "--format", "csv", "-e", #"explain count Track where { $0.Milliseconds > 300_000 }"#])
        #expect(csv.stdout.hasPrefix("predicate,sql,bindings,plan,warnings\n") || csv.stdout.hasPrefix("\"predicate\",\"sql\""), "\(csv.stdout)")
    }
}
