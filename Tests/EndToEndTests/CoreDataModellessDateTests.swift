import Foundation
import PortalCoreData
import Testing

/// A Core Data store that keeps no model (older frameworks, or a cache that was removed) still
/// keeps its dates in `TIMESTAMP` columns as seconds since 2001: they compare, show and are
/// written as dates, as with a model.
@Suite struct CoreDataModellessDateTests {
    let store: String

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("modelless-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = folder.appendingPathComponent("NoteStore.sqlite").path
        try FileManager.default.copyItem(atPath: CoreDataShellTests.fixtures.appendingPathComponent("NoteStore-macOS-12-Monterey.sqlite").path,
                                         toPath: store)
        _ = try Spawn.run("/usr/bin/env", ["sqlite3", store, "DROP TABLE Z_MODELCACHE"])
    }

    func sqlite(_ sql: String) throws -> String {
        try Spawn.run("/usr/bin/env", ["sqlite3", store, sql]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func datesAreSecondsSince2001() throws {
        // 2022-01-01 is 662688000 seconds after 2001-01-01 (1640995200 Unix seconds).
        let expected = try sqlite("SELECT count(*) FROM ZICCLOUDSYNCINGOBJECT WHERE ZCREATIONDATE > 662688000")
        #expect(expected != "0")
        let counted = try Shell.run([store, "-e", #"count ICCloudSyncingObject where creationdate > CAST("2022-01-01", "NSDate")"#])
        #expect(counted.status == 0 && counted.stdout == expected + "\n", "\(counted.stderr)")
        let dated = try sqlite("SELECT min(Z_PK) FROM ZICCLOUDSYNCINGOBJECT WHERE ZCREATIONDATE IS NOT NULL")
        let shown = try Shell.run([store, "--format", "csv", "--no-header", "-e",
                                   "find ICCloudSyncingObject select creationdate where SELF == \(dated)"])
        let stored = try sqlite("SELECT datetime(ZCREATIONDATE + 978307200, 'unixepoch') FROM ZICCLOUDSYNCINGOBJECT WHERE Z_PK = \(dated)")
        #expect(!stored.isEmpty && shown.stdout.hasPrefix(stored), "\(shown.stdout) against \(stored)")
        let updated = try Shell.run([store, "-e", #"update ICCloudSyncingObject set creationdate = "2020-01-01" where SELF == 2"#])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(try sqlite("SELECT ZCREATIONDATE, typeof(ZCREATIONDATE) FROM ZICCLOUDSYNCINGOBJECT WHERE Z_PK = 2") == "599529600|integer")
    }
}
