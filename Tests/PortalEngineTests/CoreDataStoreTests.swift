import Foundation
@testable import PortalCoreData
import Testing
@testable import PortalEngine
@testable import PortalSQLite

/// Predicates by the model's names on the real stores, each answer (the rows' `Z_PK`s) compared
/// with SQL written by hand against the raw tables.
@Suite struct CoreDataStoreTests {
    /// A store read through the model, and a plain one on the same copy.
    func stores(_ fixture: CoreDataFixture, _ folder: TemporaryFolder) throws -> (model: Store, raw: Store) {
        let path = try fixture.copy(into: folder)
        var options = StoreOptions(readOnly: true, create: false)
        options.catalog = CoreDataStoreCatalog()
        return (try Store(path: path, options: options), try Store(path: path, options: StoreOptions(readOnly: true, create: false)))
    }

    func rawKeys(_ store: Store, _ sql: String) throws -> [Int64] {
        try store.read { ctx in try ctx.query(sql).rows.compactMap(\.firstInteger).sorted() }
    }

    func modelKeys(_ store: Store, _ entity: String, _ predicate: String?) throws -> [Int64] {
        try store.read { ctx in
            try ctx.find(entity, where: predicate, includeRowid: true).compactMap(\.firstInteger).sorted()
        }
    }

