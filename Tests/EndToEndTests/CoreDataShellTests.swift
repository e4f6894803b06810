import Foundation
import PortalCoreData
import PortalEngine
import PortalSQLite
import Testing

/// Through the real binary: Core Data stores opened by their model's names, each count
/// compared with SQL written by hand against the raw tables (`--raw`, `sql`).
@Suite struct CoreDataShellTests {
    static let fixtures = Shell.repository.appendingPathComponent("Tests/Fixtures/coredata")
    static let xmlModel = fixtures.appendingPathComponent("momcTests 2.xcdatamodel-contents.xml").path

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("portal-shell-coredata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A writable copy of a fixture store.
    func copy(_ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name).path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return path
    }

    func output(_ arguments: [String], format: String = "tsv") throws -> String {
        let run = try Shell.run(arguments + ["--format", format, "--no-header"])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return run.stdout
    }

    /// `count` by the model against `sql` on the raw tables: equal, and not zero.
    func expectSameCount(_ store: String, _ command: String, _ sql: String, model: [String] = []) throws {
        let mapped = try output([store, "-e", command] + model)
        let raw = try output(["--raw", store, "-e", "sql " + sql])
        #expect(mapped == raw, "\(command) vs \(sql)")
        #expect(raw != "0\n" && !raw.isEmpty, "\(sql) must count something to show anything")
    }

    /// The Notes stores, oldest macOS first (Tests/Fixtures/coredata).
    static let notesStores = ["NoteStore-macOS-12-Monterey.sqlite", "NoteStore-macOS-13-Ventura.sqlite",
                              "NoteStore-macOS-14-Sonoma.sqlite", "NoteStore-macOS-15-Seqoia.sqlite"]

