import Foundation
@testable import PortalCoreData
import PortalPredicate
import Testing
@testable import PortalEngine

/// Core Data keeps both sides of a relationship: a one-to-one's column on each side, and the
/// `Z_OPT` of every row whose side of a relationship changed. Checked by SQL written against the
/// raw tables, independently of the writes' own code.
@Suite struct CoreDataBothSidesTests {
    let states = "ZICCLOUDSTATE", objects = "ZICCLOUDSYNCINGOBJECT"

    func scalar(_ raw: Store, _ sql: String) throws -> Value? {
        try raw.read { ctx in try ctx.query(sql).rows.first?.value(at: 0) }
    }

    /// Pairs whose two columns disagree, and columns that name a row that is not there.
    func inconsistencies(_ raw: Store) throws -> Value? {
        try scalar(raw, """
            SELECT (SELECT count(*) FROM \(states) s JOIN \(objects) o ON o.Z_PK = s.ZCLOUDSYNCINGOBJECT
                    WHERE o.ZCLOUDSTATE IS NOT s.Z_PK)
                 + (SELECT count(*) FROM \(objects) o JOIN \(states) s ON s.Z_PK = o.ZCLOUDSTATE
                    WHERE s.ZCLOUDSYNCINGOBJECT IS NOT o.Z_PK)
                 + (SELECT count(*) FROM \(objects) WHERE ZCLOUDSTATE NOT IN (SELECT Z_PK FROM \(states)))
                 + (SELECT count(*) FROM \(states) WHERE ZCLOUDSYNCINGOBJECT NOT IN (SELECT Z_PK FROM \(objects)))
            """)
    }

