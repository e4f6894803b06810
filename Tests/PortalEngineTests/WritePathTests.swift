import Foundation
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// The one write path: assignments of values and compiled expressions, a filter, and what a
/// write returns; counts are the rows matched, whatever triggers and cascades did besides.
@Suite struct WritePathTests {
    /// A `Hike` table with an audit trigger and a cascading child.
    func store(_ folder: TemporaryFolder) throws -> Store {
        let store = try Store(path: folder.path("hikes.sqlite"))
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE Hike (id INTEGER PRIMARY KEY, trail TEXT NOT NULL, km REAL NOT NULL, notes TEXT);
                CREATE TABLE Photo (id INTEGER PRIMARY KEY, hikeId INTEGER REFERENCES Hike(id) ON DELETE CASCADE);
                CREATE TABLE Audit (what TEXT);
                CREATE TRIGGER HikeUpdated AFTER UPDATE ON Hike BEGIN INSERT INTO Audit VALUES ('u ' || new.id); END;
                INSERT INTO Hike VALUES (1, 'Côte Sauvage', 14.5, NULL), (2, 'Cotswold Way', 22.0, NULL), (3, 'Short', 3.0, NULL);
                INSERT INTO Photo (hikeId) VALUES (3), (3), (3);
                """)
        }
        return store
    }

    /// docs/engine.md's example, "Writes by assignments".
    @Test func theGuidesExampleRuns() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let gone = try store.write { ctx -> WriteResult in
            let made = try ctx.insert("Hike", [.value("trail", "Lac Blanc"), .value("km", 9.8)], returning: .all)
            #expect(made.rows.first?["trail"] == "Lac Blanc" && made.matched == 1)
            try ctx.update("Hike", [.value("notes", "ibex!")], where: .id([.integer(made.insertedRowid ?? 0)]))
            return try ctx.delete("Hike", where: .predicate("km < %@", [5]))
        }
        #expect(gone.matched == 1)
        #expect(try store.read { try $0.count("Photo") } == 0)   // the cascade ran, and is not counted
        #expect(try store.read { try $0.find("Hike", where: "notes == 'ibex!'").map { $0["trail"] } } == ["Lac Blanc"])
    }

    @Test func expressionsRefersToTheRowAndCountsAreTheRowsMatched() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let longer = try store.write { ctx in
            try ctx.update("Hike", [.expression("km", SQLFragment("km + 1"))], where: .predicate("km > 10", []))
        }
        #expect(longer.matched == 2)   // the trigger's two audit rows are not counted
        #expect(try store.read { try $0.query("SELECT km FROM Hike WHERE id IN (1, 2) ORDER BY id").rows.map { $0.values } }
                == [[.real(15.5)], [.real(23.0)]])
        #expect(try store.read { try $0.count("Audit") } == 2)
        #expect(try store.write { try $0.update("Hike", [.value("km", 1)], where: .id([.integer(99)])) }.matched == 0)
    }

    /// The row an insert returns is the row as stored: a whole number given to a REAL column
    /// comes back as the real stored, not the integer given.
    @Test func anInsertReturnsTheRowAsStored() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let made = try store.write { try $0.insert("Hike", [.value("trail", "Round"), .value("km", 3)], returning: .all) }
        #expect(made.rows.first?["km"] == .real(3.0))
    }

    @Test func anUpsertWithoutTheWholeIdInserts() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let replaced = try store.write { try $0.upsert("Hike", [.value("id", 1), .value("trail", "Renamed"), .value("km", 1)], returning: .all) }
        #expect(replaced.rows.first?["trail"] == "Renamed")
        let added = try store.write { try $0.upsert("Hike", [.value("trail", "New"), .value("km", 2)], returning: .all) }
        #expect(added.rows.first?["id"] == 4)
        #expect(try store.read { try $0.count("Hike") } == 4)
    }

    @Test func mistakesAreClearAndWriteNothing() throws {
        let folder = try TemporaryFolder()
        let store = try store(folder)
        let cases: [(String, PortalError.Kind, String, (WriteContext) throws -> Void)] = [
            ("set twice", .misuse, "set twice", { _ = try $0.insert("Hike", [.value("km", 1), .value("KM", 2)]) }),
            ("unknown attribute", .unknownAttribute, "no attribute named 'kms'", { _ = try $0.update("Hike", [.value("kms", 1)], where: .all) }),
            ("rows on a plain database", .misuse, "set by its key attributes",
             { _ = try $0.update("Hike", [.rows("photos", [1])], where: .all) }),
            ("an id of two parts", .misuse, "identified by 1 value", { _ = try $0.delete("Hike", where: .id([.integer(1), .integer(2)])) }),
            ("a constraint", .constraint(.notNull), "NOT NULL", { _ = try $0.insert("Hike", [.value("trail", "x")]) }),
        ]
        for (name, kind, message, write) in cases {
            let error = portalError { try store.write { ctx in try write(ctx) } }
            #expect(error?.kind == kind && error?.message.contains(message) == true, "\(name): \(String(describing: error))")
        }
        #expect(try store.read { try $0.count("Hike") } == 3)
    }
}
