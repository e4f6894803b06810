import Foundation
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
}