    func compare(_ fixture: CoreDataFixture, _ cases: [(entity: String, predicate: String?, sql: String)]) throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try stores(fixture, folder)
        for (entity, predicate, sql) in cases {
            let expected = try rawKeys(raw, sql)
            #expect(try modelKeys(model, entity, predicate) == expected, "\(entity) where \(predicate ?? "-")")
            #expect(try model.read { ctx in try ctx.count(entity, where: predicate) } == expected.count)
            #expect(!expected.isEmpty, "\(entity) where \(predicate ?? "-") must match something to show anything")
        }
    }

    @Test(arguments: CoreDataFixture.notes)
    func notes_entitiesHierarchyAndKeyPaths(fixture: CoreDataFixture) throws {
        let t = "ZICCLOUDSYNCINGOBJECT"
        try compare(fixture, [
            ("ICNote", nil, "SELECT Z_PK FROM \(t) WHERE Z_ENT = 11"),
            ("ICNoteContainer", nil, "SELECT Z_PK FROM \(t) WHERE Z_ENT IN (12, 13, 14)"),
            ("ICCloudSyncingObject", nil, "SELECT Z_PK FROM \(t)"),
            ("ICNote", #"title BEGINSWITH "This note is""#, "SELECT Z_PK FROM \(t) WHERE Z_ENT = 11 AND ZTITLE1 LIKE 'This note is%'"),
            ("ICNote", #"folder.title == "Notes""#,
             "SELECT n.Z_PK FROM \(t) n JOIN \(t) f ON f.Z_PK = n.ZFOLDER WHERE n.Z_ENT = 11 AND f.ZTITLE2 = 'Notes'"),
            ("ICNote", #"folder.parent.parent.title == "Folder2""#,
             "SELECT n.Z_PK FROM \(t) n JOIN \(t) f ON f.Z_PK = n.ZFOLDER JOIN \(t) p ON p.Z_PK = f.ZPARENT "
                 + "JOIN \(t) g ON g.Z_PK = p.ZPARENT WHERE n.Z_ENT = 11 AND g.ZTITLE2 = 'Folder2'"),
            ("ICFolder", "notes.@count >= 1",
             "SELECT f.Z_PK FROM \(t) f WHERE f.Z_ENT = 14 AND (SELECT count(*) FROM \(t) n WHERE n.Z_ENT = 11 AND n.ZFOLDER = f.Z_PK) >= 1"),
            ("ICFolder", #"SUBQUERY(children, $c, $c.title CONTAINS[c] "sub").@count > 0"#,
             "SELECT f.Z_PK FROM \(t) f WHERE f.Z_ENT = 14 AND EXISTS (SELECT 1 FROM \(t) c WHERE c.Z_ENT = 14 AND c.ZPARENT = f.Z_PK AND c.ZTITLE2 LIKE '%sub%')"),
            ("ICAccount", #"ANY notes.folder.title == "Subsubfolder""#,
             "SELECT a.Z_PK FROM \(t) a WHERE a.Z_ENT = 13 AND EXISTS (SELECT 1 FROM \(t) n JOIN \(t) f ON f.Z_PK = n.ZFOLDER "
                 + "WHERE n.Z_ENT = 11 AND n.\(fixture.noteAccountColumn) = a.Z_PK AND f.ZTITLE2 = 'Subsubfolder')"),
            ("ICFolder", #"NONE notes.title CONTAINS "folder""#,
             "SELECT f.Z_PK FROM \(t) f WHERE f.Z_ENT = 14 AND NOT EXISTS (SELECT 1 FROM \(t) n WHERE n.Z_ENT = 11 AND n.ZFOLDER = f.Z_PK AND instr(n.ZTITLE1, 'folder') > 0)"),
            ("ICNote", #"creationDate > CAST("2025-08-01 11:36:00", "NSDate")"#,
             "SELECT Z_PK FROM \(t) WHERE Z_ENT = 11 AND ZCREATIONDATE3 > strftime('%s', '2025-08-01 11:36:00') - 978307200"),
        ])
    }

    @Test(arguments: CoreDataFixture.notes)
    func notes_driftedColumns(fixture: CoreDataFixture) throws {
        let t = "ZICCLOUDSYNCINGOBJECT", account = fixture.noteAccountColumn
        try compare(fixture, [
            ("ICAccount", "notes.@count > 0",
             "SELECT a.Z_PK FROM \(t) a WHERE a.Z_ENT = 13 AND EXISTS (SELECT 1 FROM \(t) n WHERE n.Z_ENT = 11 AND n.\(account) = a.Z_PK)"),
            ("ICNote", #"account.name != nil AND creationDate < CAST("2030-01-01", "NSDate")"#,
             "SELECT n.Z_PK FROM \(t) n JOIN \(t) a ON a.Z_PK = n.\(account) WHERE n.Z_ENT = 11 AND a.ZNAME IS NOT NULL "
                 + "AND n.ZCREATIONDATE3 < strftime('%s', '2030-01-01') - 978307200"),
        ])
    }

    @Test func photos_manyToManyOrderedAndInheritance() throws {
        try compare(.photos, [
            ("Album", nil, "SELECT Z_PK FROM ZGENERICALBUM WHERE Z_ENT IN (26, 27, 28, 29, 30)"),
            ("GenericAlbum", nil, "SELECT Z_PK FROM ZGENERICALBUM"),
            ("Album", #"ANY assets.filename BEGINSWITH "B6DB""#,
             "SELECT Z_26ALBUMS FROM Z_26ASSETS JOIN ZGENERICASSET a ON a.Z_PK = Z_34ASSETS WHERE a.ZFILENAME LIKE 'B6DB%'"),
            ("Album", "assets.@count == 0",
             "SELECT Z_PK FROM ZGENERICALBUM WHERE Z_ENT IN (26, 27, 28, 29, 30) AND Z_PK NOT IN (SELECT Z_26ALBUMS FROM Z_26ASSETS)"),
            ("GenericAsset", #"ANY albums.title == "San Juan Capistrano""#,
             "SELECT Z_34ASSETS FROM Z_26ASSETS JOIN ZGENERICALBUM b ON b.Z_PK = Z_26ALBUMS WHERE b.ZTITLE = 'San Juan Capistrano'"),
            ("Keyword", #"ANY assetAttributes.asset.favorite == YES"#,
             "SELECT DISTINCT k.Z_37KEYWORDS FROM Z_1KEYWORDS k JOIN ZADDITIONALASSETATTRIBUTES x ON x.Z_PK = k.Z_1ASSETATTRIBUTES "
                 + "JOIN ZGENERICASSET a ON a.Z_PK = x.ZASSET WHERE a.ZFAVORITE = 1"),
            ("Folder", "childCollections.@count > 0",
             "SELECT f.Z_PK FROM ZGENERICALBUM f WHERE f.Z_ENT = 32 AND EXISTS (SELECT 1 FROM ZGENERICALBUM c WHERE c.ZPARENTFOLDER = f.Z_PK)"),
            ("GenericAsset", #"dateCreated < CAST("2020-08-01", "NSDate") AND moment.title != nil"#,
             "SELECT a.Z_PK FROM ZGENERICASSET a JOIN ZMOMENT m ON m.Z_PK = a.ZMOMENT WHERE a.ZDATECREATED < strftime('%s', '2020-08-01') - 978307200 "
                 + "AND m.ZTITLE IS NOT NULL"),
            ("Moment", #"SUBQUERY(assets, $a, ANY $a.albums.title == "Farmers Market").@count > 0"#,
             "SELECT DISTINCT a.ZMOMENT FROM ZGENERICASSET a JOIN Z_26ASSETS j ON j.Z_34ASSETS = a.Z_PK JOIN ZGENERICALBUM b ON b.Z_PK = j.Z_26ALBUMS "
                 + "WHERE b.ZTITLE = 'Farmers Market'"),
        ])
    }

    @Test func photos_attributesComeByTheirModelNames() throws {
        let folder = try TemporaryFolder()
        let (model, _) = try stores(.photos, folder)
        let asset = try #require(try model.read { ctx in try ctx.first("Asset", where: "filename BEGINSWITH 'B6DB'") })
        #expect(asset["filename"] == "B6DB996D-8A0A-4983-AFBD-D206B7D38A23.jpeg")
        #expect(asset["uuid"] == "B6DB996D-8A0A-4983-AFBD-D206B7D38A23")
        #expect(asset["ZFILENAME"] == nil)
        let schema = try model.read { ctx in try ctx.schema }
        let dateCreated = schema.entity(named: "Asset")?.attribute(named: "dateCreated")
        #expect(dateCreated?.column == "ZDATECREATED" && dateCreated?.storage == .secondsSinceReferenceDate)
    }
}

