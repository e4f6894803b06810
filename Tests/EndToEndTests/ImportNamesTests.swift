import Foundation
import Testing

/// What an import file names: each attribute once, after a byte order mark or not, in every
/// format; and what is opened as a database must be a file.
@Suite struct ImportNamesTests {
    let folder: URL
    let db: String

    init() throws {
        (folder, db) = try Shell.chinookCopy()
    }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func genres() throws -> String {
        try Spawn.run("/usr/bin/sqlite3", [db, "SELECT count(*) FROM Genre"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [
        ("twice.csv", "GenreId,Name,Name\n900,first,second\n", "line 1: 'Name' is given twice"),
        ("twice.tsv", "GenreId\tname\tNAME\n900\tfirst\tsecond\n", "line 1: 'name' and 'NAME' both name the attribute Name"),
        ("twice.json", "[{\"GenreId\": 900, \"Name\": \"first\"},\n {\"GenreId\": 901, \"Name\": \"a\", \"Name\": \"b\"}]\n",
         "line 2: 'Name' is given twice"),
        ("twice.ndjson", "{\"GenreId\": 900, \"Name\": \"first\", \"name\": \"second\"}\n",
         "line 1: 'Name' and 'name' both name the attribute Name"),
    ])
    func anAttributeNamedTwiceIsRefusedAndNothingIsImported(name: String, text: String, message: String) throws {
        let path = try file(name, Array(text.utf8))
        let r = try Shell.run([db, "-e", "import Genre from \(path)"])
        #expect(r.stderr == "error: \(path), \(message); nothing was imported\n")
        #expect(r.status == 1)
        #expect(try genres() == "25")
    }

    @Test(arguments: ["bom.ndjson", "bom.json", "bom.csv"])
    func aByteOrderMarkIsSkippedInEveryFormat(name: String) throws {
        let text = switch name {
        case "bom.ndjson": "{\"GenreId\": 900, \"Name\": \"marked\"}\n"
        case "bom.json": "[{\"GenreId\": 900, \"Name\": \"marked\"}]\n"
        default: "GenreId,Name\n900,marked\n"
        }
        let path = try file(name, [0xEF, 0xBB, 0xBF] + Array(text.utf8))
        let r = try Shell.run([db, "-e", "import Genre from \(path)", "-e", "count Genre where Name == \"marked\""])
        #expect(r.stderr == "imported 1 Genre\n")
        #expect(r.stdout == "1\n")
        #expect(r.status == 0)
    }

    @Test func aDeviceIsNoDatabase() throws {
        let r = try Shell.run(["/dev/zero", "-e", "entities"])
        #expect(r.stderr == "error: cannot open '/dev/zero': it is a character device, not a database file\n")
        #expect(r.stdout == "")
        #expect(r.status == 3)
    }
}
