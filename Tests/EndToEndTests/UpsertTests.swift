import Foundation
import Testing

/// `upsert` is built by the engine's statement, as `Portal<T>.upsert` is: an upsert that sets
/// only the key of an existing entity still prints it.
@Suite struct UpsertTests {
    @Test func upsertOfOnlyTheKeyOfAnExistingEntityPrintsIt() throws {
        let (_, database) = try Shell.chinookCopy()
        let r = try Shell.run([database, "--format", "csv", "-e", "upsert Genre set GenreId = 1"])
        #expect(r.status == 0)
        #expect(r.stdout == "GenreId,Name\n1,Rock\n")
        let updated = try Shell.run([database, "--format", "csv", "-e", "upsert Genre set GenreId = 2, Name = 'Jazz!'"])
        #expect(updated.stdout == "GenreId,Name\n2,Jazz!\n")
        let inserted = try Shell.run([database, "--format", "csv", "-e", "upsert Genre set GenreId = 99, Name = 'New'"])
        #expect(inserted.stdout == "GenreId,Name\n99,New\n")
        #expect(try Shell.run([database, "-e", "count Genre"]).stdout == "26\n")
    }
}
