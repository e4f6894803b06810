import Foundation
import Testing

/// `generate swift` on tables made by other programs: named like a Swift type (`String`), with
/// columns named by symbols alone (`€`, `👍`, `_`), a column whose declared type names two kinds
/// (PROJ's `INTEGER_OR_TEXT`) holding both, and SwiftPM's `STRING` column (NUMERIC affinity:
/// digits become an integer): the code compiles and reads every row.
@Suite struct GenerateSwiftNamesTests {
    static let runner = #"""
import PortalEngine
import PortalSQLite

let store = try Store(path: CommandLine.arguments[1])
let rows = try Portal<StringEntity>(store).findAll(sortedBy: [SortKey("id")])
print(rows.count)
print(rows.map { $0.code == .integer(4326) || $0.code == .text("AMANU49") })
print(rows[0].euroSign ?? "-", rows[0].thumbsUpSign ?? 0, rows[0].attribute_ ?? "-")
print(StringEntity.decodedColumns)
let cache = try Portal<MANIFEST_CACHE>(store).findAll(sortedBy: [SortKey("value")])
print(cache.map { $0.key == .text("c6e61f") || $0.key == .integer(123) })
"""#

    @Test func oddNamesAndMixedTypesCompileAndReadEveryRow() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("odd.sqlite").path
        try Spawn.run("/usr/bin/sqlite3", [database, """
            CREATE TABLE String (id INTEGER PRIMARY KEY, "€" TEXT, "👍" INTEGER, code INTEGER_OR_TEXT NOT NULL, "_" TEXT);
            INSERT INTO String VALUES (1, 'price', 5, 4326, 'x'), (2, NULL, NULL, 'AMANU49', NULL);
            CREATE TABLE MANIFEST_CACHE (key STRING PRIMARY KEY NOT NULL, value BLOB NOT NULL);
            INSERT INTO MANIFEST_CACHE VALUES ('c6e61f', X'01'), ('123', X'02');
            """])
        let generated = try Shell.run([database, "-e", "generate swift"])
        #expect(generated.status == 0)
        #expect(generated.stdout.contains("public struct StringEntity: PortalEntity"))
        #expect(generated.stdout.contains("    public var code: Value\n"))
        let entities = folder.appendingPathComponent("Entities.swift").path
        let main = folder.appendingPathComponent("main.swift").path
        try generated.stdout.write(toFile: entities, atomically: true, encoding: .utf8)
        try Self.runner.write(toFile: main, atomically: true, encoding: .utf8)
        let program = folder.appendingPathComponent("odd").path
        let compiled = try GenerateSwiftTests.compile([main, entities], into: program)
        #expect(compiled.status == 0, "swiftc: \(compiled.output)")
        guard compiled.status == 0 else { return }
        let ran = try GenerateSwiftTests.run(program, [database])
        #expect(ran.output == "2\n[true, true]\nprice 5 x\n[\"id\", \"€\", \"👍\", \"code\", \"_\"]\n[true, true]\n")
        #expect(ran.status == 0)
    }

    /// Two attributes whose names give one property name: the second property's `_` is the
    /// name `predicateKeys` maps to its attribute, so a `#Predicate` on it finds its column.
    @Test func predicateKeysNameEveryRenamedProperty() throws {
        let (folder, _) = try Shell.chinookCopy()
        let database = folder.appendingPathComponent("twice.sqlite").path
        try Spawn.run("/usr/bin/sqlite3", [database, #"CREATE TABLE People (id INTEGER PRIMARY KEY, "first name" TEXT, firstName TEXT)"#])
        let generated = try Shell.run([database, "-e", "generate swift"])
        #expect(generated.status == 0)
        #expect(generated.stdout.contains("    public var firstName_: String?\n"), "\(generated.stdout)")
        #expect(generated.stdout.contains(#"[\People.firstName: "first name", \People.firstName_: "firstName"]"#), "\(generated.stdout)")
    }
}
