import Foundation
@testable import PortalCoreData
import Testing
@testable import PortalEngine

/// Deletes by the model's delete rules and relationships written by their storage, on copies of
/// the real stores; each outcome checked with SQL written by hand against the raw tables.
@Suite struct CoreDataDeleteAndLinkTests {
    func writable(_ fixture: CoreDataFixture, _ folder: TemporaryFolder) throws -> (model: Store, raw: Store) {
        try CoreDataWriteTests().writable(fixture, folder)
    }

    func keys(_ raw: Store, _ sql: String) throws -> [Int64] {
        try raw.read { ctx in try ctx.query(sql).rows.compactMap(\.firstInteger).sorted() }
    }

    func scalar(_ raw: Store, _ sql: String) throws -> Value? {
        try raw.read { ctx in try ctx.query(sql).rows.first?.value(at: 0) }
    }

    @Test func deleteRulesAreReadFromTheModel() throws {
        let folder = try TemporaryFolder()
        let info = try CoreDataStoreInfo(CoreDataFixture.monterey.connection(in: folder))
        let model = try #require(info.cachedModel)
        let rule = { (entity: String, name: String) in
            model.entity(named: entity)?.relationships.first { $0.name == name }?.deleteRule
        }
        #expect(rule("ICFolder", "notes") == .cascade)
        #expect(rule("ICNote", "folder") == .nullify)
        let xml = try ModelFile.read(CoreDataFixture.xmlModelPath)
        #expect(xml.entity(named: "Entity")?.relationships.first?.deleteRule == .nullify)
        #expect(CoreDataRelationship.DeleteRule(xcodeName: "Deny") == .deny)
        #expect(CoreDataRelationship.DeleteRule(code: 0) == .noAction)
        #expect(CoreDataRelationship.DeleteRule(code: 9) == .unknown("9"))
    }

