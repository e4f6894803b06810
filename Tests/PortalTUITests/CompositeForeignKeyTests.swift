import Foundation
import PortalEngine
import PortalSQLite
import Testing
@testable import PortalTUI

/// `f` on a column of a composite foreign key follows it on all its columns.
@Suite struct CompositeForeignKeyTests {
    @Test func fFollowsACompositeForeignKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try Store(path: directory.appendingPathComponent("fk.sqlite").path, options: StoreOptions(create: true))
        try store.write { context in
            try context.execute("CREATE TABLE extent (auth_name TEXT NOT NULL, code TEXT NOT NULL, name TEXT, PRIMARY KEY (auth_name, code))")
            try context.execute("INSERT INTO extent VALUES ('EPSG', '1262', 'World'), ('EPSG', '3', 'Europe'), ('ESRI', '1262', 'Other')")
            try context.execute("""
                CREATE TABLE usage (id INTEGER PRIMARY KEY, extent_auth_name TEXT, extent_code TEXT,
                  FOREIGN KEY (extent_auth_name, extent_code) REFERENCES extent (auth_name, code))
                """)
            try context.execute("INSERT INTO usage VALUES (1, 'EPSG', '1262')")
        }
        let model = BrowserModel(source: EngineDataSource(store: store), width: 100, height: 12, readOnly: false)
        try model.start(entity: "usage", filter: nil)
        model.handle(.right)
        model.handle(.right)
        model.handle(.character("f"))
        #expect(!model.statusIsError, "\(model.status)")
        #expect(model.entity?.name == "extent")
        #expect(model.rows.map { $0.values[2] } == [.text("World")])
    }
}
