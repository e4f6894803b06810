import Foundation
@testable import PortalCoreData
import Testing
@testable import PortalEngine

/// Ordered relationships keep Core Data's order keys (`Z_FOK_…`): 1024 apart, the first at 2048;
/// an insert goes between its neighbours' keys, a move rekeys only the row moved, a remove
/// leaves the others' keys alone. Checked on the Photos store's three kinds of ordered set
/// with SQL against the raw tables.
@Suite struct CoreDataOrderedSetTests {
    @Test func orderKeys_keepTheRowsThatStayInOrder() {
        let keys = CoreDataOrderKeys.keys
        #expect(keys([5, 6, 7], [:]) == [5: 2048, 6: 3072, 7: 4096])
        let set: [Int64: Int64] = [5: 2048, 6: 3072, 7: 4096]
        #expect(keys([5, 6, 7, 8], set) == [5: 2048, 6: 3072, 7: 4096, 8: 5120])   // appended
        #expect(keys([8, 5, 6, 7], set) == [8: 1024, 5: 2048, 6: 3072, 7: 4096])   // inserted first
        #expect(keys([5, 8, 9, 6, 7], set) == [5: 2048, 8: 2389, 9: 2730, 6: 3072, 7: 4096])   // two between
        #expect(keys([7, 5, 6], set) == [7: 1024, 5: 2048, 6: 3072])   // moved: only 7 rekeyed
        #expect(keys([5, 7], set) == [5: 2048, 7: 4096])   // removed: the others keep theirs
        // No room between 1 and 2: the set is numbered afresh.
        #expect(keys([5, 8, 6], [5: 1, 6: 2]) == [5: 2048, 8: 3072, 6: 4096])
        // A damaged store's keys at the ends of the integers: numbered afresh, never a crash.
        #expect(keys([5, 6], [5: .max]) == [5: 2048, 6: 3072])
        #expect(keys([6, 5], [5: .min]) == [6: 2048, 5: 3072])
        #expect(CoreDataOrderKeys.appended(after: .max) == nil)
        // Reversed: one row keeps its key, the others go before it.
        #expect(keys([7, 6, 5], set) == [7: 682, 6: 1364, 5: 2048])
    }

    func rows(_ raw: Store, _ sql: String) throws -> [[Value]] {
        try raw.read { ctx in try ctx.query(sql).rows.map(\.values) }
    }

    /// Album 39's assets (a many-to-many ordered in its join table): insert at a position, move,
    /// remove, each through the model and read back from `Z_26ASSETS`.
    @Test func manyToMany_insertMoveRemove() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.photos, folder)
        let assets = { try self.rows(raw, "SELECT Z_34ASSETS, Z_FOK_34ASSETS FROM Z_26ASSETS WHERE Z_26ALBUMS = 39 ORDER BY Z_FOK_34ASSETS") }
        let set = { (keys: [Int64]) in try model.write { _ = try $0.update("Album", [.rows("assets", keys)], where: .id([.integer(39)])) } }
        #expect(try assets() == [[4, 2048], [2, 3072]].map { $0.map { .integer(Int64($0)) } })
        try set([4, 1, 2])   // 1 inserted between 4 and 2
        #expect(try assets() == [[4, 2048], [1, 2560], [2, 3072]].map { $0.map { .integer(Int64($0)) } })
        try set([2, 4, 1])   // 2 moved to the front
        #expect(try assets() == [[2, 1024], [4, 2048], [1, 2560]].map { $0.map { .integer(Int64($0)) } })
        try set([2, 1])   // 4 removed
        #expect(try assets() == [[2, 1024], [1, 2560]].map { $0.map { .integer(Int64($0)) } })
        try set([2, 1, 3])   // appended
        #expect(try assets() == [[2, 1024], [1, 2560], [3, 3584]].map { $0.map { .integer(Int64($0)) } })
        // Album 41's set is untouched throughout.
        #expect(try rows(raw, "SELECT Z_34ASSETS, Z_FOK_34ASSETS FROM Z_26ASSETS WHERE Z_26ALBUMS = 41") == [[.integer(1), .integer(2048)]])
    }

    /// Folder 40's child collections (ordered by `Z_FOK_PARENTFOLDER` in the albums' own rows):
    /// an album moved in goes where it is put; the rows that keep their key are not written.
    @Test func toManyKeptByTheirColumn_insertMoveRemove() throws {
        let folder = try TemporaryFolder()
        let (model, raw) = try CoreDataWriteTests().writable(.photos, folder)
        let children = { try self.rows(raw, "SELECT Z_PK, Z_FOK_PARENTFOLDER FROM ZGENERICALBUM WHERE ZPARENTFOLDER = 40 ORDER BY Z_FOK_PARENTFOLDER") }
        let opt = { (key: Int64) in try self.rows(raw, "SELECT Z_OPT FROM ZGENERICALBUM WHERE Z_PK = \(key)").first?.first }
        let set = { (keys: [Int64]) in
            try model.write { _ = try $0.update("Folder", [.rows("childCollections", keys)], where: .id([.integer(40)])) }
        }
        #expect(try children() == [[.integer(39), .integer(2048)]])
        let optOf39 = try opt(39)
        try set([41, 39])   // 41 (from folder 19) inserted before 39
        #expect(try children() == [[.integer(41), .integer(1024)], [.integer(39), .integer(2048)]])
        #expect(try opt(39) == optOf39)   // not written: same folder, same key
        try set([41, 39, 45])   // 45 appended
        #expect(try children() == [[.integer(41), .integer(1024)], [.integer(39), .integer(2048)], [.integer(45), .integer(3072)]])
        try set([39, 45, 41])   // 41 moved to the end: the only row rekeyed
        #expect(try children() == [[.integer(39), .integer(2048)], [.integer(45), .integer(3072)], [.integer(41), .integer(4096)]])
        try set([39, 41])   // 45 removed: it lets go of folder and key
        #expect(try children() == [[.integer(39), .integer(2048)], [.integer(41), .integer(4096)]])
        #expect(try rows(raw, "SELECT ZPARENTFOLDER, Z_FOK_PARENTFOLDER FROM ZGENERICALBUM WHERE Z_PK = 45") == [[.null, .null]])
        // Set from the album's side, the album goes last in its new folder's set.
        try model.write { _ = try $0.update("Album", [.rows("parentFolder", [40])], where: .id([.integer(45)])) }
        #expect(try children().last == [.integer(45), .integer(5120)])
        // Set again to the same folder, it keeps its place.
        try model.write { _ = try $0.update("Album", [.rows("parentFolder", [40])], where: .id([.integer(39)])) }
        #expect(try children().first == [.integer(39), .integer(2048)])
    }
}