    /// ICFolder.children and ICFolder.notes cascade: deleting a folder deletes its sub-folders
    /// and every note in any of them, and nothing else.
    @Test func deleteCascadesThroughTheHierarchy() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.monterey, folder)
        let t = "ZICCLOUDSYNCINGOBJECT"
        let tree = "WITH RECURSIVE tree(k) AS (SELECT Z_PK FROM \(t) WHERE Z_ENT = 14 AND ZTITLE2 = 'Folder2' "
            + "UNION SELECT f.Z_PK FROM \(t) f JOIN tree ON f.ZPARENT = tree.k WHERE f.Z_ENT = 14) "
        let folders = try keys(raw, tree + "SELECT k FROM tree")
        let notes = try keys(raw, tree + "SELECT Z_PK FROM \(t) WHERE Z_ENT = 11 AND ZFOLDER IN (SELECT k FROM tree)")
        let others = try keys(raw, "SELECT Z_PK FROM \(t) WHERE Z_ENT IN (11, 14)").filter { !folders.contains($0) && !notes.contains($0) }
        #expect(folders.count == 3 && !notes.isEmpty)
        #expect(try model.write { ctx in try ctx.delete("ICFolder", where: "title == 'Folder2'") } == 1)
        let gone = (folders + notes).map(String.init).joined(separator: ",")
        #expect(try scalar(raw, "SELECT count(*) FROM \(t) WHERE Z_PK IN (\(gone))") == 0)
        #expect(try keys(raw, "SELECT Z_PK FROM \(t) WHERE Z_ENT IN (11, 14)") == others)
        #expect(try scalar(raw, "SELECT count(*) FROM \(t) a WHERE a.ZNOTE IS NOT NULL AND a.Z_ENT = 5 AND a.ZNOTE NOT IN (SELECT Z_PK FROM \(t))") == 0)
        try CoreDataWriteTests().expectConsistent(raw)
    }

    /// Folder.childCollections nullifies, and is ordered: the albums stay, without their
    /// parent and position, their Z_OPT raised; the folder's join rows go.
    @Test func deleteNullifiesInverseKeysAndTheirOrder() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.photos, folder)
        let children = try raw.read { ctx in
            try ctx.query("SELECT Z_PK, Z_OPT FROM ZGENERICALBUM WHERE ZPARENTFOLDER = 19 ORDER BY Z_PK").rows.map(\.values)
        }
        #expect(children.count > 1)
        #expect(try model.write { ctx in try ctx.delete("Folder", where: "SELF == 19") } == 1)
        let after = try raw.read { ctx in
            try ctx.query("SELECT Z_PK, Z_OPT - 1 FROM ZGENERICALBUM WHERE Z_PK IN (\(children.compactMap { row -> String? in if case .integer(let k)? = row.first { "\(k)" } else { nil } }.joined(separator: ","))) "
                          + "AND ZPARENTFOLDER IS NULL AND Z_FOK_PARENTFOLDER IS NULL ORDER BY Z_PK").rows.map(\.values)
        }
        #expect(after == children)
        #expect(try scalar(raw, "SELECT count(*) FROM ZGENERICALBUM WHERE Z_PK = 19") == 0)
        #expect(try scalar(raw, "SELECT count(*) FROM Z_25ALBUMLISTS WHERE Z_25ALBUMS = 19") == 0)
        #expect(try scalar(raw, "PRAGMA integrity_check") == "ok")
    }

    /// An album's to-ones (with the entity column beside a key to GenericAsset's hierarchy and
    /// the position in the folder's ordered set), its ordered many-to-many and the other side's
    /// ordered set, each checked in the raw tables.
    @Test func relationshipsAreWrittenWhereTheStoreKeepsThem() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.photos, folder)
        let lastInFolder = try scalar(raw, "SELECT coalesce(max(Z_FOK_PARENTFOLDER), 0) FROM ZGENERICALBUM WHERE ZPARENTFOLDER = 19")
        let lastInList = try scalar(raw, "SELECT coalesce(max(Z_FOK_25ALBUMS), 0) FROM Z_25ALBUMLISTS WHERE Z_3ALBUMLISTS = 4")
        let assetEntity = try scalar(raw, "SELECT Z_ENT FROM ZGENERICASSET WHERE Z_PK = 2")
        let key = try model.write { ctx -> Int64 in
            let row = try ctx.create("Album", ["title": "round trip"])
            let key = ctx.lastInsertRowid   // the new row's Z_PK
            #expect(row["title"] == "round trip")
            try ctx.update("Album", [.rows("parentFolder", [19])], where: .id([.integer(key)]))
            try ctx.update("Album", [.rows("keyAsset", [2])], where: .id([.integer(key)]))
            try ctx.update("Album", [.rows("assets", [3, 1, 3])], where: .id([.integer(key)]))
            try ctx.update("Album", [.rows("albumLists", [4])], where: .id([.integer(key)]))
            return key
        }
        guard case .integer(let folderLast)? = lastInFolder, case .integer(let listLast)? = lastInList else {
            Issue.record("no positions"); return
        }
        let album = try raw.read { ctx in
            try ctx.query("SELECT ZPARENTFOLDER, Z_FOK_PARENTFOLDER, ZKEYASSET, Z34_KEYASSET, Z_OPT FROM ZGENERICALBUM WHERE Z_PK = ?",
                          [.integer(key)]).rows.map(\.values)
        }
        #expect(album == [[.integer(19), .integer(folderLast + 1024), .integer(2), try #require(assetEntity), .integer(5)]])
        let joins = try raw.read { ctx in
            try ctx.query("SELECT Z_34ASSETS, Z_FOK_34ASSETS FROM Z_26ASSETS WHERE Z_26ALBUMS = ? ORDER BY Z_FOK_34ASSETS",
                          [.integer(key)]).rows.map(\.values)
        }
        #expect(joins == [[.integer(3), .integer(2048)], [.integer(1), .integer(3072)]])
        #expect(try scalar(raw, "SELECT Z_FOK_25ALBUMS FROM Z_25ALBUMLISTS WHERE Z_25ALBUMS = \(key) AND Z_3ALBUMLISTS = 4")
                == .integer(listLast + 1024))
        // The model's key paths see the same links.
        #expect(try model.read { ctx in
            try ctx.count("Album", where: "title == 'round trip' AND assets.@count == 2 AND parentFolder != nil AND albumLists.@count == 1")
        } == 1)
        // Setting again replaces; nil clears the key and the entity column.
        try model.write { ctx in
            try ctx.update("Album", [.rows("assets", [2])], where: .id([.integer(key)]))
            try ctx.update("Album", [.rows("keyAsset", [])], where: .id([.integer(key)]))
        }
        #expect(try keys(raw, "SELECT Z_34ASSETS FROM Z_26ASSETS WHERE Z_26ALBUMS = \(key)") == [2])
        #expect(try scalar(raw, "SELECT coalesce(ZKEYASSET, Z34_KEYASSET, 'none') FROM ZGENERICALBUM WHERE Z_PK = \(key)") == "none")
        #expect(try model.write { ctx in try ctx.delete("Album", where: "title == 'round trip'") } == 1)
        #expect(try scalar(raw, "SELECT (SELECT count(*) FROM Z_26ASSETS WHERE Z_26ALBUMS = \(key)) + "
                          + "(SELECT count(*) FROM Z_25ALBUMLISTS WHERE Z_25ALBUMS = \(key))") == 0)
    }

    @Test func badRelationshipWritesAreClearErrorsAndWriteNothing() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.photos, folder)
        let before = try scalar(raw, "SELECT (SELECT sum(Z_OPT) FROM ZGENERICALBUM) + (SELECT count(*) FROM Z_26ASSETS)")
        let cases: [(String, PortalError.Kind, String, (WriteContext) throws -> Void)] = [
            ("two ids for a to-one", .misuse, "to-one relationship",
             { try $0.update("Album", [.rows("parentFolder", [8, 19])], where: .id([.integer(7)])) }),
            ("a missing target", .rowNotFound, "there is no GenericAsset with id 999999",
             { try $0.update("Album", [.rows("assets", [1, 999999])], where: .id([.integer(7)])) }),
            ("a target of another entity", .rowNotFound, "there is no Folder with id 7",
             { try $0.update("Album", [.rows("parentFolder", [7])], where: .id([.integer(7)])) }),
            ("an unknown name", .unknownAttribute, "no relationship named 'asets'",
             { try $0.update("Album", [.rows("asets", [1])], where: .id([.integer(7)])) }),
            ("a column whose update fires Core Data's triggers", .notWritable, "Core Data's own SQL functions",
             { try $0.update("GenericAsset", [.rows("highlightBeingAssets", [4])], where: .id([.integer(1)])) }),
        ]
        for (name, kind, message, write) in cases {
            let error = portalError { try model.write { ctx in try write(ctx) } }
            #expect(error?.kind == kind && error?.message.contains(message) == true, "\(name): \(String(describing: error))")
        }
        #expect(try scalar(raw, "SELECT (SELECT sum(Z_OPT) FROM ZGENERICALBUM) + (SELECT count(*) FROM Z_26ASSETS)") == before)
        // A row that is not there is matched by nothing: nothing is linked.
        #expect(try model.write { try $0.update("Album", [.rows("assets", [1])], where: .id([.integer(999999)])) }.matched == 0)
        #expect(try scalar(raw, "SELECT (SELECT sum(Z_OPT) FROM ZGENERICALBUM) + (SELECT count(*) FROM Z_26ASSETS)") == before)
    }

    /// `create` and `update` take a to-one relationship's id (or nil) among their values.
    @Test func createAndUpdateSetToOnesByName() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.monterey, folder)
        try model.write { ctx in _ = try ctx.create("ICNote", ["title": "linked", "folder": 12, "account": 3]) }
        let t = "ZICCLOUDSYNCINGOBJECT"
        let row = { try raw.read { ctx in try ctx.query("SELECT ZFOLDER, ZACCOUNT4, Z_OPT FROM \(t) WHERE ZTITLE1 = 'linked'").rows.map(\.values) } }
        #expect(try row() == [[.integer(12), .integer(3), .integer(1)]])
        #expect(try model.write { ctx in try ctx.update("ICNote", set: ["folder": .null], where: "title == 'linked'") } == 1)
        #expect(try row() == [[.null, .integer(3), .integer(2)]])
        let toMany = portalError { try model.write { ctx in try ctx.update("ICFolder", set: ["notes": 1]) } }
        #expect(toMany?.kind == .misuse && toMany?.message.contains("AttributeAssignment.rows") == true, "\(String(describing: toMany))")
        #expect(try row() == [[.null, .integer(3), .integer(2)]])
    }

    /// Deleting an asset fires Core Data's triggers on its table: the delete is refused, and
    /// nothing changes. Moment.assets nullifies the assets' key to the moment, an update that
    /// fires none of them: that delete goes through.
    @Test func aDeleteThatWouldFireCoreDataTriggersIsRefused() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.photos, folder)
        let moment = try #require(try keys(raw, "SELECT ZMOMENT FROM ZGENERICASSET WHERE ZMOMENT IS NOT NULL").first)
        let before = try scalar(raw, "SELECT (SELECT count(*) FROM ZGENERICASSET) + (SELECT count(ZMOMENT) FROM ZGENERICASSET)")
        let error = portalError { try model.write { ctx in try ctx.delete("GenericAsset", where: "SELF == 1") } }
        #expect(error?.kind == .notWritable && error?.message.contains("Core Data's own SQL functions") == true, "\(String(describing: error))")
        #expect(try scalar(raw, "SELECT (SELECT count(*) FROM ZGENERICASSET) + (SELECT count(ZMOMENT) FROM ZGENERICASSET)") == before)
        #expect(try model.write { ctx in try ctx.delete("Moment", where: "SELF == \(moment)") } == 1)
        #expect(try scalar(raw, "SELECT count(*) FROM ZGENERICASSET WHERE ZMOMENT = \(moment)") == .integer(0))
    }

    /// A row whose Z_ENT is no entity of the model has unknown relationships: its delete is
    /// refused, naming it, rather than leaving links to it behind.
    @Test func aRowOfAnUnknownEntityIsNotDeleted() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try writable(.monterey, folder)
        try raw.write { ctx in try ctx.execute("UPDATE ZICCLOUDSYNCINGOBJECT SET Z_ENT = 99 WHERE Z_PK = 12") }
        let rows = try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT")
        let error = portalError { try model.write { ctx in try ctx.delete("ICCloudSyncingObject", where: "SELF == 12") } }
        #expect(error?.kind == .notWritable && error?.message.contains("row 12 has Z_ENT 99, which is no entity of the model") == true,
                "\(String(describing: error))")
        #expect(try scalar(raw, "SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT") == rows)
    }

    /// Which statements fire a trigger, read from its SQL (a name may hold any of the words).
    @Test func triggerEventsAreReadFromTheirSQL() {
        let insert = CoreDataTrigger(name: "T_UPDATE_X", sql: "CREATE TRIGGER T_UPDATE_X AFTER INSERT ON ZA FOR EACH ROW BEGIN SELECT 1; END")
        #expect(insert.event == .insert)
        let update = CoreDataTrigger(name: "t", sql: #"create trigger t after update of "zHidden", ZTRASHED on ZA begin select 1; end"#)
        #expect(update.fires(on: .update(["ZHIDDEN", "Z_OPT"])) && !update.fires(on: .update(["ZFAVORITE", "Z_OPT"])))
        #expect(!update.fires(on: .insert) && !update.fires(on: .delete))
        let any = CoreDataTrigger(name: "u", sql: "CREATE TRIGGER u BEFORE UPDATE ON ZA BEGIN SELECT 1; END")
        #expect(any.fires(on: .update(["Z_OPT"])))
        let delete = CoreDataTrigger(name: "d", sql: "CREATE TRIGGER d INSTEAD OF DELETE ON V BEGIN SELECT 1; END")
        #expect(delete.fires(on: .delete) && !delete.fires(on: .update(nil)))
    }

    @Test func relationshipValuesAreIdsOrNil() throws {
        #expect(try AttributeAssignment.rowIDs("3") == [3])
        #expect(try AttributeAssignment.rowIDs("{1, 2}") == [1, 2])
        #expect(try AttributeAssignment.rowIDs("nil") == [])
        #expect(try AttributeAssignment.rowIDs("{}") == [])
        for bad in ["'x'", "{1, nil}", "1 +", "title"] {
            #expect(portalError { try AttributeAssignment.rowIDs(bad) }?.kind == .misuse, "\(bad)")
        }
    }
}
