import Foundation
import PortalEngine
import PortalSQLite
import Testing
@testable import PortalTUI

/// The browser's status line says what a trigger or a STRICT table refused, in SQLite's words.
@Suite struct RefusedEditMessageTests {
    @Test func aStrictTablesTypeErrorShowsInTheStatusLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strict-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try Store(path: directory.appendingPathComponent("strict.sqlite").path, options: StoreOptions(create: true))
        try store.write { context in
            try context.execute("CREATE TABLE amount (id INTEGER PRIMARY KEY, value INTEGER) STRICT")
            try context.execute("INSERT INTO amount VALUES (1, 10)")
        }
        let model = BrowserModel(source: EngineDataSource(store: store), width: 100, height: 12, readOnly: false)
        try model.start(entity: "amount", filter: nil)
        model.handle(.right)
        model.handle(.character("e"))
        for _ in 0..<2 { model.handle(.backspace) }
        for character in "ten" { model.handle(.character(character)) }
        model.handle(.enter)
        #expect(model.statusIsError)
        #expect(model.status == "not saved: cannot store TEXT value in INTEGER column amount.value")
        #expect(try store.read { try $0.query("SELECT value FROM amount").rows[0].values } == [.integer(10)])
    }
}