    @Test(arguments: notesStores)
    func notes_entitiesAndCountsByModelNames(name: String) throws {
        let store = try copy(name)
        let t = "ZICCLOUDSYNCINGOBJECT"
        let entities = try output([store, "-e", "entities"]).split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(entities.map { String($0[0]) }.contains("ICNote"))
        let notes = try output(["--raw", store, "-e", "sql SELECT count(*) FROM \(t) WHERE Z_ENT = 11"])
        #expect(entities.first { $0[0] == "ICNote" }.map { String($0[2]) + "\n" } == notes)
        try expectSameCount(store, "count ICNoteContainer", "SELECT count(*) FROM \(t) WHERE Z_ENT IN (12, 13, 14)")
        try expectSameCount(store, #"count ICNote where folder.parent.parent.title == "Folder2""#,
                            "SELECT count(*) FROM \(t) n JOIN \(t) f ON f.Z_PK = n.ZFOLDER JOIN \(t) p ON p.Z_PK = f.ZPARENT "
                                + "JOIN \(t) g ON g.Z_PK = p.ZPARENT WHERE n.Z_ENT = 11 AND g.ZTITLE2 = 'Folder2'")
        try expectSameCount(store, #"count ICFolder where ANY notes.title CONTAINS[c] "FOLDER""#,
                            "SELECT count(*) FROM \(t) f WHERE f.Z_ENT = 14 AND EXISTS (SELECT 1 FROM \(t) n "
                                + "WHERE n.Z_ENT = 11 AND n.ZFOLDER = f.Z_PK AND n.ZTITLE1 LIKE '%folder%')")
        try expectSameCount(store, #"count ICNote where creationDate >= CAST("2025-07-01 11:43:00", "NSDate")"#,
                            "SELECT count(*) FROM \(t) WHERE Z_ENT = 11 AND ZCREATIONDATE3 >= strftime('%s', '2025-07-01 11:43:00') - 978307200")
        let titles = try output([store, "-e", #"find ICFolder where parent.title == "Folder2""#], format: "json")
        #expect(titles.contains(#""title":"Subfolder""#))
        // Dates show as UTC dates: the raw seconds since 2001, as the engine writes a Date.
        let title = "This note is password protected"
        let seconds = try output(["--raw", store, "-e", "sql SELECT ZCREATIONDATE3 FROM \(t) WHERE ZTITLE1 = '\(title)'"])
        let date = Date(timeIntervalSinceReferenceDate: try #require(Double(seconds.trimmingCharacters(in: .newlines))))
        let text = try #require(date.databaseValue.textValue)
        let note = try output([store, "-e", #"find ICNote where title == "\#(title)""#], format: "json")
        #expect(note.contains(#""creationDate":""# + text + "\""), "\(note)")
        // first and get by the model's names: the same note, its key from the raw table.
        let key = try output(["--raw", store, "-e", "sql SELECT Z_PK FROM \(t) WHERE Z_ENT = 11 AND ZTITLE1 = '\(title)'"])
        let first = try output([store, "-e", #"first ICNote select title, folder.title where title == "\#(title)""#])
        let got = try output([store, "-e", "get ICNote \(key.trimmingCharacters(in: .newlines))"], format: "json")
        #expect(first == title + "\tNotes\n", "\(first)")
        #expect(got.contains(#""title":"\#(title)""#), "\(got)")
        let schema = try output([store, "-e", "schema ICNote"], format: "json")
        #expect(schema.contains(#""name":"creationDate","column":"ZCREATIONDATE3""#), "\(schema.prefix(300))")
    }

    @Test func photos_manyToManyAndOrdered() throws {
        let store = try copy("Photos-macOS-10.15.sqlite")
        try expectSameCount(store, #"count Album where ANY assets.favorite == YES"#,
                            "SELECT count(DISTINCT j.Z_26ALBUMS) FROM Z_26ASSETS j JOIN ZGENERICASSET a ON a.Z_PK = j.Z_34ASSETS WHERE a.ZFAVORITE = 1")
        try expectSameCount(store, "count GenericAsset where albums.@count == 0",
                            "SELECT count(*) FROM ZGENERICASSET WHERE Z_PK NOT IN (SELECT Z_34ASSETS FROM Z_26ASSETS)")
        try expectSameCount(store, #"count Keyword where SUBQUERY(assetAttributes, $x, $x.asset.albums.@count > 0).@count > 0"#,
                            "SELECT count(DISTINCT k.Z_37KEYWORDS) FROM Z_1KEYWORDS k JOIN ZADDITIONALASSETATTRIBUTES x ON x.Z_PK = k.Z_1ASSETATTRIBUTES "
                                + "WHERE x.ZASSET IN (SELECT Z_34ASSETS FROM Z_26ASSETS)")
        try expectSameCount(store, "count Folder where childCollections.@count > 0",
                            "SELECT count(*) FROM ZGENERICALBUM f WHERE f.Z_ENT = 32 AND EXISTS (SELECT 1 FROM ZGENERICALBUM c WHERE c.ZPARENTFOLDER = f.Z_PK)")
        let schema = try output([store, "-e", "schema Album"], format: "json")
        #expect(schema.contains(#""name":"assets","kind":"to-many","destination":"GenericAsset","via":["Z_26ASSETS.Z_26ALBUMS","Z_26ASSETS.Z_34ASSETS"]"#))
        #expect(schema.contains(#""name":"title","column":"ZTITLE""#))
    }

    /// An interactive session says what it opened, and completion offers the model's names.
    @Test func interactiveBannerAndCompletionByModelNames() throws {
        let store = try copy("NoteStore-macOS-15-Seqoia.sqlite")
        let session = try TmuxSession(arguments: [store], home: folder)
        _ = try session.waitFor("A Core Data store: 20 entities by its model (from Z_MODELCACHE)")
        _ = try session.waitFor("NoteStore-macOS-15-Seqoia>")
        try session.type("count ICNot")
        try session.press("Tab")
        _ = try session.waitFor("count ICNote")
        try session.type(" where folder.tit")
        try session.press("Tab")
        _ = try session.waitFor("where folder.title")
        try session.type(#" == "Notes""#)
        try session.press("Enter")
        let counted = try output(["--raw", store, "-e", "sql SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT n JOIN ZICCLOUDSYNCINGOBJECT f "
                                      + "ON f.Z_PK = n.ZFOLDER WHERE n.Z_ENT = 11 AND f.ZTITLE2 = 'Notes'"])
        _ = try session.waitFor("\n" + counted.trimmingCharacters(in: .newlines) + "\n")
    }

    /// The relationships of `entity` in the order the record view lists them.
    func relationships(_ store: String, _ entity: String) throws -> [String] {
        try output([store, "-e", "schema \(entity)"]).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            return fields.count > 2 && fields[1] == "relationships" ? String(fields[2]) : nil
        }
    }

    /// The browser follows relationships of a Core Data store by the model (its keys are no
    /// attributes): a to-many through its inverse to-one, a to-one through its inverse to-many.
    @Test(arguments: notesStores)
    func browserFollowsRelationshipsByTheModel(name: String) throws {
        let s = try BrowserSession(copyChinook: false)
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name).path, toPath: s.database)
        let t = "ZICCLOUDSYNCINGOBJECT"
        let count = { (sql: String) in try self.output(["--raw", s.database, "-e", "sql " + sql]).trimmingCharacters(in: .newlines) }
        let folders = try count("SELECT count(*) FROM \(t) WHERE Z_ENT = 14")
        // The second folder by key, and its notes.
        let second = try count("SELECT Z_PK FROM \(t) WHERE Z_ENT = 14 ORDER BY Z_PK LIMIT 1 OFFSET 1")
        let notes = try count("SELECT count(*) FROM \(t) WHERE Z_ENT = 11 AND ZFOLDER = \(second)")
        // The record view ends with the relationships: G goes to the last, k up one each.
        let up = { (entity: String, relationship: String) throws -> String in
            let names = try self.relationships(s.database, entity)
            let position = try #require(names.lastIndex(of: relationship), "\(entity).\(relationship) in \(names)")
            return String(repeating: "k", count: names.count - 1 - position)
        }
        try s.start(["--entity", "ICFolder"], height: 60)
        _ = try s.waitFor("ICFolder  \(folders) rows")
        try s.type("j")
        try s.press("Enter")
        _ = try s.waitFor("→ \(notes) ICNote")
        try s.type("G" + (try up("ICFolder", "notes")) + "f")
        _ = try s.waitFor("ICNote  \(notes) rows  where folder == \(second)")
        try s.press("BSpace")
        _ = try s.waitFor("ICFolder  \(folders) rows")
        // The first note's folder: a to-one, found through the folder's to-many `notes`.
        try s.type("q")
        let first = try count("SELECT Z_PK FROM \(t) WHERE Z_ENT = 11 ORDER BY Z_PK LIMIT 1")
        let all = try count("SELECT count(*) FROM \(t) WHERE Z_ENT = 11")
        let u = try BrowserSession(copyChinook: false)
        try FileManager.default.copyItem(atPath: s.database, toPath: u.database)
        try u.start(["--entity", "ICNote"], height: 60)
        _ = try u.waitFor("ICNote  \(all) rows")
        try u.press("Enter")
        try u.type("G" + (try up("ICNote", "folder")) + "f")
        _ = try u.waitFor("ICFolder  1 rows  where SUBQUERY(notes, $x, $x == \(first)).@count > 0")
    }

    /// `generate swift` for every entity of each store type-checks against the built engine,
    /// each struct named for its entity, its properties for the model's attributes.
    @Test(arguments: notesStores + ["Photos-macOS-10.15.sqlite"])
    func generateSwift_everyEntityTypeChecks(name: String) throws {
        let store = try copy(name)
        let generated = try Shell.run([store, "-e", "generate swift"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let entity = name.hasPrefix("Photos") ? "Album" : "ICNote"
        #expect(generated.stdout.contains("public struct \(entity): PortalEntity"))
        #expect(generated.stdout.contains("extension \(entity): RowDecodable, RowEncodable {"))
        #expect(!generated.stdout.contains("ZTITLE"), "columns are no names of the model")
        let source = folder.appendingPathComponent("Entities.swift")
        try generated.stdout.write(to: source, atomically: true, encoding: .utf8)
        let checked = try GenerateSwiftTests.typecheck(source.path)
        #expect(checked.status == 0, "swiftc: \(checked.output.prefix(2000))")
    }

    @Test func raw_opensThePlainTables() throws {
        let store = try copy("NoteStore-macOS-15-Seqoia.sqlite")
        let raw = try output(["--raw", store, "-e", "entities"])
        #expect(raw.contains("ZICCLOUDSYNCINGOBJECT\t") && !raw.contains("ICNote\t"))
        #expect(try output(["--raw", store, "-e", "count ZICCLOUDSYNCINGOBJECT where Z_ENT == 11"]) == "9\n")
        let usage = try Shell.run(["--raw", "--model", Self.xmlModel, store, "-e", "entities"])
        #expect(usage.status == 2 && usage.stderr.contains("--raw and --model"))
    }

    @Test func createAndUpdateKeepTheBookkeepingOtherWritesAreRefused() throws {
        let store = try copy("NoteStore-macOS-12-Monterey.sqlite")
        let t = "ZICCLOUDSYNCINGOBJECT"
        let last = try output(["--raw", store, "-e", "sql SELECT max(max(Z_PK), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2)) FROM \(t)"])
        let key = try #require(Int(last.trimmingCharacters(in: .newlines))) + 1
        let created = try output([store, "-e", #"create ICHashtag set displayText = "hello""#], format: "json")
        #expect(created.contains(#""displayText":"hello""#))
        #expect(try output([store, "-e", #"update ICHashtag set displayText = "bye" where displayText == "hello""#])
                    .isEmpty)
        #expect(try output(["--raw", store, "-e", "sql SELECT Z_PK, Z_ENT, Z_OPT FROM \(t) WHERE ZDISPLAYTEXT = 'bye'"]) == "\(key)\t7\t2\n")
        #expect(try output(["--raw", store, "-e", "sql SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2"]) == "\(key)\n")
        #expect(try output(["--raw", store, "-e", "sql PRAGMA integrity_check"]) == "ok\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        for command in [#"upsert ICHashtag set displayText = "x""#, "import ICHashtag from /dev/null",
                        "create ICNoteContainer set sortOrder = 1", "sql DELETE FROM \(t)"] {
            let run = try Shell.run([store, "-e", command])
            #expect(run.status == 1, "\(command)")
            #expect(run.stderr.contains("nothing was written"), "\(command): \(run.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        // A table whose triggers call Core Data's own SQL functions takes no write.
        let photos = try copy("Photos-macOS-10.15.sqlite")
        let refused = try Shell.run([photos, "-e", "update Asset set hidden = 1 where TRUEPREDICATE"])
        #expect(refused.status == 1 && refused.stderr.contains("Core Data's own SQL functions"), "\(refused.stderr)")
    }

    // MARK: A store built from the Xcode model, by Core Data's storage rules

    /// A store for the momcom model without a model cache: AbstractEntity (1) ← Entity (2),
    /// OtherEntity (3) with the to-one `mainEntity`, UnrelatedEntity (4). `drop` leaves a column out.
    func builtStore(dropping drop: String? = nil) throws -> String {
        let path = folder.appendingPathComponent("built-\(UUID().uuidString).sqlite").path
        let store = try Store(path: path)
        let entityColumns = ["ZBOOLEANATTRIBUTE INTEGER", "ZINT16ATTRIBUTE INTEGER", "ZINT32ATTRIBUTE INTEGER",
                             "ZINT64ATTRIBUTE INTEGER", "ZDATEATTRIBUTE TIMESTAMP", "ZDECIMALATTRIBUTE DECIMAL",
                             "ZDOUBLEATTRIBUTE FLOAT", "ZFLOATATTRIBUTE FLOAT", "ZSTRINGATTRIBUTE VARCHAR",
                             "ZTRANSFORMABLEATTRIBUTE BLOB"]
        let unrelated = ["ZBIRTHDAY TIMESTAMP", "ZNAME VARCHAR"].filter { !$0.hasPrefix(drop ?? "-") }
        try store.write { ctx in
            try ctx.execute("""
                CREATE TABLE ZABSTRACTENTITY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \(entityColumns.joined(separator: ", ")));
                CREATE TABLE ZOTHERENTITY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZMAINENTITY INTEGER);
                CREATE TABLE ZUNRELATEDENTITY (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, \(unrelated.joined(separator: ", ")));
                CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
                CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
                INSERT INTO Z_PRIMARYKEY VALUES (1, 'AbstractEntity', 0, 3), (2, 'Entity', 1, 0), (3, 'OtherEntity', 0, 4),
                                                (4, 'UnrelatedEntity', 0, 2);
                INSERT INTO ZABSTRACTENTITY (Z_PK, Z_ENT, Z_OPT, ZSTRINGATTRIBUTE, ZDATEATTRIBUTE, ZINT16ATTRIBUTE)
                    VALUES (1, 2, 1, 'alpha', 700000000, 3), (2, 2, 1, 'beta', 600000000, 9), (3, 2, 1, 'gamma', NULL, -3);
                INSERT INTO ZOTHERENTITY VALUES (1, 3, 1, 1), (2, 3, 1, 1), (3, 3, 1, 2), (4, 3, 1, NULL);
                """)
            if drop == nil {
                // 1990-05-01 and 2010-05-01 UTC, as seconds since 2001.
                try ctx.execute("INSERT INTO ZUNRELATEDENTITY VALUES (1, 4, 1, -336182400, 'Ada'), (2, 4, 1, 294364800, 'Bo');")
            }
        }
        try store.close()
        return path
    }

    @Test func model_mapsAStoreBuiltFromIt() throws {
        let store = try builtStore()
        let model = ["--model", Self.xmlModel]
        try expectSameCount(store, "count Entity where otherEntities.@count >= 2",
                            "SELECT count(*) FROM ZABSTRACTENTITY e WHERE Z_ENT = 2 AND (SELECT count(*) FROM ZOTHERENTITY o WHERE o.ZMAINENTITY = e.Z_PK) >= 2",
                            model: model)
        try expectSameCount(store, #"count OtherEntity where mainEntity.stringAttribute BEGINSWITH "a""#,
                            "SELECT count(*) FROM ZOTHERENTITY o JOIN ZABSTRACTENTITY e ON e.Z_PK = o.ZMAINENTITY WHERE e.ZSTRINGATTRIBUTE LIKE 'a%'",
                            model: model)
        try expectSameCount(store, #"count UnrelatedEntity where birthday < CAST("2000-01-01", "NSDate")"#,
                            "SELECT count(*) FROM ZUNRELATEDENTITY WHERE ZBIRTHDAY < strftime('%s', '2000-01-01') - 978307200", model: model)
        try expectSameCount(store, "count AbstractEntity", "SELECT count(*) FROM ZABSTRACTENTITY", model: model)
        // A parent's key paths do not reach its sub-entity's attributes, as in Core Data.
        let parent = try Shell.run([store, "-e", "count AbstractEntity where int16Attribute > 0"] + model)
        #expect(parent.status == 1 && parent.stderr.contains("AbstractEntity has no attribute or relationship named 'int16Attribute'"))
        // The same store without --model: names from Z_PRIMARYKEY and the columns.
        #expect(try output([store, "-e", "count Entity where stringattribute == 'beta'"]) == "1\n")
    }

    /// A to-many without inverse keeps its link in the destination's table, in `Z<ent><NAME>`.
    @Test func model_toManyWithoutInverse() throws {
        let store = try builtStore()
        let raw = try Store(path: store, options: { var o = StoreOptions(); o.switchesToWAL = false; return o }())
        try raw.write { ctx in
            try ctx.execute("ALTER TABLE ZOTHERENTITY ADD COLUMN Z4FOLLOWERS INTEGER")
            try ctx.execute("UPDATE ZOTHERENTITY SET Z4FOLLOWERS = 2 WHERE Z_PK IN (1, 4)")
        }
        try raw.close()
        let xml = try String(contentsOfFile: Self.xmlModel, encoding: .utf8).replacingOccurrences(
            of: #"<attribute name="birthday""#,
            with: #"<relationship name="followers" toMany="YES" destinationEntity="OtherEntity"/><attribute name="birthday""#)
        let model = folder.appendingPathComponent("followers.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        try expectSameCount(store, "count UnrelatedEntity where followers.@count == 2",
                            "SELECT count(*) FROM ZUNRELATEDENTITY u WHERE (SELECT count(*) FROM ZOTHERENTITY o WHERE o.Z4FOLLOWERS = u.Z_PK) = 2",
                            model: ["--model", model.path])
        try expectSameCount(store, "count UnrelatedEntity where ANY followers.mainEntity.stringAttribute == 'alpha'",
                            "SELECT count(DISTINCT o.Z4FOLLOWERS) FROM ZOTHERENTITY o JOIN ZABSTRACTENTITY e ON e.Z_PK = o.ZMAINENTITY "
                                + "WHERE e.ZSTRINGATTRIBUTE = 'alpha'",
                            model: ["--model", model.path])
    }

    /// The built store with a UUID attribute `token` on UnrelatedEntity (a 16-byte blob column,
    /// set on Ada's row to `uuid`), and the model file that declares it.
    func uuidStore(_ uuid: UUID) throws -> (store: String, model: String) {
        let store = try builtStore()
        let raw = try Store(path: store, options: { var o = StoreOptions(); o.switchesToWAL = false; return o }())
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        try raw.write { ctx in
            try ctx.execute("ALTER TABLE ZUNRELATEDENTITY ADD COLUMN ZTOKEN BLOB")
            try ctx.execute("UPDATE ZUNRELATEDENTITY SET ZTOKEN = ? WHERE Z_PK = 1", [.blob(bytes)])
        }
        try raw.close()
        let xml = try String(contentsOfFile: Self.xmlModel, encoding: .utf8).replacingOccurrences(
            of: #"<attribute name="birthday""#, with: #"<attribute name="token" attributeType="UUID"/><attribute name="birthday""#)
        let model = folder.appendingPathComponent("uuid-\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return (store, model.path)
    }

    @Test func model_uuidBlobsShowAsUUIDTextAndCompareAsBlobs() throws {
        let uuid = UUID()
        let (store, model) = try uuidStore(uuid)
        let found = try output([store, "--model", model, "-e", "find UnrelatedEntity where token != nil"], format: "json")
        #expect(found.contains(#""token":""# + uuid.uuidString + "\""), "\(found)")
        #expect(found.contains(#""name":"Ada""#) && !found.contains("Bo"))
    }

    @Test func model_thatDoesNotMatchNamesTheEntityAndAttribute() throws {
        let store = try builtStore(dropping: "ZNAME")
        let run = try Shell.run([store, "--model", Self.xmlModel, "-e", "entities"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("UnrelatedEntity.name has no column ZNAME in ZUNRELATEDENTITY"), "\(run.stderr)")
        #expect(run.stderr.contains("--raw"))
        let other = try copy("NoteStore-macOS-12-Monterey.sqlite")
        let wrong = try Shell.run([other, "--model", Self.xmlModel, "-e", "entities"])
        #expect(wrong.status == 3 && wrong.stderr.contains("AbstractEntity is not in Z_PRIMARYKEY"), "\(wrong.stderr)")
        let plain = try Shell.run([Shell.chinook, "--read-only", "--model", Self.xmlModel, "-e", "entities"])
        #expect(plain.status == 3 && plain.stderr.contains("not a Core Data store"))
        let missing = try Shell.run([store, "--model", folder.appendingPathComponent("none.xcdatamodeld").path, "-e", "entities"])
        #expect(missing.status == 3 && missing.stderr.contains("no model at"))
    }

    @Test func model_withUnknownFeaturesIsNotedNotFatal() throws {
        let store = try builtStore()
        let xml = try String(contentsOfFile: Self.xmlModel, encoding: .utf8).replacingOccurrences(
            of: #"<attribute name="birthday""#, with: #"<compositeAttribute name="address"/><attribute name="birthday""#)
        let model = folder.appendingPathComponent("newer.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        let run = try Shell.run([store, "--model", model.path, "-e", "count UnrelatedEntity"])
        #expect(run.status == 0 && run.stdout.hasSuffix("2\n"))
        #expect(run.stderr == "note: ignored UnrelatedEntity.address (<compositeAttribute>)\n")
    }

    @Test func corruptModelCacheIsAClearErrorAndNoWrite() throws {
        let store = try copy("NoteStore-macOS-12-Monterey.sqlite")
        let raw = try Store(path: store, options: { var o = StoreOptions(); o.switchesToWAL = false; return o }())
        try raw.write { ctx in
            try ctx.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = substr(Z_CONTENT, 1, 200)")
        }
        try raw.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let run = try Shell.run([store, "-e", "entities"])
        #expect(run.status == 3)
        #expect(run.stderr.contains("Z_MODELCACHE") && run.stderr.contains("--raw"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        // --raw still opens it.
        #expect(try output(["--raw", store, "-e", "count Z_PRIMARYKEY"]) == "21\n")
    }

    /// The momcom model with `birthday` declared `type` instead of Date, as an `.xcdatamodel` folder.
    func modelWithBirthday(_ type: String) throws -> String {
        let xml = try String(contentsOfFile: Self.xmlModel, encoding: .utf8).replacingOccurrences(
            of: #"<attribute name="birthday" optional="YES" attributeType="Date""#,
            with: #"<attribute name="birthday" optional="YES" attributeType=""# + type + "\"")
        let model = folder.appendingPathComponent("birthday-\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try xml.write(to: model.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
        return model.path
    }

    /// A model given with `--model` is used whatever the store's cache holds: empty, cut short,
    /// not a blob, or a table with no row.
    @Test(arguments: ["X''", "X'00112233'", "'text'", "zeroblob(64)"])
    func model_standsInForADamagedModelCache(content: String) throws {
        let store = try builtStore()
        let raw = try Store(path: store, options: { var o = StoreOptions(); o.switchesToWAL = false; return o }())
        try raw.write { ctx in
            try ctx.execute("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
            try ctx.execute("INSERT INTO Z_MODELCACHE VALUES (\(content))")
        }
        try raw.close()
        #expect(try output([store, "--model", Self.xmlModel, "-e", "count Entity where otherEntities.@count > 0"]) == "2\n")
        // Without a model the damaged cache is an error that names the way out.
        let run = try Shell.run([store, "-e", "count Entity"])
        #expect(run.status == 3 && run.stderr.contains("Z_MODELCACHE") && run.stderr.contains("--model PATH"), "\(run.stderr)")
    }

    /// A model whose attribute type contradicts its column's declared type is refused, naming
    /// the attribute, both types and the column; nothing is read by it and nothing written.
    @Test func model_whoseTypeContradictsTheColumnIsRefused() throws {
        let store = try builtStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let run = try Shell.run([store, "--model", try modelWithBirthday("String"), "-e", "find UnrelatedEntity"])
        #expect(run.status == 3, "\(run.stdout)")
        #expect(run.stderr.contains("UnrelatedEntity.birthday is String in the model, but its column "
                                    + "ZUNRELATEDENTITY.ZBIRTHDAY is declared TIMESTAMP"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        let number = try Shell.run([store, "--model", try modelWithBirthday("Integer 64"), "-e", "count UnrelatedEntity"])
        #expect(number.status == 3 && number.stderr.contains("is Integer 64 in the model"), "\(number.stderr)")
        // The model as it is agrees with every column.
        #expect(try output([store, "--model", Self.xmlModel, "-e", "count UnrelatedEntity"]) == "2\n")
    }
}