    @Test func aOneToOneKeepsBothColumns() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.monterey, folder)
        let row = { (sql: String) in try raw.read { ctx in try ctx.query(sql).rows.map(\.values) } }
        try model.write { try $0.update("ICCloudState", [.rows("cloudSyncingObject", [12])], where: .id([.integer(1)])) }
        #expect(try row("SELECT ZCLOUDSTATE FROM \(objects) WHERE Z_PK = 12") == [[.integer(1)]])
        // From the other side: state 1 lets go of object 12, state 2 takes it.
        try model.write { try $0.update("ICCloudSyncingObject", [.rows("cloudState", [2])], where: .id([.integer(12)])) }
        #expect(try row("SELECT Z_PK, ZCLOUDSYNCINGOBJECT FROM \(states) WHERE Z_PK IN (1, 2) ORDER BY Z_PK")
                == [[.integer(1), .null], [.integer(2), .integer(12)]])
        // A delete (the rule is Nullify) clears the partner's column.
        try model.write { try $0.delete("ICCloudState", where: .id([.integer(2)])) }
        #expect(try row("SELECT ZCLOUDSTATE FROM \(objects) WHERE Z_PK = 12") == [[.null]])
    }

    /// From a consistent start, a seeded run of random writes from either side leaves every pair
    /// consistent.
    @Test func randomWritesFromEitherSideLeaveEveryPairConsistent() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.monterey, folder)
        try raw.write { ctx in
            try ctx.execute("UPDATE \(states) SET ZCLOUDSYNCINGOBJECT = (SELECT min(o.Z_PK) FROM \(objects) o WHERE o.ZCLOUDSTATE = \(states).Z_PK)")
        }
        #expect(try inconsistencies(raw) == .integer(0))
        let stateKeys = try raw.read { try $0.query("SELECT Z_PK FROM \(states)").rows.compactMap(\.firstInteger) }
        let objectKeys = try raw.read { try $0.query("SELECT Z_PK FROM \(objects)").rows.compactMap(\.firstInteger) }
        var random = SplitMix64(seed: 7)
        var live = stateKeys
        for _ in 0..<60 {
            let state = live[Int(random.next() % UInt64(live.count))]
            let object = objectKeys[Int(random.next() % UInt64(objectKeys.count))]
            try model.write { ctx in
                switch random.next() % 5 {
                case 0: try ctx.update("ICCloudState", [.rows("cloudSyncingObject", [object])], where: .id([.integer(state)]))
                case 1: try ctx.update("ICCloudSyncingObject", [.rows("cloudState", [state])], where: .id([.integer(object)]))
                case 2: try ctx.update("ICCloudState", [.rows("cloudSyncingObject", [])], where: .id([.integer(state)]))
                case 3: try ctx.update("ICCloudSyncingObject", [.rows("cloudState", [])], where: .id([.integer(object)]))
                default:
                    if live.count > 3 {
                        try ctx.delete("ICCloudState", where: .id([.integer(state)]))
                        live.removeAll { $0 == state }
                    }
                }
            }
        }
        #expect(try inconsistencies(raw) == .integer(0))
    }

    /// Moving a note to another folder changes both folders' notes: each folder's Z_OPT goes
    /// up, as Core Data's save of the three objects does.
    @Test func aRelationshipChangeMarksTheRowsOnTheOtherSide() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.monterey, folder)
        let opt = { (key: Int) in try self.scalar(raw, "SELECT Z_OPT FROM \(self.objects) WHERE Z_PK = \(key)") }
        let (note, from, to) = (19, 2, 4)
        #expect(try scalar(raw, "SELECT ZFOLDER FROM \(objects) WHERE Z_PK = \(note)") == .integer(Int64(from)))
        let before = try [note, from, to].map(opt)
        try model.write { try $0.update("ICNote", [.rows("folder", [Int64(to)])], where: .id([.integer(Int64(note))])) }
        let after = try [note, from, to].map(opt)
        for (b, a) in zip(before, after) {
            guard case .integer(let b)? = b, case .integer(let a)? = a else { Issue.record("no Z_OPT"); return }
            #expect(a == b + 1)
        }
    }

    // MARK: Every relationship of the Photos store's albums, after a run of random writes

    /// Each album's, folder's and album list's relationships as the raw tables hold them, by
    /// `Z_PK` (`Z_OPT` apart): its folder and place there, its ordered assets, its album lists,
    /// its ordered children; an album list's ordered albums. Written against the tables, not
    /// through the model.
    static let albumSides = """
        SELECT 'album ' || a.Z_PK, a.Z_OPT, coalesce(a.ZPARENTFOLDER, '-') || '@' || coalesce(a.Z_FOK_PARENTFOLDER, '-')
            || ' assets ' || coalesce((SELECT group_concat(Z_34ASSETS) FROM (SELECT Z_34ASSETS FROM Z_26ASSETS
                                       WHERE Z_26ALBUMS = a.Z_PK ORDER BY Z_FOK_34ASSETS)), '')
            || ' lists ' || coalesce((SELECT group_concat(Z_3ALBUMLISTS) FROM (SELECT Z_3ALBUMLISTS FROM Z_25ALBUMLISTS
                                      WHERE Z_25ALBUMS = a.Z_PK ORDER BY Z_3ALBUMLISTS)), '')
            || ' children ' || coalesce((SELECT group_concat(Z_PK) FROM (SELECT Z_PK FROM ZGENERICALBUM c
                                         WHERE c.ZPARENTFOLDER = a.Z_PK ORDER BY c.Z_FOK_PARENTFOLDER)), '')
        FROM ZGENERICALBUM a
        UNION ALL
        SELECT 'list ' || l.Z_PK, l.Z_OPT, coalesce((SELECT group_concat(Z_25ALBUMS) FROM (SELECT Z_25ALBUMS FROM Z_25ALBUMLISTS
                                                    WHERE Z_3ALBUMLISTS = l.Z_PK ORDER BY Z_FOK_25ALBUMS)), '')
        FROM ZALBUMLIST l
        """

    /// Every broken rule of the store's bookkeeping, by name: links to rows that are not there
    /// or not of the destination entity, ordered sets with a missing or repeated key, a position
    /// without a folder, a Z_MAX below its table's greatest Z_PK.
    static let bookkeepingBreaks = """
        SELECT 'folder of album ' || Z_PK FROM ZGENERICALBUM a WHERE ZPARENTFOLDER IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM ZGENERICALBUM f WHERE f.Z_PK = a.ZPARENTFOLDER AND f.Z_ENT = 32)
        UNION ALL SELECT 'place without folder ' || Z_PK FROM ZGENERICALBUM WHERE (ZPARENTFOLDER IS NULL) != (Z_FOK_PARENTFOLDER IS NULL)
        UNION ALL SELECT 'repeated place in folder ' || ZPARENTFOLDER FROM ZGENERICALBUM WHERE ZPARENTFOLDER IS NOT NULL
            GROUP BY ZPARENTFOLDER, Z_FOK_PARENTFOLDER HAVING count(*) > 1
        UNION ALL SELECT 'asset join ' || Z_26ALBUMS || '-' || Z_34ASSETS FROM Z_26ASSETS j
            WHERE Z_FOK_34ASSETS IS NULL OR NOT EXISTS (SELECT 1 FROM ZGENERICALBUM WHERE Z_PK = j.Z_26ALBUMS AND Z_ENT = 26)
               OR NOT EXISTS (SELECT 1 FROM ZGENERICASSET WHERE Z_PK = j.Z_34ASSETS)
        UNION ALL SELECT 'repeated place in album ' || Z_26ALBUMS FROM Z_26ASSETS GROUP BY Z_26ALBUMS, Z_FOK_34ASSETS HAVING count(*) > 1
        UNION ALL SELECT 'list join ' || Z_3ALBUMLISTS || '-' || Z_25ALBUMS FROM Z_25ALBUMLISTS j
            WHERE Z_FOK_25ALBUMS IS NULL OR NOT EXISTS (SELECT 1 FROM ZGENERICALBUM WHERE Z_PK = j.Z_25ALBUMS)
               OR NOT EXISTS (SELECT 1 FROM ZALBUMLIST WHERE Z_PK = j.Z_3ALBUMLISTS)
        UNION ALL SELECT 'repeated place in list ' || Z_3ALBUMLISTS FROM Z_25ALBUMLISTS GROUP BY Z_3ALBUMLISTS, Z_FOK_25ALBUMS
            HAVING count(*) > 1
        UNION ALL SELECT 'Z_MAX of GenericAlbum' FROM Z_PRIMARYKEY WHERE Z_ENT = 25 AND Z_MAX < (SELECT max(Z_PK) FROM ZGENERICALBUM)
        UNION ALL SELECT 'Z_MAX of AlbumList' FROM Z_PRIMARYKEY WHERE Z_ENT = 3 AND Z_MAX < (SELECT max(Z_PK) FROM ZALBUMLIST)
        UNION ALL SELECT 'integrity ' || integrity_check FROM pragma_integrity_check WHERE integrity_check != 'ok'
        """

    /// A seeded run of random writes to every kind of relationship of the Photos store's albums
    /// (ordered many-to-many, ordered to-many kept by the other side's column and its to-one
    /// inverse, a many-to-many whose other side is ordered), creates and deletes: after each,
    /// every row whose side of a relationship changed has a higher Z_OPT, and at the end the
    /// bookkeeping holds.
    @Test(arguments: [32, 7, 2001] as [UInt64])
    func randomRelationshipWritesKeepEveryRelationshipAndItsBookkeeping(seed: UInt64) throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.photos, folder)
        var albums = try keys(raw, "SELECT Z_PK FROM ZGENERICALBUM WHERE Z_ENT = 26")
        let folders = try keys(raw, "SELECT Z_PK FROM ZGENERICALBUM WHERE Z_ENT = 32 AND ZPARENTFOLDER IS NOT NULL")
        let lists = try keys(raw, "SELECT Z_PK FROM ZALBUMLIST"), assets = try keys(raw, "SELECT Z_PK FROM ZGENERICASSET")
        #expect(try raw.read { try $0.query(Self.bookkeepingBreaks).rows.count } == 0)
        var random = SplitMix64(seed: seed)
        let unmarked = try Self.unmarkedChanges(raw, sides: Self.albumSides, steps: 150) { step in
            let album = Self.pick(albums, &random)
            try model.write { ctx in
                switch random.next() % 7 {
                case 0: _ = try ctx.update("Album", [.rows("assets", Self.some(assets, 4, &random))], where: .id([.integer(album)]))
                case 1: _ = try ctx.update("Album", [.rows("parentFolder", random.next() % 4 == 0 ? [] : [Self.pick(folders, &random)])],
                                           where: .id([.integer(album)]))
                case 2: _ = try ctx.update("Folder", [.rows("childCollections", Self.some(albums, 3, &random))],
                                           where: .id([.integer(Self.pick(folders, &random))]))
                case 3: _ = try ctx.update("AlbumList", [.rows("albums", Self.some(albums, 4, &random))],
                                           where: .id([.integer(Self.pick(lists, &random))]))
                case 4: _ = try ctx.update("Album", [.rows("albumLists", Self.some(lists, 2, &random))], where: .id([.integer(album)]))
                case 5:
                    _ = try ctx.create("Album", ["title": .text("random \(step)")])
                    albums.append(ctx.lastInsertRowid)
                default:
                    if albums.count > 6 {
                        _ = try ctx.delete("Album", where: .id([.integer(album)]))
                        albums.removeAll { $0 == album }
                    }
                }
            }
        }
        #expect(unmarked.isEmpty, "\(unmarked)")
        #expect(try raw.read { try $0.query(Self.bookkeepingBreaks).rows.map(\.values) } == [])
    }

    // MARK: Notes and folders, cloud states, on the Notes store

    /// Each row of the Notes store's one table as its relationships stand: its folder, the notes
    /// a folder holds, its cloud state; and each cloud state's object.
    var notesSides: String { """
        SELECT 'object ' || o.Z_PK, o.Z_OPT, coalesce(o.ZFOLDER, '-') || ' notes ' || coalesce((SELECT group_concat(Z_PK) FROM
                (SELECT n.Z_PK FROM \(objects) n WHERE n.ZFOLDER = o.Z_PK AND n.Z_ENT = 11 ORDER BY n.Z_PK)), '')
            || ' state ' || coalesce(o.ZCLOUDSTATE, '-')
        FROM \(objects) o
        UNION ALL
        SELECT 'state ' || Z_PK, Z_OPT, coalesce(ZCLOUDSYNCINGOBJECT, '-') FROM \(states)
        """ }

    /// Notes moved between folders from either side, created in a folder and deleted (Nullify),
    /// and cloud states swapped between objects: every changed row marked, every link whole.
    @Test(arguments: [11, 12] as [UInt64])
    func randomNoteWritesKeepEveryRelationshipAndItsBookkeeping(seed: UInt64) throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.monterey, folder)
        try raw.write { ctx in
            try ctx.execute("UPDATE \(states) SET ZCLOUDSYNCINGOBJECT = (SELECT min(o.Z_PK) FROM \(objects) o WHERE o.ZCLOUDSTATE = \(states).Z_PK)")
        }
        var notes = try keys(raw, "SELECT Z_PK FROM \(objects) WHERE Z_ENT = 11")
        let folders = try keys(raw, "SELECT Z_PK FROM \(objects) WHERE Z_ENT = 14")
        let stateKeys = try keys(raw, "SELECT Z_PK FROM \(states)")
        var random = SplitMix64(seed: seed)
        let unmarked = try Self.unmarkedChanges(raw, sides: notesSides, steps: 100) { step in
            let note = Self.pick(notes, &random)
            let objectKeys = try keys(raw, "SELECT Z_PK FROM \(objects)")
            try model.write { ctx in
                switch random.next() % 6 {
                case 0: _ = try ctx.update("ICNote", [.rows("folder", random.next() % 5 == 0 ? [] : [Self.pick(folders, &random)])],
                                           where: .id([.integer(note)]))
                case 1: _ = try ctx.update("ICFolder", [.rows("notes", Self.some(notes, 3, &random))],
                                           where: .id([.integer(Self.pick(folders, &random))]))
                case 2: _ = try ctx.update("ICCloudState", [.rows("cloudSyncingObject", [Self.pick(objectKeys, &random)])],
                                           where: .id([.integer(Self.pick(stateKeys, &random))]))
                case 3:
                    _ = try ctx.create("ICNote", ["title": .text("random \(step)"), "folder": .integer(Self.pick(folders, &random))])
                    notes.append(ctx.lastInsertRowid)
                case 4:
                    if notes.count > 4 {
                        _ = try ctx.delete("ICNote", where: .id([.integer(note)]))
                        notes.removeAll { $0 == note }
                    }
                default: _ = try ctx.update("ICNote", [.rows("folder", [])], where: .id([.integer(note)]))
                }
            }
        }
        #expect(unmarked.isEmpty, "\(unmarked)")
        #expect(try inconsistencies(raw) == .integer(0))
        #expect(try scalar(raw, """
            SELECT (SELECT count(*) FROM \(objects) n WHERE n.ZFOLDER IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM \(objects) f WHERE f.Z_PK = n.ZFOLDER AND f.Z_ENT = 14))
                 + (SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT = 2 AND Z_MAX < (SELECT max(Z_PK) FROM \(objects)))
            """) == .integer(0))
    }

    // MARK: The run's machinery

    func keys(_ raw: Store, _ sql: String) throws -> [Int64] {
        try raw.read { try $0.query(sql).rows.compactMap(\.firstInteger) }
    }

    static func pick(_ from: [Int64], _ random: inout SplitMix64) -> Int64 { from[Int(random.next() % UInt64(from.count))] }

    /// Up to `most` distinct rows of `from`, in a random order.
    static func some(_ from: [Int64], _ most: Int, _ random: inout SplitMix64) -> [Int64] {
        var chosen: [Int64] = []
        for _ in 0..<Int(random.next() % UInt64(most + 1)) where !from.isEmpty { chosen.append(pick(from, &random)) }
        return chosen.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// Runs `write` `steps` times; after each, the rows (by `sides`: name, Z_OPT, state) whose
    /// state changed without a higher Z_OPT, in words.
    static func unmarkedChanges(_ raw: Store, sides: String, steps: Int, _ write: (Int) throws -> Void) throws -> [String] {
        let read = { () throws -> [String: (opt: Int64, state: String)] in
            try raw.read { ctx in
                var result: [String: (opt: Int64, state: String)] = [:]
                for row in try ctx.query(sides).rows {
                    guard case .text(let name)? = row.values.first, case .integer(let opt)? = row.values.dropFirst().first,
                          case .text(let state)? = row.values.last else { continue }
                    result[name] = (opt, state)
                }
                return result
            }
        }
        var unmarked: [String] = []
        for step in 0..<steps {
            let before = try read()
            try write(step)
            for (name, after) in try read() {
                guard let old = before[name], old.state != after.state, after.opt <= old.opt else { continue }
                unmarked.append("step \(step): \(name) \(old.state) → \(after.state), Z_OPT \(old.opt) → \(after.opt)")
            }
        }
        return unmarked
    }
}
