import Foundation
import Testing

/// `generate swift` output for every Chinook entity type-checks against the built PortalEngine
/// module (swiftc -typecheck: no linking needed, so it is quick).
@Suite struct GenerateSwiftTests {
    @Test func chinookEntitiesCompileAgainstTheEngine() throws {
        let generated = try Shell.run([Shell.chinook, "-r", "-e", "generate swift"])
        #expect(generated.status == 0)
        #expect(generated.stdout.contains("public struct InvoiceLine: PortalEntity"))
        #expect(generated.stdout.contains("extension InvoiceLine: RowDecodable, RowEncodable {"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("Entities.swift")
        // A use of the typed portal's requirements, so the conformance is really checked.
        try (generated.stdout + "\nlet names = [Track.entityName, Track.idAttribute, PlaylistTrack.entityName]\n")
            .write(to: source, atomically: true, encoding: .utf8)
        let checked = try Self.typecheck(source.path)
        #expect(checked.status == 0, "swiftc: \(checked.output)")
    }

    /// The generated relationships are what a Foundation `#Predicate` names, through to-one and
    /// to-many relationships (a self-referencing one included), and Chinook answers through them
    /// what the NSPredicate text says.
    @Test func generatedRelationshipsServePredicates() throws {
        let generated = try Shell.run([Shell.chinook, "-r", "-e", "generate swift"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try generated.stdout.write(to: folder.appendingPathComponent("Entities.swift"), atomically: true, encoding: .utf8)
        try """
            import Foundation
            import PortalSQLite
            let store = try Store(path: CommandLine.arguments[1], options: StoreOptions(readOnly: true))
            let a = try Portal<Track>(store).count(where: #Predicate { $0.milliseconds > 300_000 && $0.album?.title.starts(with: "A") == true })
            let b = try Portal<Album>(store).count(where: #Predicate { $0.tracks.contains { $0.milliseconds > 1_000_000 } })
            let c = try Portal<Employee>(store).findAll(where: #Predicate { $0.reportsToRef?.firstName == "Andrew" },
                                                        sortedBy: [SortDescriptor(\\.lastName)]).map(\\.lastName)
            print(a, b, c.joined(separator: ","))
            """.write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        let program = folder.appendingPathComponent("chinook").path
        let compiled = try Self.compile([folder.appendingPathComponent("main.swift").path,
                                         folder.appendingPathComponent("Entities.swift").path], into: program)
        #expect(compiled.status == 0, "swiftc: \(compiled.output)")
        guard compiled.status == 0 else { return }
        let ran = try Self.run(program, [Shell.chinook])
        let text = try Shell.run(["-r", Shell.chinook, "-e", #"count Track where Milliseconds > 300000 AND Album.Title BEGINSWITH "A"; "#
                                  + "count Album where ANY tracks.Milliseconds > 1000000; "
                                  + #"find Employee select LastName where ReportsToRef.FirstName == "Andrew" sort by LastName"#])
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(text.stdout)\(text.stderr)")
        guard lines.count == 5 else { return }
        #expect(ran.output == "\(lines[0]) \(lines[1]) \(lines[3]),\(lines[4])\n", "\(ran.output)")
    }

    /// The flags that find the built engine's modules and its C modules' maps.
    static var moduleFlags: [String] {
        let build = URL(fileURLWithPath: Shell.binary).deletingLastPathComponent()
        return ["-I", build.appendingPathComponent("Modules").path,
                "-Xcc", "-fmodule-map-file=\(Shell.repository.appendingPathComponent("Sources/CSQLite/module.modulemap").path)",
                "-Xcc", "-fmodule-map-file=\(Shell.repository.appendingPathComponent("Sources/CZlib/module.modulemap").path)"]
    }

    /// `swiftc -typecheck` of one file against the built engine.
    static func typecheck(_ source: String) throws -> (status: Int32, output: String) {
        try run("/usr/bin/env", ["swiftc", "-typecheck", source] + moduleFlags)
    }

    /// Compiles `sources` with the built engine's objects into the program `program`.
    static func compile(_ sources: [String], into program: String) throws -> (status: Int32, output: String) {
        let build = URL(fileURLWithPath: Shell.binary).deletingLastPathComponent()
        // The objects of the modules' current sources (the build folder may still hold objects
        // of files since moved or removed), as listed in each module's `sources` file.
        let objects = try ["PortalEngine.build", "PortalSQLite.build", "PortalCoreData.build", "PortalPredicate.build"].flatMap { module in
            let folder = build.appendingPathComponent(module)
            let sources = try String(contentsOf: folder.appendingPathComponent("sources"), encoding: .utf8)
            return sources.split(separator: "\n").map { source in
                folder.appendingPathComponent(URL(fileURLWithPath: String(source)).lastPathComponent + ".o").path
            }
        }
        return try run("/usr/bin/env", ["swiftc", "-o", program] + sources + moduleFlags + ["-lsqlite3", "-lz"] + objects)
    }

    /// For a database holding each table shape (plain, generated columns,
    /// an untyped column, a composite key, no key, WITHOUT ROWID), the generated types compile
    /// and link against the built engine, and a program runs create / findAll / update /
    /// upsert / deleteAll on each, through the generated `RowDecodable` and
    /// `RowEncodable` conformances, which the program checks are there with the right columns,
    /// and a raw SQL fetch reads every kind of generated property through them.
    @Test func everyTableShapeCompilesAndRuns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("shapes.sqlite").path
        let made = try Shell.run([database, "--create", "-e", Self.shapes])
        #expect(made.status == 0, "\(made.stderr)")
        let generated = try Shell.run([database, "-e", "generate swift"])
        #expect(generated.status == 0)
        try generated.stdout.write(to: folder.appendingPathComponent("Entities.swift"), atomically: true, encoding: .utf8)
        try Self.runner.write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        let program = folder.appendingPathComponent("shapes").path
        let compiled = try Self.compile([folder.appendingPathComponent("main.swift").path,
                                         folder.appendingPathComponent("Entities.swift").path], into: program)
        #expect(compiled.status == 0, "swiftc: \(compiled.output)")
        guard compiled.status == 0 else { return }
        let ran = try Self.run(program, [database])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.output == "plain ok\ngen ok\nuntyped ok\npair ok\nloose ok\nkeyed ok\nkinds ok\n")
    }

    static let shapes = """
        sql CREATE TABLE plain (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL); \
        sql CREATE TABLE gen (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER NOT NULL, \
        total INTEGER GENERATED ALWAYS AS (a + b) STORED, twice INTEGER AS (a * 2)); \
        sql CREATE TABLE untyped (id INTEGER PRIMARY KEY, anything); \
        sql CREATE TABLE pair (a INTEGER NOT NULL, b TEXT NOT NULL, note TEXT, PRIMARY KEY (a, b)); \
        sql CREATE TABLE loose (x INTEGER, y TEXT); \
        sql CREATE TABLE keyed (k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID; \
        sql INSERT INTO untyped VALUES (1, 3), (2, 'x'), (3, 1.5); \
        sql CREATE TABLE kinds (id INTEGER PRIMARY KEY, i INTEGER NOT NULL, r REAL NOT NULL, t TEXT NOT NULL, \
        b BLOB NOT NULL, f BOOLEAN NOT NULL, d DATETIME, u, oi INTEGER, orr REAL, ot TEXT, ob BLOB, obool BOOLEAN)
        """

    /// Runs a program; its standard output and error together.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// The program that uses the generated types (compiled with them into one executable).
    static let runner = #"""
import PortalEngine
import PortalSQLite

/// Runs create / findAll / update / upsert / deleteAll on each generated type; prints one line each.
func check(_ condition: Bool, _ what: String) throws {
    struct Failure: Error, CustomStringConvertible { var description: String }
    if !condition { throw Failure(description: "failed: \(what)") }
}

let store = try Store(path: CommandLine.arguments[1])

// The conformances written beside each struct: reads and writes below go through them.
let coded: [any (RowDecodable & RowEncodable).Type] = [Plain.self, Gen.self, Untyped.self, Pair.self, Loose.self, Keyed.self,
                                                      Kinds.self]
try check(coded.count == 7, "conformances")
try check(Plain.decodedColumns == ["id", "name", "score"] && Plain.encodedColumns == Plain.decodedColumns, "plain columns")
try check(Gen.decodedColumns == ["id", "a", "b", "total", "twice"] && Gen.encodedColumns == ["id", "a", "b"], "gen columns")
try check(Loose.decodedColumns == ["rowid", "x", "y"], "loose columns")

let plain = Portal<Plain>(store)
try plain.create([Plain(id: 1, name: "a", score: 1.5)])
var plains = try plain.findAll()
plains[0].name = "b"
try check(try plain.update(plains) == 1, "plain update")
try plain.upsert([Plain(id: 1, name: "c", score: nil), Plain(id: 2, name: "d", score: 2)])
try check(try plain.findAll(sortedBy: [SortKey("id")]).map(\.name) == ["c", "d"], "plain upsert")
try check(try plain.deleteAll() == 2, "plain deleteAll")
print("plain ok")

let gen = Portal<Gen>(store)
try gen.create([Gen(id: 1, a: 2, b: 3, total: nil, twice: nil)])
var gens = try gen.findAll()
try check(gens[0].total == 5 && gens[0].twice == 4, "gen read")
gens[0].a = 10
try check(try gen.update(gens) == 1, "gen update")
try gen.upsert([Gen(id: 1, a: 1, b: 1, total: nil, twice: nil), Gen(id: 2, a: 5, b: 5, total: 99, twice: 99)])
try check(try gen.findAll(sortedBy: [SortKey("id")]).map(\.total) == [2, 10], "gen upsert")
try check(try gen.deleteAll() == 2, "gen deleteAll")
print("gen ok")

let untyped = Portal<Untyped>(store)
try check(try untyped.findAll(sortedBy: [SortKey("id")]).map(\.anything) == [.integer(3), .text("x"), .real(1.5)], "untyped read")
try untyped.create([Untyped(id: 4, anything: .blob([1, 2]))])
var untypeds = try untyped.findAll(where: "id == 4")
untypeds[0].anything = .text("y")
try check(try untyped.update(untypeds) == 1, "untyped update")
try untyped.upsert([Untyped(id: 4, anything: .integer(7))])
try check(try untyped.findFirst(where: "id == 4")?.anything == .integer(7), "untyped upsert")
try check(try untyped.deleteAll() == 4, "untyped deleteAll")
print("untyped ok")

let pair = Portal<Pair>(store)
try pair.create([Pair(a: 1, b: "x", note: "one"), Pair(a: 1, b: "y", note: "two")])
var pairs = try pair.findAll(where: "b == 'y'")
pairs[0].note = "changed"
try check(try pair.update(pairs) == 1, "pair update")
try check(try pair.findAll(sortedBy: [SortKey("b")]).map(\.note) == ["one", "changed"], "pair update only one")
try pair.upsert([Pair(a: 1, b: "x", note: "up"), Pair(a: 2, b: "x", note: "new")])
try check(try pair.count() == 3, "pair upsert")
try check(try pair.findFirst(where: "a == 1 AND b == 'x'")?.note == "up", "pair upsert value")
try check(try pair.deleteAll() == 3, "pair deleteAll")
print("pair ok")

let loose = Portal<Loose>(store)
try loose.create([Loose(rowid: nil, x: 1, y: "a"), Loose(rowid: nil, x: 2, y: "b")])
var looses = try loose.findAll(sortedBy: [SortKey("x")])
try check(looses.allSatisfy { $0.rowid != nil }, "loose rowid read")
looses[0].y = "changed"
try check(try loose.update([looses[0]]) == 1, "loose update")
looses[1].y = "upserted"
try loose.upsert([looses[1], Loose(rowid: nil, x: 3, y: "c")])
try check(try loose.findAll(sortedBy: [SortKey("x")]).map(\.y) == ["changed", "upserted", "c"], "loose upsert")
try check(try loose.deleteAll() == 3, "loose deleteAll")
print("loose ok")

let keyed = Portal<Keyed>(store)
try keyed.create([Keyed(k: "a", v: 1)])
var keyeds = try keyed.findAll()
keyeds[0].v = 2
try check(try keyed.update(keyeds) == 1, "keyed update")
try keyed.upsert([Keyed(k: "a", v: 3), Keyed(k: "b", v: 4)])
try check(try keyed.findAll(sortedBy: [SortKey("k")]).map(\.v) == [3, 4], "keyed upsert")
try check(try keyed.deleteAll() == 2, "keyed deleteAll")
print("keyed ok")

// Every kind of generated property, written and read back through the conformances.
let kinds = Portal<Kinds>(store)
let full = Kinds(id: 1, i: -5, r: 2.5, t: "été", b: [0, 255], f: true, d: "2024-03-01 12:00:00", u: .real(0.5),
                 oi: 7, orr: -1.25, ot: "x", ob: [1], obool: false)
let empty = Kinds(id: 2, i: 0, r: 0, t: "", b: [], f: false, d: nil, u: nil, oi: nil, orr: nil, ot: nil, ob: nil, obool: nil)
try kinds.create([full, empty])
try check(try kinds.findAll(sortedBy: [SortKey("id")]) == [full, empty], "kinds round trip")
try check(try store.read { ctx in try ctx.fetch(Kinds.self, sql: "SELECT * FROM kinds ORDER BY id DESC") } == [empty, full],
          "kinds raw SQL")
try check(try store.read { ctx in try ctx.query("SELECT typeof(b), typeof(f), typeof(u) FROM kinds WHERE id = 1") }.rows[0].values
          == [.text("blob"), .text("integer"), .text("real")], "kinds stored types")
print("kinds ok")
"""#
}
