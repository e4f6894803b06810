import DifferentialSupport
import Foundation
import Testing

/// What a csv or tsv import stores for each field, checked with sqlite3's `quote` and `typeof`:
/// text as written (quotes, `""`, lines and CRLF inside quotes, a field longer than a read,
/// text that is not UTF-8), numbers converted by the column's affinity as sqlite3 `.import`
/// converts them, and the empty fields of a file that tells NULL from empty text only after them.
@Suite struct ImportFieldsTests {
    let folder: URL
    let db: String

    init() throws {
        (folder, _) = try Shell.chinookCopy()
        db = folder.appendingPathComponent("fields.sqlite").path
        _ = try Spawn.run("/usr/bin/sqlite3", [db, "CREATE TABLE T (id INTEGER PRIMARY KEY, t TEXT, r REAL, n NUMERIC)"])
    }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every row as sqlite3 shows it: each value quoted, with its type.
    func stored() throws -> String {
        try Spawn.run("/usr/bin/sqlite3", [db, "SELECT id, quote(t), typeof(t), quote(r), typeof(r), quote(n), typeof(n) FROM T ORDER BY id"])
    }

    @Test func fieldsAreStoredAsWrittenAndNumbersByAffinity() throws {
        let long = String(repeating: "long, \"\"quoted\"\" text ", count: 70_000)
        var bytes = Array("\u{FEFF}id,t,r,n\r\n".utf8)
        bytes += Array("1,\"a, \"\"b\"\"\r\nc\",1.50,007\r\n".utf8)
        bytes += Array("2,1.50,\" 2.5 \",1e3\n".utf8)
        bytes += Array("3,\"\(long)\",-0,12345678901234567\n".utf8)
        bytes += Array("4,".utf8) + [0x5A, 0xFC, 0x72, 0x69, 0x63, 0x68] + Array(",x,9223372036854775807\n".utf8)
        bytes += Array("5,Zürich,Inf,-Inf".utf8)
        let path = try file("fields.csv", bytes)
        let r = try Shell.run([db, "-e", "import T from \(path)"])
        #expect(r.stderr == "imported 5 T\n")
        #expect(r.status == 0)
        let unquoted = long.replacingOccurrences(of: "\"\"", with: "\"")
        #expect(try stored() == """
            1|'a, "b"\r\nc'|text|1.5|real|7|integer
            2|'1.50'|text|2.5|real|1000|integer
            3|'\(unquoted)'|text|0.0|real|12345678901234567|integer
            4|'Z�rich'|text|'x'|text|9223372036854775807|integer
            5|'Zürich'|text|Inf|real|-Inf|real

            """)
    }

    /// A `""` after an empty field of a TEXT column: the file tells NULL from empty text, so
    /// that empty field is NULL, as it is when the `""` comes first; read from a file, from a
    /// pipe, and inside a transaction (which the import's second reading leaves open).
    @Test func aMarkAfterAnEmptyFieldMakesItNull() throws {
        let text = "id,t,r,n\n1,,,\n2,\"\",1,\n3,x,,\n"
        let expected = """
            1|NULL|null|NULL|null|NULL|null
            2|''|text|1.0|real|NULL|null
            3|'x'|text|NULL|null|NULL|null

            """
        let path = try file("late.csv", Array(text.utf8))
        let r = try Shell.run([db, "-e", "import T from \(path)"])
        #expect(r.stderr == "imported 3 T\n")
        #expect(try stored() == expected)

        _ = try Spawn.run("/usr/bin/sqlite3", [db, "DELETE FROM T"])
        let piped = try Shell.run([db, "-e", "import T from /dev/stdin"], input: text)
        #expect(piped.stderr == "imported 3 T\n")
        #expect(try stored() == expected)

        _ = try Spawn.run("/usr/bin/sqlite3", [db, "DELETE FROM T"])
        let inTransaction = try Shell.run([db, "-e", "begin", "-e", "create T set id = 9, t = \"kept\"", "-e", "import T from \(path)",
                                           "-e", "count T", "-e", "commit"])
        #expect(inTransaction.stdout.hasSuffix("4\n"))
        #expect(inTransaction.status == 0)
        #expect(try stored() == expected + "9|'kept'|text|NULL|null|NULL|null\n")
    }
}
