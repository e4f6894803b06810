import Foundation
import PortalCoreData
import Testing

/// `generate swift` on Core Data stores types attributes by the model (dates `Date`, UUIDs
/// `UUID`, booleans `Bool`), proved end to end: the structs generated for a Notes entity, a
/// Photos entity and a UUID attribute compile with a program that fetches through `Portal<T>`
/// and creates and updates a row on copies; what it prints and writes is compared with SQL
/// written by hand against the raw tables.
@Suite struct CoreDataGenerateSwiftTests {
    let shell = try? CoreDataShellTests()

    /// `sql` on the raw tables, as tab-separated lines.
    func raw(_ store: String, _ sql: String) throws -> String {
        let run = try Shell.run(["--raw", store, "--format", "tsv", "--no-header", "-e", "sql " + sql])
        #expect(run.status == 0, "\(sql): \(run.stderr)")
        return run.stdout
    }

    /// The generated source of `entities` on `store`.
    func generated(_ store: String, _ entities: String, _ arguments: [String] = []) throws -> String {
        let run = try Shell.run([store] + arguments + ["-e", "generate swift " + entities])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test func datesUUIDsAndBooleansByTheModelThroughPortal() throws {
        let shell = try #require(shell)
        let notes = try shell.copy("NoteStore-macOS-14-Sonoma.sqlite")
        let photos = try shell.copy("Photos-macOS-10.15.sqlite")
        let uuid = UUID()
        let (built, model) = try shell.uuidStore(uuid)
        let note = try generated(notes, "ICNote")
        #expect(note.hasPrefix("import Foundation\nimport PortalEngine\n"))
        for declaration in ["public var rowid: Int64?", "public var creationDate: Date?", "public var isPinned: Bool?",
                            "public var markedForDeletion: Bool?", "public var lastViewedTimestampData: Value?", "public var title: String?"] {
            #expect(note.contains(declaration), "\(declaration)")
        }
        let album = try generated(photos, "Album Asset")
        #expect(album.contains("public var creationDate: Date?") && album.contains("public var favorite: Bool?"))
        let token = try generated(built, "UnrelatedEntity", ["--model", model])
        #expect(token.contains("public var token: UUID?") && token.contains("public var birthday: Date?"))
        let sources = try [("Note.swift", note), ("Photos.swift", album), ("Token.swift", token), ("main.swift", Self.program)]
            .map { name, text in
                let url = shell.folder.appendingPathComponent(name)
                try text.write(to: url, atomically: true, encoding: .utf8)
                return url.path
            }
        let program = shell.folder.appendingPathComponent("typed").path
        let compiled = try GenerateSwiftTests.compile(sources, into: program)
        #expect(compiled.status == 0, "swiftc: \(compiled.output.prefix(3000))")
        guard compiled.status == 0 else { return }
        let t = "ZICCLOUDSYNCINGOBJECT"
        // What the program prints before it writes, by hand from the raw tables.
        let expected = try raw(notes, "SELECT 'note', Z_PK, coalesce(datetime(ZCREATIONDATE3 + 978307200, 'unixepoch'), ''), "
                               + "coalesce(ZISPINNED, ''), coalesce(ZMARKEDFORDELETION, '') FROM \(t) WHERE Z_ENT = 11 ORDER BY Z_PK")
            + "created note true 1\n"
            + raw(photos, "SELECT 'asset', Z_PK, coalesce(datetime(ZDATECREATED + 978307200, 'unixepoch'), ''), coalesce(ZFAVORITE, ''), "
                  + "coalesce(ZHIDDEN, '') FROM ZGENERICASSET WHERE Z_ENT = 35 ORDER BY Z_PK")
            + "created album true 1\n"
            + raw(built, "SELECT 'token', ZNAME, coalesce(hex(ZTOKEN), '') FROM ZUNRELATEDENTITY ORDER BY Z_PK")
            + "created token true\ndeleted true\n"
        #expect(expected.contains("\t1\t") && expected.contains(uuid.uuidString.replacingOccurrences(of: "-", with: "")))
        let oldest = "FROM \(t) WHERE Z_ENT = 11 AND ZTITLE1 IS NOT 'typed note' ORDER BY ZCREATIONDATE3 LIMIT 1"
        let datesBefore = try raw(notes, "SELECT Z_PK, printf('%.6f|%.6f', ZCREATIONDATE3, ZMODIFICATIONDATE1), Z_OPT + 1 \(oldest)")
        #expect(datesBefore.contains(".") && !datesBefore.contains(".000000|"), "the fixture's dates have fractions: \(datesBefore)")
        let ran = try GenerateSwiftTests.run(program, [notes, photos, built, model])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.output == expected, "\(ran.output)")
        // The rows it created and updated, read by hand: Core Data's bookkeeping and stored forms.
        #expect(try raw(notes, "SELECT Z_ENT, Z_OPT, ZCREATIONDATE3, ZISPINNED FROM \(t) WHERE ZTITLE1 = 'typed note'") == "11\t2\t700000100\t0\n")
        // Saved twice, changed once: Z_OPT up by one, the dates untouched.
        #expect(try raw(notes, "SELECT Z_PK, printf('%.6f|%.6f', ZCREATIONDATE3, ZMODIFICATIONDATE1), Z_OPT \(oldest)") == datesBefore)
        #expect(try raw(notes, "SELECT ZISPINNED \(oldest)") == "1\n")
        #expect(try raw(photos, "SELECT Z_ENT, Z_OPT, ZCREATIONDATE, ZISPINNED FROM ZGENERICALBUM WHERE ZTITLE = 'typed album'")
                    == "26\t2\t700000100\t0\n")
        #expect(try raw(built, "SELECT Z_ENT, Z_OPT, hex(ZTOKEN) FROM ZUNRELATEDENTITY WHERE ZNAME = 'Cy'")
                    == "4\t2\tE621E1F8C36C495A93FC0C247A3E6E5F\n")
        #expect(try raw(built, "SELECT count(*) FROM ZUNRELATEDENTITY WHERE ZNAME = 'Gone'") == "0\n")
        #expect(try raw(built, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 4") == "4\n")
        let roundTrip = CoreDataRoundTripTests()
        for store in [notes, photos, built] { try roundTrip.expectConsistent(store, "typed writes") }
    }

    /// Fetches through `Portal<T>` and prints what it read; creates a row of each type, reads it
    /// back, updates it.
    static let program = #"""
