import Foundation
import Testing

/// What the shell suggests for SQL typed as a command, and for an aggregate that cannot be grouped.
@Suite struct CommandSuggestionTests {
    @Test func anInsertPointsToCreate() throws {
        let r = try Shell.run(["-r", Shell.chinook, "-e", "insert into Genre values (99, 'x')"])
        #expect(r.stderr == """
            error: unknown command 'insert': to add an entity write 'create ENTITY set key = value, …'; for SQL write 'sql insert …'
              insert into Genre values (99, 'x')
              ^~~~~~

            """)
        #expect(r.status == 1)
    }

    @Test func anAggregateOverAToManyPathInAGroupedSelectionSaysWhereToGroup() throws {
        let r = try Shell.run(["-r", Shell.chinook, "-e", "find Album select ArtistId, avg(tracks.Milliseconds) group by ArtistId"])
        #expect(r.stderr.hasPrefix("""
            error: 'avg(tracks.Milliseconds)' aggregates each Album's tracks, one value per Album, not per group: \
            select from Track and group there, or add it to 'group by'

            """), "\(r.stderr)")
        #expect(r.status == 1)
    }
}
