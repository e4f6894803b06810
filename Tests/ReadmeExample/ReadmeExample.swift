// The README's "Using the engine from Swift" example, verbatim between the two markers: it is
// compiled as a target of its own, the engine's tests run it on a SQLite file and the
// PostgreSQL tests on a server database, and EndToEndTests/DocsReadmeTests checks that the
// README's code block is byte-identical to it.

// README-EXAMPLE-BEGIN
import Foundation
import PortalEngine

/// One row of the Hike table: the stored properties are its columns.
struct Hike: PortalEntity, Equatable {
    static let entityName = "Hike"
    static let idAttribute = "id"
    var id: Int64
    var trail: String
    var km: Double
    var notes: String?
}

/// Creates the table once, stores three hikes and asks two questions of them. The store is a
/// SQLite file, `try Store(path: "hikes.sqlite")` (with `import PortalSQLite`), or a PostgreSQL
/// database, `try Store(url: "postgresql://localhost/hikes")` (with `import PortalPostgres`).
func hikeReport(_ store: Store) throws -> (longTrails: [String], withNotes: Int) {
    var migrator = Migrator()
    migrator.register("create Hike") { ctx in
        try ctx.execute("CREATE TABLE Hike (id INTEGER PRIMARY KEY, trail TEXT NOT NULL, km DOUBLE PRECISION NOT NULL, notes TEXT)")
    }
    try migrator.migrate(store)

    let hikes = Portal<Hike>(store)
    try hikes.upsert([
        Hike(id: 1, trail: "Côte Sauvage", km: 14.5, notes: "windy"),
        Hike(id: 2, trail: "Cotswold Way", km: 22.0, notes: nil),
        Hike(id: 3, trail: "Lac Blanc", km: 9.8, notes: "ibex!"),
    ])
    // Values are passed as %@ arguments and bound as SQL parameters, never spliced into SQL.
    let long = try hikes.findAll(where: "km > %@ AND trail BEGINSWITH[cd] %@", [10, "co"],
                                 sortedBy: [SortKey("km", ascending: false)])
    let withNotes = try hikes.count(where: "notes != nil")
    return (long.map(\.trail), withNotes)
}

/// The same questions as SwiftData code asks them, with Foundation's #Predicate and
/// SortDescriptor: translated into the engine's predicates, captured values bound as parameters.
func typedHikeReport(_ store: Store, startingWith prefix: String) async throws
    -> (longTrails: [String], withNotes: Int, shortTrails: [String]) {
    let hikes = Portal<Hike>(store)
    let long = try hikes.findAll(where: #Predicate<Hike> { $0.km > 10 && $0.trail.starts(with: prefix) },
                                 sortedBy: [SortDescriptor(\Hike.km, order: .reverse)], limit: 10)
    let withNotes = try hikes.count(where: #Predicate<Hike> { $0.notes != nil })
    var short: [String] = []
    for try await hike in try hikes.cursor(where: #Predicate<Hike> { $0.km < 10 }) {
        short.append(hike.trail)
    }
    return (long.map(\.trail), withNotes, short)
}
// README-EXAMPLE-END