extension Row {
    var firstInteger: Int64? { if case .integer(let n) = value(at: 0) { n } else { nil } }
}

/// Writes through the engine's API keep Core Data's bookkeeping, or are refused before anything
/// is written.
@Suite struct CoreDataWriteTests {
    func writable(_ fixture: CoreDataFixture, _ folder: TemporaryFolder) throws -> (model: Store, raw: Store) {
        let path = try fixture.copy(into: folder)
        var options = StoreOptions()
        options.switchesToWAL = false
        options.catalog = CoreDataStoreCatalog()
        var plain = StoreOptions()
        plain.switchesToWAL = false
        return (try Store(path: path, options: options), try Store(path: path, options: plain))
    }

    func scalar(_ store: Store, _ sql: String) throws -> Value? {
        try store.read { ctx in try ctx.query(sql).rows.first?.value(at: 0) }
    }

    /// The store is as Core Data needs it: intact, every root's Z_MAX at or above its table's
    /// largest Z_PK, every row's Z_ENT an entity of its table.
    func expectConsistent(_ raw: Store) throws {
        #expect(try scalar(raw, "PRAGMA integrity_check") == "ok")
        #expect(try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT WHERE Z_PK > (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2)") == 0)
        #expect(try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT WHERE Z_ENT IS NULL OR Z_ENT NOT IN (2,3,4,5,6,7,8,9,10,11,12,13,14)") == 0)
    }

    /// A catalog chosen by the file's tables is asked once, on the store's first connection,
    /// which a read-only store keeps as its reader: the store opens its file once, by its model.
    @Test func theCatalogIsChosenOnTheFirstConnection() throws {
        final class Calls: @unchecked Sendable { var count = 0 }
        let folder = try TemporaryFolder()
        let path = try CoreDataFixture.monterey.copy(into: folder)
        for readOnly in [true, false] {
            let calls = Calls()
            var options = StoreOptions(readOnly: readOnly, create: false)
            options.catalogForFile = { connection in
                calls.count += 1
                return try CoreDataStoreInfo.isCoreDataStore(connection) ? CoreDataStoreCatalog() : nil
            }
            let store = try Store(path: path, options: options)
            #expect(calls.count == 1 && store.options.catalog is CoreDataStoreCatalog)
            #expect(store.readerConnections == (readOnly ? 1 : 0))
            #expect(try store.read { try $0.schema.entity(named: "ICHashtag") } != nil)
            #expect(store.readerConnections == 1)
            try store.close()
        }
    }

