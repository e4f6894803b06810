import Foundation
@testable import PortalEngine
@testable import PortalSQLite
// The seeded generator and the shared predicate cases, for every file of these tests.
@_exported import DifferentialSupport

/// A fresh temporary folder, removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("portal-engine-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// The Chinook database shipped with the project in Tests/Fixtures (read-only: copy it before writing).
let chinookPath: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/chinook/Chinook_Sqlite.sqlite").path

/// A store on a new file in `folder` with a `User` table.
func makeUserStore(in folder: TemporaryFolder, name: String = "users.sqlite") throws -> Store {
    let store = try Store(path: folder.path(name))
    try store.write { ctx in
        try ctx.execute("""
            CREATE TABLE User (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, age INTEGER CHECK (age >= 0));
            """)
    }
    return store
}

/// Expects `body` to throw a PortalError and returns it.
func portalError<T>(_ body: () throws -> T) -> PortalError? {
    do {
        _ = try body()
        return nil
    } catch let error as PortalError {
        return error
    } catch {
        return nil
    }
}
