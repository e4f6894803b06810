import Foundation
import PortalCoreData
import PortalEngine
import PortalSQLite
import Testing

/// A round trip of relationship writes through the real binary, on a copy of each store of
/// Tests/Fixtures/coredata: create an entity with to-one and to-many (many-to-many where the
/// store has any) relationships, update it, delete it. After each step the store is as Core
/// Data needs it (`expectConsistent`), and each link is checked in the raw tables by hand.
@Suite struct CoreDataRoundTripTests {
    let shell = try? CoreDataShellTests()

    func copy(_ name: String) throws -> String { try #require(shell).copy(name) }

    /// Runs the commands on the store by its model; they must succeed.
    func run(_ store: String, _ commands: [String], arguments: [String] = []) throws {
        let result = try Shell.run([store] + arguments + commands.flatMap { ["-e", $0] })
        #expect(result.status == 0, "\(commands): \(result.stderr)")
    }

    /// The first column of `sql`'s rows on the raw tables, as integers.
    func integers(_ store: String, _ sql: String) throws -> [Int64] {
        let raw = try Shell.run(["--raw", store, "--format", "tsv", "--no-header", "-e", "sql " + sql])
        #expect(raw.status == 0, "\(sql): \(raw.stderr)")
        return raw.stdout.split(separator: "\n").compactMap { Int64($0.split(separator: "\t").first ?? "") }
    }

    func integer(_ store: String, _ sql: String) throws -> Int64 { try #require(try integers(store, sql).first, "\(sql)") }

    /// `PRAGMA integrity_check` ok; every root entity's `Z_MAX` at or above its table's largest
    /// `Z_PK`; every row's `Z_ENT` an entity of its table's hierarchy; every key in a join table
    /// (`Z_<n>…`, the number naming the entity whose key the column holds) a row that exists.
    func expectConsistent(_ path: String, _ step: String) throws {
        let raw = try Store(path: path, options: StoreOptions(readOnly: true, create: false))
        defer { try? raw.close() }
        try raw.read { ctx in
            #expect(try ctx.query("PRAGMA integrity_check").rows.first?.value(at: 0) == "ok", "\(step)")
            let entities = try ctx.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY").rows.map(Entry.init)
            let tables = Set(try ctx.query("SELECT upper(name) FROM sqlite_schema WHERE type = 'table'").rows.compactMap { $0.value(at: 0).textValue })
            func root(_ number: Int64) -> Int64 {
                var current = number
                var steps = 0
                while let parent = entities.first(where: { $0.number == current })?.parent, parent != 0, steps < 100 {
                    current = parent
                    steps += 1
                }
                return current
            }
            func table(of number: Int64) -> String? {
                let name = "Z" + (entities.first { $0.number == root(number) }?.name.uppercased() ?? "")
                return tables.contains(name) ? name : nil
            }
            for entity in entities where entity.parent == 0 {
                guard let table = table(of: entity.number) else { continue }
                let members = entities.filter { root($0.number) == entity.number }.map { String($0.number) }.joined(separator: ",")
                let largest = try ctx.query("SELECT coalesce(max(Z_PK), 0) FROM \(table)").rows.first?.value(at: 0).wholeNumber ?? 0
                #expect(entity.max >= largest, "\(step): \(table) has Z_PK \(largest) above Z_MAX \(entity.max)")
                let strays = try ctx.query("SELECT count(*) FROM \(table) WHERE Z_ENT IS NULL OR Z_ENT NOT IN (\(members))")
                #expect(strays.rows.first?.value(at: 0) == 0, "\(step): rows of \(table) with a Z_ENT not of its entities")
            }
            for join in tables where join.hasPrefix("Z_") && join.dropFirst(2).first?.isNumber == true {
                for column in try ctx.query("SELECT upper(name) FROM pragma_table_info('\(join)')").rows.compactMap({ $0.value(at: 0).textValue })
                    where !column.hasPrefix("Z_FOK_") {
                    guard let number = Int64(column.dropFirst(2).prefix(while: \.isNumber)), let target = table(of: number) else { continue }
                    let dangling = try ctx.query("SELECT count(*) FROM \(join) WHERE \(column) NOT IN (SELECT Z_PK FROM \(target))")
                    #expect(dangling.rows.first?.value(at: 0) == 0, "\(step): \(join).\(column) names rows missing from \(target)")
                }
            }
        }
    }

    /// A row of `Z_PRIMARYKEY`.
    struct Entry {
        var number: Int64
        var name: String
        var parent: Int64
        var max: Int64

        init(_ row: Row) {
            number = row.value(at: 0).wholeNumber ?? 0
            name = row.value(at: 1).textValue ?? ""
            parent = row.value(at: 2).wholeNumber ?? 0
            max = row.value(at: 3).wholeNumber ?? 0
        }
    }

    @Test(arguments: [("NoteStore-macOS-12-Monterey.sqlite", "ZACCOUNT4"), ("NoteStore-macOS-13-Ventura.sqlite", "ZACCOUNT7"),
                      ("NoteStore-macOS-14-Sonoma.sqlite", "ZACCOUNT7"), ("NoteStore-macOS-15-Seqoia.sqlite", "ZACCOUNT7")])
    func notes_createUpdateDelete(store name: String, accountColumn: String) throws {
        let store = try copy(name)
        let t = "ZICCLOUDSYNCINGOBJECT"
        try expectConsistent(store, "the copy")
        let folders = try integers(store, "SELECT Z_PK FROM \(t) WHERE Z_ENT = 14 ORDER BY Z_PK")
        let account = try integer(store, "SELECT Z_PK FROM \(t) WHERE Z_ENT = 13 ORDER BY Z_PK")
        try #require(folders.count >= 2)
        try run(store, [#"create ICAttachment set title = "rt attachment""#])
        let attachment = try integer(store, "SELECT Z_PK FROM \(t) WHERE ZTITLE = 'rt attachment'")
        // A to-one (folder), another to-one to a sub-entity's rows (account), a to-many kept by its inverse (attachments).
        try run(store, [#"create ICNote set title = "rt note", folder = \#(folders[0]), account = \#(account), attachments = {\#(attachment)}"#])
        let note = try integer(store, "SELECT max(Z_PK) FROM \(t)")
        #expect(try integers(store, "SELECT Z_ENT, Z_OPT, ZFOLDER, \(accountColumn) FROM \(t) WHERE Z_PK = \(note) AND ZTITLE1 = 'rt note'")
                    == [11])
        #expect(try integers(store, "SELECT ZFOLDER FROM \(t) WHERE Z_PK = \(note)") == [folders[0]])
        #expect(try integers(store, "SELECT \(accountColumn) FROM \(t) WHERE Z_PK = \(note)") == [account])
        #expect(try integers(store, "SELECT ZNOTE FROM \(t) WHERE Z_PK = \(attachment)") == [note])
        #expect(try integer(store, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2") == note)
        try expectConsistent(store, "\(name) create")
        try run(store, [#"update ICNote set title = "rt note 2", folder = \#(folders[1]), attachments = {} where title == "rt note""#])
        #expect(try integers(store, "SELECT Z_OPT FROM \(t) WHERE Z_PK = \(note) AND ZTITLE1 = 'rt note 2' AND ZFOLDER = \(folders[1])") == [2])
        // The attachment changed twice after its insert (linked, then let go): Z_OPT 3.
        #expect(try integers(store, "SELECT count(*) FROM \(t) WHERE Z_PK = \(attachment) AND ZNOTE IS NULL AND Z_OPT = 3") == [1])
        try expectConsistent(store, "\(name) update")
        // ICNote.attachments cascades: an attachment of the note goes with it.
        try run(store, ["update ICNote set attachments = {\(attachment)} where title == \"rt note 2\"", "delete ICNote where title == \"rt note 2\""])
        #expect(try integers(store, "SELECT count(*) FROM \(t) WHERE Z_PK IN (\(note), \(attachment))") == [0])
        #expect(try integers(store, "SELECT count(*) FROM \(t) WHERE Z_PK = \(folders[1]) AND Z_ENT = 14") == [1])
        try expectConsistent(store, "\(name) delete")
    }

    @Test func photos_createUpdateDelete() throws {
        let store = try copy("Photos-macOS-10.15.sqlite")
        try expectConsistent(store, "the copy")
        let before = try integers(store, "SELECT (SELECT count(*) FROM Z_26ASSETS), (SELECT count(*) FROM Z_25ALBUMLISTS)")
        try run(store, [#"create Album set title = "rt album", parentFolder = 19, keyAsset = 2, assets = {3, 1}, albumLists = {4}"#])
        let album = try integer(store, "SELECT Z_PK FROM ZGENERICALBUM WHERE ZTITLE = 'rt album'")
        #expect(try integers(store, "SELECT Z_ENT FROM ZGENERICALBUM WHERE Z_PK = \(album) AND ZPARENTFOLDER = 19 AND ZKEYASSET = 2 "
                             + "AND Z34_KEYASSET = (SELECT Z_ENT FROM ZGENERICASSET WHERE Z_PK = 2) AND Z_OPT = 1") == [26])
        #expect(try integers(store, "SELECT Z_34ASSETS FROM Z_26ASSETS WHERE Z_26ALBUMS = \(album) ORDER BY Z_FOK_34ASSETS") == [3, 1])
        #expect(try integers(store, "SELECT Z_3ALBUMLISTS FROM Z_25ALBUMLISTS WHERE Z_25ALBUMS = \(album)") == [4])
        try expectConsistent(store, "Photos create")
        try run(store, [#"update Album set title = "rt album 2", parentFolder = 8, assets = {2} where title == "rt album""#])
        #expect(try integers(store, "SELECT Z_OPT FROM ZGENERICALBUM WHERE Z_PK = \(album) AND ZPARENTFOLDER = 8 AND ZTITLE = 'rt album 2'") == [2])
        #expect(try integers(store, "SELECT Z_34ASSETS FROM Z_26ASSETS WHERE Z_26ALBUMS = \(album)") == [2])
        try expectConsistent(store, "Photos update")
        try run(store, [#"delete Album where title == "rt album 2""#])
        #expect(try integers(store, "SELECT count(*) FROM ZGENERICALBUM WHERE Z_PK = \(album)") == [0])
        #expect(try integers(store, "SELECT (SELECT count(*) FROM Z_26ASSETS), (SELECT count(*) FROM Z_25ALBUMLISTS)") == before)
        try expectConsistent(store, "Photos delete")
    }

    @Test func badRelationshipValuesAreClearErrorsAndWriteNothing() throws {
        let store = try copy("NoteStore-macOS-12-Monterey.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let cases = [
            (#"create ICNote set title = "x", folder = "Notes""#, "a relationship's value is a row's id"),
            (#"update ICNote set folder = {4, 12} where TRUEPREDICATE"#, "ICNote.folder is a to-one relationship"),
            (#"create ICNote set title = "x", folder = 999999"#, "there is no ICFolder with id 999999"),
            (#"create ICNote set title = "x", folder = 3"#, "there is no ICFolder with id 3"),
            (#"create ICNote set folder = 4, folder = 12"#, "folder is set twice"),
            // A note belongs to one folder: given to every folder, it would end with the last.
            (#"update ICFolder set notes = {9} where TRUEPREDICATE"#, "each ICNote belongs to one ICFolder only"),
        ]
        for (command, message) in cases {
            let result = try Shell.run([store, "-e", command])
            #expect(result.status == 1 && result.stderr.contains(message), "\(command): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    /// A many-to-many that is its own inverse keeps each pair both ways round in its join table
    /// (`REFLEXIVE` beside the key column): written so, read so from either side, deleted from either column.
    @Test func builtStore_reflexiveManyToMany() throws {
        let shell = try #require(shell)
        let store = try shell.builtStore()
        let raw = try Store(path: store, options: { var o = StoreOptions(); o.switchesToWAL = false; return o }())
        try raw.write { ctx in
            try ctx.execute("CREATE TABLE Z_4FRIENDS (Z_4FRIENDS INTEGER, REFLEXIVE INTEGER, PRIMARY KEY (Z_4FRIENDS, REFLEXIVE))")
        }
        try raw.close()
        let xml = try String(contentsOfFile: CoreDataShellTests.xmlModel, encoding: .utf8).replacingOccurrences(
            of: #"<attribute name="birthday""#,
            with: #"<relationship name="friends" toMany="YES" deletionRule="Nullify" destinationEntity="UnrelatedEntity" "#
                + #"inverseName="friends" inverseEntity="UnrelatedEntity"/><attribute name="birthday""#)
        let model = shell.folder.appendingPathComponent("friends.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let m = ["--model", model.path]
        let pairs = "SELECT Z_4FRIENDS * 10 + REFLEXIVE FROM Z_4FRIENDS ORDER BY 1"
        try run(store, [#"update UnrelatedEntity set friends = {2} where name == "Ada""#], arguments: m)
        #expect(try integers(store, pairs) == [12, 21])
        try run(store, [#"create UnrelatedEntity set name = "Cy", friends = {1, 2}"#], arguments: m)
        #expect(try integers(store, pairs) == [12, 13, 21, 23, 31, 32])
        let counts = try Shell.run([store] + m + ["--format", "tsv", "--no-header", "-e", "find UnrelatedEntity select name, friends.@count"])
        #expect(counts.stdout == "Ada\t2\nBo\t2\nCy\t2\n", "\(counts.stderr)")
        try run(store, [#"delete UnrelatedEntity where name == "Cy""#], arguments: m)
        #expect(try integers(store, pairs) == [12, 21])
        try expectConsistent(store, "reflexive")
    }

    /// A store built from the Xcode model, its relationship's delete rule changed: Deny refuses
    /// while there are rows to reach (the file unchanged), Cascade deletes them, Nullify clears them.
    @Test(arguments: ["Deny", "Cascade", "Nullify"])
    func builtStore_deleteRules(rule: String) throws {
        let shell = try #require(shell)
        let store = try shell.builtStore()
        var xml = try String(contentsOfFile: CoreDataShellTests.xmlModel, encoding: .utf8).replacingOccurrences(
            of: #"maxCount="9" deletionRule="Nullify""#, with: #"maxCount="9" deletionRule="\#(rule)""#)
        // With Deny, an OtherEntity's delete cascades to its mainEntity: allowed only when every
        // row the Deny reaches goes in the same delete.
        if rule == "Deny" {
            xml = xml.replacingOccurrences(of: #"maxCount="1" deletionRule="Nullify""#, with: #"maxCount="1" deletionRule="Cascade""#)
        }
        let model = shell.folder.appendingPathComponent("\(rule).xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        // alpha (1) has OtherEntity 1 and 2; gamma (3) has none.
        let result = try Shell.run([store, "--model", model.path, "-e", "delete Entity where stringAttribute == 'alpha'"])
        switch rule {
        case "Deny":
            #expect(result.status == 1 && result.stderr.contains("Entity.otherEntities has the delete rule Deny"), "\(result.stderr)")
            #expect(result.stderr.contains("nothing was written"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
            let gamma = try Shell.run([store, "--model", model.path, "-e", "delete Entity where stringAttribute == 'gamma'"])
            #expect(gamma.status == 0 && (gamma.stdout + gamma.stderr).contains("deleted 1 Entity"), "\(gamma.stderr)")
            // OtherEntity 1 cascades to alpha, whose Deny still reaches OtherEntity 2: refused.
            let one = try Shell.run([store, "--model", model.path, "-e", "delete OtherEntity where SELF == 1"])
            #expect(one.status == 1 && one.stderr.contains("the Entity 1 still has 1 OtherEntity"), "\(one.stderr)")
            // OtherEntity 3 cascades to beta, whose Deny reaches only OtherEntity 3 itself.
            try run(store, ["delete OtherEntity where SELF == 3"], arguments: ["--model", model.path])
            #expect(try integers(store, "SELECT Z_PK FROM ZABSTRACTENTITY ORDER BY Z_PK") == [1])
            #expect(try integers(store, "SELECT Z_PK FROM ZOTHERENTITY ORDER BY Z_PK") == [1, 2, 4])
        case "Cascade":
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try integers(store, "SELECT Z_PK FROM ZOTHERENTITY ORDER BY Z_PK") == [3, 4])
        default:
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try integers(store, "SELECT Z_PK FROM ZOTHERENTITY WHERE ZMAINENTITY IS NULL AND Z_OPT = 2 ORDER BY Z_PK") == [1, 2])
        }
        try expectConsistent(store, rule)
    }
}

extension Value {
    /// The integer, nil for any other value.
    fileprivate var wholeNumber: Int64? { if case .integer(let n) = self { n } else { nil } }
}