    /// Writes read the model once per schema version, with the schema: many creates share one
    /// read; a schema change (here a trigger calling Core Data's functions) is seen by the next write.
    @Test func writesReadTheModelOncePerSchemaVersion() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.monterey, folder)
        for n in 0..<5 {
            _ = try model.write { ctx in try ctx.create("ICHashtag", ["displayText": .text("tag \(n)")]) }
        }
        _ = try model.write { ctx in try ctx.update("ICHashtag", set: ["displayText": "x"], where: "displayText == 'tag 0'") }
        #expect(model.schemaCache.reads == 1)
        try raw.write { ctx in
            _ = try ctx.execute("CREATE TRIGGER derived AFTER INSERT ON ZICCLOUDSYNCINGOBJECT BEGIN "
                                + "SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue(NEW.Z_PK); END")
        }
        let refused = portalError { _ = try model.write { ctx in try ctx.create("ICHashtag", ["displayText": "late"]) } }
        #expect(refused?.message.contains("Core Data's own SQL functions") == true, "\(String(describing: refused))")
        #expect(model.schemaCache.reads == 2)
        #expect(try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT WHERE Z_ENT = 7 AND ZDISPLAYTEXT LIKE 'tag %'") == 4)
    }

    /// A hashtag as `generate swift` would type it (by Codable here, not RowDecodable).
    struct Hashtag: PortalEntity, Hashable {
        static let entityName = "ICHashtag"
        static let idAttribute = "rowid"
        static let idAttributes = ["rowid"]
        var rowid: Int64?
        var displayText: String?
        var creationDate: Date?
        var markedForDeletion: Bool?
    }

    /// Portal<T> on a Core Data store: create takes Core Data's bookkeeping and the store's
    /// date form, update writes what changed (raising Z_OPT once), delete by id, upsert refused.
    @Test func typedPortalKeepsTheBookkeeping() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.sonoma, folder)
        let portal = Portal<Hashtag>(model)
        try portal.create([Hashtag(displayText: "typed", creationDate: Date(timeIntervalSinceReferenceDate: 600), markedForDeletion: false)])
        let key = try #require(try scalar(raw, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2"))
        let stored = { try raw.read { ctx in
            try ctx.query("SELECT Z_PK, Z_ENT, Z_OPT, ZCREATIONDATE1, ZMARKEDFORDELETION FROM ZICCLOUDSYNCINGOBJECT WHERE ZDISPLAYTEXT = 'typed'").rows.map(\.values)
        } }
        #expect(try stored() == [[key, 7, 1, 600, 0]])
        var tag = try #require(try portal.findFirst(where: "displayText == 'typed'"))
        #expect(tag.rowid.map(Value.integer) == key && tag.creationDate == Date(timeIntervalSinceReferenceDate: 600))
        tag.markedForDeletion = true
        #expect(try portal.update([tag, tag]) == 2)
        #expect(try stored() == [[key, 7, 2, 600, 1]])
        let missing = portalError { try portal.update([Hashtag(rowid: 999_999, displayText: "x")]) }
        #expect(missing?.kind == .rowNotFound)
        let upsert = portalError { try portal.upsert([Hashtag(displayText: "up")]) }
        #expect(upsert?.message.contains("nothing was written") == true, "\(String(describing: upsert))")
        #expect(try model.write { ctx in try ctx.delete(tag) })
        #expect(try stored().isEmpty)
        #expect(try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT WHERE ZDISPLAYTEXT = 'up'") == 0)
    }

    /// A typed read keeps a Core Data date's stored precision (it was rounded to the
    /// millisecond of its text), writing the entity back leaves the date's seconds alone, and
    /// a typed write stores a date's full seconds.
    @Test func typedReadsKeepADatesPrecision() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.sonoma, folder)
        let portal = Portal<Hashtag>(model)
        try portal.create([Hashtag(displayText: "precise", creationDate: Date(timeIntervalSinceReferenceDate: 600), markedForDeletion: false)])
        let stored = 615_979_059.766647
        try raw.write { ctx in
            _ = try ctx.execute("UPDATE ZICCLOUDSYNCINGOBJECT SET ZCREATIONDATE1 = ? WHERE ZDISPLAYTEXT = 'precise'", [.real(stored)])
        }
        var tag = try #require(try portal.findFirst(where: "displayText == 'precise'"))
        let read = try #require(tag.creationDate?.timeIntervalSinceReferenceDate)
        #expect(abs(read - stored) < 1e-6, "\(read)")
        let fetched = try model.read { ctx in try ctx.fetch(Hashtag.self, where: "displayText == 'precise'") }
        #expect(fetched.first?.creationDate == tag.creationDate)
        // Every typed read keeps it: by #Predicate, and through a cursor of either kind.
        let byClosure = try portal.findAll(where: #Predicate<Hashtag> { $0.displayText == "precise" })
        #expect(byClosure.first?.creationDate == tag.creationDate)
        // The shown text stays to the millisecond.
        #expect(try model.read { ctx in try ctx.find("ICHashtag", where: "displayText == 'precise'").first?["creationDate"] }
            == "2020-07-09 09:17:39.767")
        tag.markedForDeletion = true
        #expect(try portal.update([tag]) == 1)
        #expect(try scalar(raw, "SELECT ZCREATIONDATE1 FROM ZICCLOUDSYNCINGOBJECT WHERE ZDISPLAYTEXT = 'precise'") == .real(stored))
        // Typed writes store a date's full seconds since 2001 too (date text kept milliseconds).
        tag.creationDate = Date(timeIntervalSinceReferenceDate: 615_979_059.123456)
        #expect(try portal.update([tag]) == 1)
        #expect(try scalar(raw, "SELECT ZCREATIONDATE1 FROM ZICCLOUDSYNCINGOBJECT WHERE ZDISPLAYTEXT = 'precise'")
            == .real(615_979_059.123456))
        try portal.create([Hashtag(displayText: "created", creationDate: Date(timeIntervalSinceReferenceDate: 1.000001))])
        #expect(try scalar(raw, "SELECT ZCREATIONDATE1 FROM ZICCLOUDSYNCINGOBJECT WHERE ZDISPLAYTEXT = 'created'") == .real(1.000001))
    }

    /// Cursors, by text and by #Predicate, read a Core Data date as precisely as `findAll` does.
    @Test func typedCursorsKeepADatesPrecision() async throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.sonoma, folder)
        try Portal<Hashtag>(model).create([Hashtag(displayText: "precise", creationDate: Date(timeIntervalSinceReferenceDate: 600))])
        let stored = 615_979_059.766647
        try await raw.write { ctx in
            _ = try ctx.execute("UPDATE ZICCLOUDSYNCINGOBJECT SET ZCREATIONDATE1 = ? WHERE ZDISPLAYTEXT = 'precise'", [.real(stored)])
        }
        var seconds: [Double] = []
        for try await tag in Portal<Hashtag>(model).cursor(where: "displayText == 'precise'") {
            seconds.append(tag.creationDate?.timeIntervalSinceReferenceDate ?? 0)
        }
        for try await tag in try Portal<Hashtag>(model).cursor(where: #Predicate<Hashtag> { $0.displayText == "precise" }) {
            seconds.append(tag.creationDate?.timeIntervalSinceReferenceDate ?? 0)
        }
        #expect(seconds.count == 2 && seconds.allSatisfy { abs($0 - stored) < 1e-6 }, "\(seconds)")
    }

    @Test func createAndUpdateKeepZPKZENTZOPTAndZMAX() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.monterey, folder)
        let before = try scalar(raw, "SELECT max(max(Z_PK), (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2)) FROM ZICCLOUDSYNCINGOBJECT")
        let created = try model.write { ctx in try ctx.create("ICHashtag", ["displayText": "hello"]) }
        #expect(created["displayText"] == "hello")
        guard case .integer(let last)? = before else { Issue.record("no Z_MAX"); return }
        let row = try raw.read { ctx in
            try ctx.query("SELECT Z_PK, Z_ENT, Z_OPT FROM ZICCLOUDSYNCINGOBJECT WHERE ZDISPLAYTEXT = 'hello'").rows.map(\.values)
        }
        #expect(row == [[.integer(last + 1), .integer(7), .integer(1)]])
        #expect(try scalar(raw, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2") == .integer(last + 1))
        #expect(try model.read { ctx in try ctx.count("ICHashtag") } == 1)
        let others = try scalar(raw, "SELECT sum(Z_OPT) FROM ZICCLOUDSYNCINGOBJECT WHERE Z_ENT != 7")
        let changed = try model.write { ctx in try ctx.update("ICHashtag", set: ["displayText": "bye"], where: "displayText == 'hello'") }
        #expect(changed == 1)
        #expect(try scalar(raw, "SELECT Z_OPT FROM ZICCLOUDSYNCINGOBJECT WHERE ZDISPLAYTEXT = 'bye'") == 2)
        // Other rows of the shared table are untouched.
        #expect(try scalar(raw, "SELECT sum(Z_OPT) FROM ZICCLOUDSYNCINGOBJECT WHERE Z_ENT != 7") == others)
        try expectConsistent(raw)
    }

    @Test func unsafeWritesAreRefusedAndNothingChanges() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.monterey, folder)
        let rows = try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT")
        let opt = try scalar(raw, "SELECT sum(Z_OPT) FROM ZICCLOUDSYNCINGOBJECT")
        let refusals: [(String, (WriteContext) throws -> Void)] = [
            ("insert by columns", { ctx in try ctx.insert("ICHashtag", columns: ["displayText"], values: ["x"]) }),
            ("abstract", { ctx in try ctx.create("ICNoteContainer", ["title": "x"]) }),
            ("bookkeeping", { ctx in try ctx.create("ICHashtag", ["Z_PK": 1]) }),
            ("upsert", { ctx in _ = try ctx.upsert("ICHashtag", ["displayText": "x"]) }),
        ]
        for (name, write) in refusals {
            let error = portalError { try model.write { ctx in try write(ctx) } }
            #expect(error?.kind == .notWritable || error?.kind == .unknownAttribute, "\(name)")
            #expect(error?.message.contains("nothing was written") == true || error?.kind == .unknownAttribute, "\(name): \(String(describing: error))")
        }
        #expect(try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT") == rows)
        #expect(try scalar(raw, "SELECT sum(Z_OPT) FROM ZICCLOUDSYNCINGOBJECT") == opt)
        let abstract = portalError { try model.write { ctx in try ctx.create("ICNoteContainer", ["sortOrder": 1]) } }
        #expect(abstract?.message.contains("ICAccount, ICFolder") == true)
    }

    @Test func derivedAttributesKeptByCoreDataTriggersRefuseTheWrite() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.photos, folder)
        let opt = try scalar(raw, "SELECT sum(Z_OPT) FROM ZGENERICASSET")
        // `hidden` is among the columns whose update fires them.
        let error = portalError { try model.write { ctx in try ctx.update("GenericAsset", set: ["hidden": 1]) } }
        #expect(error?.kind == .notWritable && error?.message.contains("Core Data's own SQL functions") == true, "\(String(describing: error))")
        #expect(try scalar(raw, "SELECT sum(Z_OPT) FROM ZGENERICASSET") == opt)
        // An update that fires none of them goes through (none keeps anything derived from it).
        #expect(try model.write { ctx in try ctx.update("GenericAsset", set: ["favorite": 1], where: "SELF == 1") } == 1)
        // A table without such triggers takes the write.
        #expect(try model.write { ctx in try ctx.update("Keyword", set: ["title": "trips"]) } == 1)
        #expect(try scalar(raw, "SELECT Z_OPT FROM ZKEYWORD WHERE ZTITLE = 'trips'") != nil)
    }
}