import Foundation
import PortalCoreData
import PortalEngine
import PortalSQLite

struct Failure: Error { var message: String }

func opened(_ path: String, model: String? = nil) throws -> Store {
    var options = StoreOptions()
    options.catalog = CoreDataStoreCatalog(modelPath: model)
    return try Store(path: path, options: options)
}

/// UTC date text to the second, as SQLite's datetime() writes it.
func text(_ date: Date?) -> String {
    guard let date else { return "" }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
}

func flag(_ value: Bool?) -> String { value.map { $0 ? "1" : "0" } ?? "" }

let arguments = CommandLine.arguments
let created = Date(timeIntervalSinceReferenceDate: 700000000.25)
let changed = Date(timeIntervalSinceReferenceDate: 700000100)

let notes = try opened(arguments[1])
for note in try Portal<ICNote>(notes).findAll(sortedBy: [SortKey("creationDate")]).sorted(by: { ($0.rowid ?? 0) < ($1.rowid ?? 0) }) {
    print("note\t\(note.rowid ?? 0)\t\(text(note.creationDate))\t\(flag(note.isPinned))\t\(flag(note.markedForDeletion))")
}
var newNote = ICNote()
newNote.title = "typed note"
newNote.creationDate = created
newNote.isPinned = true
try Portal<ICNote>(notes).create([newNote])
guard var note = try Portal<ICNote>(notes).findFirst(where: "title == 'typed note'") else { throw Failure(message: "no note") }
print("created note \(note.creationDate == created) \(flag(note.isPinned))")
note.isPinned = false
note.creationDate = changed
try Portal<ICNote>(notes).update([note])
// An existing note pinned: only isPinned is written (its dates keep their microseconds).
guard var oldest = try Portal<ICNote>(notes).findFirst(where: "title != 'typed note'", sortedBy: [SortKey("creationDate")]) else { throw Failure(message: "no notes") }
oldest.isPinned = true
try Portal<ICNote>(notes).update([oldest, oldest])
try notes.close()

let photos = try opened(arguments[2])
for asset in try Portal<Asset>(photos).findAll().sorted(by: { ($0.rowid ?? 0) < ($1.rowid ?? 0) }) {
    print("asset\t\(asset.rowid ?? 0)\t\(text(asset.dateCreated))\t\(flag(asset.favorite))\t\(flag(asset.hidden))")
}
var newAlbum = Album()
newAlbum.title = "typed album"
newAlbum.creationDate = created
newAlbum.isPinned = true
try Portal<Album>(photos).create([newAlbum])
guard var album = try Portal<Album>(photos).findFirst(where: "title == 'typed album'") else { throw Failure(message: "no album") }
print("created album \(album.creationDate == created) \(flag(album.isPinned))")
album.isPinned = false
album.creationDate = changed
try Portal<Album>(photos).update([album])
try photos.close()

let built = try opened(arguments[3], model: arguments[4])
for entity in try Portal<UnrelatedEntity>(built).findAll().sorted(by: { ($0.rowid ?? 0) < ($1.rowid ?? 0) }) {
    print("token\t\(entity.name ?? "")\t\(entity.token.map { $0.uuidString.replacingOccurrences(of: "-", with: "") } ?? "")")
}
guard let token = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") else { throw Failure(message: "no UUID") }
var newEntity = UnrelatedEntity()
newEntity.name = "Cy"
newEntity.token = UUID()
try Portal<UnrelatedEntity>(built).create([newEntity])
guard var entity = try Portal<UnrelatedEntity>(built).findFirst(where: "name == 'Cy'") else { throw Failure(message: "no Cy") }
print("created token \(entity.token == newEntity.token)")
entity.token = token
try Portal<UnrelatedEntity>(built).update([entity])
// Inserted in a write (read back with its rowid), then deleted by it.
var gone = UnrelatedEntity()
gone.name = "Gone"
let deleted = try built.write { ctx in try ctx.delete(try ctx.insert(gone)) }
print("deleted \(deleted)")
try built.close()
"""#
}
