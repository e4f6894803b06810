import Foundation
import PortalCoreData
import PortalEngine
import PortalSQLite
import Testing
@testable import PortalTUI

/// A fresh copy of Chinook in a temporary folder, opened as a store.
final class ChinookCopy {
    static var original: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/chinook/Chinook_Sqlite.sqlite").path
    }

    let directory: URL
    let path: String
    let store: Store

    init(readOnly: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("chinook.sqlite").path
        try FileManager.default.copyItem(atPath: Self.original, toPath: path)
        store = try Store(path: path, options: StoreOptions(readOnly: readOnly))
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    func model(_ entity: String, height: Int = 12, readOnly: Bool = false) throws -> BrowserModel {
        let model = BrowserModel(source: EngineDataSource(store: store), width: 100, height: height, readOnly: readOnly)
        try model.start(entity: entity, filter: nil)
        model.runPendingCounts()
        return model
    }

    /// The first column of every row of raw SQL, as the oracle for paging.
    func column(_ sql: String) throws -> [Value] {
        try rows(sql).map { $0[0] }
    }

    /// Every row of raw SQL as its values (streamed: each row copied as it comes).
    func rows(_ sql: String) throws -> [[Value]] {
        var rows: [[Value]] = []
        try store.read { context in
            try context.stream(sql) { rows.append($0.values) }
        }
        return rows
    }
}

@Suite(.serialized) struct EngineDataSourceTests {
    @Test func opensTrackAndJumpsToTheEnd() throws {
        let db = try ChinookCopy()
        let model = try db.model("Track")
        #expect(model.count == .exact(3503))
        #expect(model.rows.map { $0.values[0] } == (1...9).map { Value.integer($0) })
        model.handle(.character("G"))
        #expect(model.currentRow?.values[0] == .integer(3503))
        #expect(model.rows.first?.values[0] == .integer(3495))
        model.handle(.character("g"))
        #expect(model.currentRow?.values[0] == .integer(1))
        #expect(model.screen.text.contains("For Those About To Rock"))
    }

    @Test func pagingForwardAndBackwardMatchesSQLOrder() throws {
        let db = try ChinookCopy()
        let model = try db.model("Track", height: 40)
        // Composer has NULLs: ascending puts them first, descending last, ties broken by TrackId.
        for (key, order) in [("s", "Composer ASC, TrackId ASC"), ("S", "Composer DESC, TrackId ASC")] {
            model.handle(.home)
            model.handle(.resize(width: 100, height: 40))
            while model.cursorColumn < 5 { model.handle(.right) }
            #expect(model.entity?.columns[model.cursorColumn].name == "Composer")
            model.handle(.character(Character(key)))
            let expected = try db.column("SELECT TrackId FROM Track ORDER BY \(order)")
            let forward = pagedIDs(model, forward: true)
            #expect(forward == expected)
            let backward = pagedIDs(model, forward: false)
            #expect(backward == expected)
            model.handle(.character(Character(key)))   // clear
        }
    }

    /// Pages through the whole entity by key, collecting each row's id once.
    func pagedIDs(_ model: BrowserModel, forward: Bool) -> [Value] {
        model.handle(forward ? .home : .end)
        var ids = model.rows.map { $0.id[0] }
        var seen = Set(ids)
        while true {
            let edge = forward ? model.rows.last?.id : model.rows.first?.id
            model.handle(forward ? .pageDown : .pageUp)
            if (forward ? model.rows.last?.id : model.rows.first?.id) == edge { break }
            let page = model.rows.map { $0.id[0] }.filter { !seen.contains($0) }
            seen.formUnion(page)
            ids = forward ? ids + page : page + ids
        }
        return ids
    }

    @Test func compositeKeysPageCompletely() throws {
        let db = try ChinookCopy()
        let model = try db.model("PlaylistTrack", height: 200)
        #expect(model.entity?.idColumns == ["PlaylistId", "TrackId"])
        model.handle(.home)
        var all = model.rows.map(\.id)
        while true {
            let edge = model.rows.last?.id
            model.handle(.pageDown)
            if model.rows.last?.id == edge { break }
            all += model.rows.map(\.id).filter { !all.suffix(model.rows.count).contains($0) }
        }
        let expected = try db.rows("SELECT PlaylistId, TrackId FROM PlaylistTrack ORDER BY 1, 2")
        #expect(all == expected)
    }

    @Test func filtersValidAndInvalid() throws {
        let db = try ChinookCopy()
        let model = try db.model("Track")
        model.handle(.character("/"))
        model.type("Nmae == \"x\"")
        guard case .filter(_, let error?) = model.mode else {
            Issue.record("expected an error for an unknown attribute")
            return
        }
        #expect(error.message.contains("Nmae"))
        #expect(error.range == 0..<4)
        for _ in 0..<11 { model.handle(.backspace) }
        model.type("Composer BEGINSWITH \"Ang\"")
        if case .filter(_, let error) = model.mode { #expect(error == nil) }
        model.press(.enter)
        let expected = try db.column("SELECT count(*) FROM Track WHERE Composer LIKE 'Ang%'")
        #expect(model.count.map { Value.integer(Int64($0.label) ?? -1) } == expected.first)
        #expect(model.rows.allSatisfy { row in
            if case .text(let s) = row.values[5] { return s.hasPrefix("Ang") }
            return false
        })
    }

    /// A filter's error is the browser's one error type: the predicate's words, where in the
    /// filter they point, and the engine's error behind them.
    @Test func aFilterErrorWrapsTheEngineErrorWithItsRange() throws {
        let db = try ChinookCopy()
        let source = EngineDataSource(store: db.store)
        let error = try #require(source.validate(entity: "Track", filter: "GenreId == 1 AND Nmae == 'x'"))
        #expect(error.range == 17..<21)
        #expect(error.cause?.kind == .predicate)
        #expect(error.cause?.predicateError?.kind == .unknownName)
        #expect(error.message == error.cause?.predicateError?.description)
        // Refused before the screen opens, it keeps its place in the filter.
        let model = BrowserModel(source: source, width: 100, height: 12)
        #expect(throws: BrowserError("invalid filter: " + error.message, range: 17..<21, cause: error.cause)) {
            try model.start(entity: "Track", filter: "GenreId == 1 AND Nmae == 'x'")
        }
    }

    /// Whatever fails is reported as a `BrowserError`: an engine error in its own words, kept
    /// with its kind and code.
    @Test func anEngineErrorIsReportedInItsWordsWithItsCode() {
        var engine = PortalError(.constraint(.unique), "UNIQUE constraint failed: Artist.Name")
        engine.sqliteCode = SQLiteCode.constraintUnique
        let error = BrowserError.from(engine)
        #expect(error.message == engine.description && error.cause == engine && error.range == nil)
        #expect(BrowserError.from(error) == error)
    }

    /// The filter line takes a Swift closure as the shell does, with the error's place in it.
    @Test func filtersTakeSwiftClosures() throws {
        let db = try ChinookCopy()
        let model = try db.model("Track")
        model.handle(.character("/"))
        model.type("{ $0.Composr != nil }")
        guard case .filter(_, let error?) = model.mode else {
            Issue.record("expected an error for an unknown attribute")
            return
        }
        #expect(error.range == 5..<12)
        for _ in 0..<21 { model.handle(.backspace) }
        model.type(#"{ $0.Composer?.starts(with: "Ang") == true }"#)
        if case .filter(_, let error) = model.mode { #expect(error == nil) }
        model.press(.enter)
        let expected = try db.column("SELECT count(*) FROM Track WHERE Composer LIKE 'Ang%'")
        #expect(model.count.map { Value.integer(Int64($0.label) ?? -1) } == expected.first)
    }

    /// Realm's SORT and LIMIT would be ignored by the grid, which pages through every match in
    /// its own order: the filter line refuses them, pointing at the clause, and applies nothing.
    @Test func sortAndLimitClausesAreRefusedWithTheirPosition() throws {
        let db = try ChinookCopy()
        let source = EngineDataSource(store: db.store)
        let cases: [(String, Int)] = [
            ("Name BEGINSWITH \"sort\" SORT(Name DESC)", 23),
            ("Milliseconds > 1 limit(3)", 17),
            ("GenreId == 1 SORT(Name ASC) LIMIT(5)", 13),
        ]
        for (filter, start) in cases {
            let error = source.validate(entity: "Track", filter: filter)
            #expect(error?.message.contains("press s or S") == true, "\(filter)")
            #expect(error?.range == start..<filter.count, "\(filter)")
        }
        let model = try db.model("Track")
        model.handle(.character("/"))
        model.type("GenreId == 1 LIMIT(2)")
        model.press(.enter)
        guard case .filter(_, let error?) = model.mode else {
            Issue.record("Enter applied a filter with LIMIT")
            return
        }
        #expect(error.message.contains("LIMIT"))
        #expect(model.filter == "")
        #expect(model.count == .exact(3503))
    }

    @Test func editAddDeleteAndUndoReachTheFile() throws {
        let db = try ChinookCopy()
        let model = try db.model("Artist")
        model.press(.right, .character("e"), .control("u"))
        model.type("AC/DC (edited)")
        model.press(.enter)
        #expect(try db.column("SELECT Name FROM Artist WHERE ArtistId = 1") == [.text("AC/DC (edited)")])
        model.press(.character("u"))
        #expect(try db.column("SELECT Name FROM Artist WHERE ArtistId = 1") == [.text("AC/DC")])

        model.press(.character("a"), .down)
        model.type("Nouvel Artiste")
        model.press(.enter)
        #expect(model.currentRow?.values[1] == .text("Nouvel Artiste"))
        #expect(try db.column("SELECT count(*) FROM Artist") == [.integer(276)])
        #expect(model.count == .exact(276))

        model.press(.character("d"), .character("y"))
        #expect(try db.column("SELECT count(*) FROM Artist WHERE Name = 'Nouvel Artiste'") == [.integer(0)])
        model.press(.character("u"))
        #expect(try db.column("SELECT count(*) FROM Artist WHERE Name = 'Nouvel Artiste'") == [.integer(1)])
        model.press(.character("u"))
        #expect(try db.column("SELECT count(*) FROM Artist") == [.integer(275)])
    }

    /// A table whose AFTER UPDATE and AFTER DELETE triggers write another table (as every
    /// GeoPackage layer's do) is edited and deleted from like any other.
    @Test func editsAndDeletesOnATableWithAfterTriggers() throws {
        let db = try ChinookCopy()
        try db.store.write { ctx in
            try ctx.execute("""
                CREATE TABLE Audit (what TEXT);
                INSERT INTO Artist (ArtistId, Name) VALUES (276, 'Nobody');
                CREATE TRIGGER ArtistUpdated AFTER UPDATE ON Artist BEGIN INSERT INTO Audit VALUES ('u ' || new.ArtistId); END;
                CREATE TRIGGER ArtistDeleted AFTER DELETE ON Artist BEGIN INSERT INTO Audit VALUES ('d ' || old.ArtistId); END;
                """)
        }
        let model = try db.model("Artist")
        model.press(.right, .character("e"), .control("u"))
        model.type("AC/DC (edited)")
        model.press(.enter)
        #expect(try db.column("SELECT Name FROM Artist WHERE ArtistId = 1") == [.text("AC/DC (edited)")])
        model.press(.character("G"), .character("d"), .character("y"))
        #expect(try db.column("SELECT count(*) FROM Artist WHERE ArtistId = 276") == [.integer(0)])
        #expect(try db.column("SELECT what FROM Audit") == [.text("u 1"), .text("d 276")])
    }

    @Test func aConstraintViolationShowsWhyAndChangesNothing() throws {
        let db = try ChinookCopy()
        let model = try db.model("Album")
        let before = model.screen.text
        // Artist 1 has albums: the foreign key forbids deleting it.
        model.press(.right, .right, .character("e"), .control("u"))
        model.type("999999")
        model.press(.enter)
        #expect(model.statusIsError)
        #expect(model.status.lowercased().contains("foreign key"))
        #expect(try db.column("SELECT ArtistId FROM Album WHERE AlbumId = 1") == [.integer(1)])
        model.press(.escape)
        #expect(model.screen.text.split(separator: "\n").dropLast() == before.split(separator: "\n").dropLast())
    }

    @Test func followsTheArtistOfAnAlbumAndReturns() throws {
        let db = try ChinookCopy()
        let model = try db.model("Album")
        model.press(.down, .right, .right, .character("f"))
        #expect(model.entity?.name == "Artist")
        #expect(model.rows.count == 1)
        #expect(model.currentRow?.values == [.integer(2), .text("Accept")])
        model.press(.backspace)
        #expect(model.entity?.name == "Album")
        #expect(model.currentRow?.values[0] == .integer(2))
    }

    /// The filter that `f` writes goes through the predicate printer: a key column named like a
    /// reserved word, and a value with quotes, a tab and a control character, still select it.
    @Test func followsAKeyIntoAReservedWordColumnWithAnAwkwardValue() throws {
        let db = try ChinookCopy()
        let awkward = "a \"quoted\"\tone\u{1}"
        try db.store.write { context in
            _ = try context.execute(#"CREATE TABLE Kind ("Size" TEXT PRIMARY KEY, note TEXT)"#)
            _ = try context.execute(#"CREATE TABLE Item (id INTEGER PRIMARY KEY, kindSize TEXT REFERENCES Kind("Size"))"#)
            _ = try context.execute("INSERT INTO Kind VALUES (?, 'the one'), ('other', 'not this')", [.text(awkward)])
            _ = try context.execute("INSERT INTO Item VALUES (1, ?)", [.text(awkward)])
        }
        let model = try db.model("Item")
        model.press(.right, .character("f"))
        #expect(model.entity?.name == "Kind")
        #expect(model.rows.count == 1)
        #expect(model.currentRow?.values == [.text(awkward), .text("the one")])
    }

    @Test func anotherConnectionsWriteAppearsOnTick() throws {
        let db = try ChinookCopy()
        let model = try db.model("Genre")
        model.press(.down)
        let other = try Store(path: db.path)
        defer { try? other.close() }
        try other.write { _ = try $0.execute("UPDATE Genre SET Name = 'Changed Elsewhere' WHERE GenreId = 1") }
        model.press(.tick)
        #expect(model.screen.text.contains("Changed Elsewhere"))
        #expect(model.currentRow?.values[0] == .integer(2))
    }

    /// The refresh token moves on with every commit made by another connection, whether the
    /// file is in rollback-journal mode (the database file changes) or in WAL mode (the WAL file
    /// does), and when the file switches from one mode to the other.
    @Test func changeTokenMovesOnWithEveryCommitInBothJournalModes() throws {
        let db = try ChinookCopy(readOnly: true)   // a read-only store leaves the journal mode alone
        let source = EngineDataSource(store: db.store)
        var options = StoreOptions()
        options.switchesToWAL = false
        var writer = try Store(path: db.path, options: options)
        var seen: Set<UInt64> = [source.changeToken()]
        func commit(_ n: Int) throws {
            try writer.write { _ = try $0.execute("UPDATE Genre SET Name = ? WHERE GenreId = 1", [.text("name \(n)")]) }
            let token = source.changeToken()
            #expect(!seen.contains(token), "commit \(n) left the token as it was")
            seen.insert(token)
            #expect(source.changeToken() == token, "the token moved on without a commit")
        }
        for n in 0..<20 { try commit(n) }   // rollback journal: same size, new contents
        try writer.close()
        writer = try Store(path: db.path)   // switches the file to WAL
        #expect(FileManager.default.fileExists(atPath: db.path + "-wal"))
        for n in 20..<40 { try commit(n) }
        try writer.close()
    }

    /// Pages and filters are compiled once and reused; a schema change by anyone makes them
    /// compile again rather than run stale SQL.
    @Test func compiledPagesFollowSchemaChanges() throws {
        let db = try ChinookCopy()
        let source = EngineDataSource(store: db.store)
        let request = PageRequest(entity: "Genre", filter: "Name == \"Rock\"", sort: nil, anchor: .first, limit: 5)
        #expect(source.validate(entity: "Genre", filter: request.filter) == nil)
        #expect(try source.page(request).map(\.values) == [[.integer(1), .text("Rock")]])
        let other = try Store(path: db.path)
        defer { try? other.close() }
        try other.write { _ = try $0.execute("ALTER TABLE Genre ADD COLUMN Extra TEXT DEFAULT 'x'") }
        #expect(try source.page(request).map(\.values) == [[.integer(1), .text("Rock"), .text("x")]])
        try other.write { _ = try $0.execute("ALTER TABLE Genre RENAME COLUMN Name TO Title") }
        #expect(source.validate(entity: "Genre", filter: request.filter) != nil)
        #expect(throws: (any Error).self) { try source.page(request) }
        var renamed = request
        renamed.filter = "Title == \"Rock\""
        #expect(try source.page(renamed).map(\.values) == [[.integer(1), .text("Rock"), .text("x")]])
    }

    /// A page's rows share one buffer of values: each still reads as its own SQL row, with its
    /// own id, forward and backward, and equals (and hashes as) the same row built from an array.
    @Test func pageRowsReadAsTheirSQLRows() throws {
        let db = try ChinookCopy()
        try db.store.write { context in
            _ = try context.execute("CREATE TABLE Loose (label TEXT, n INTEGER)")
            for i in 0..<7 { _ = try context.execute("INSERT INTO Loose VALUES (?, ?)", [.text("row \(i)"), .integer(Int64(i))]) }
        }
        let source = EngineDataSource(store: db.store)
        let genres = try db.rows("SELECT * FROM Genre ORDER BY GenreId")
        let first = try source.page(PageRequest(entity: "Genre", filter: "", sort: nil, anchor: .first, limit: 5))
        #expect(first.map(\.values) == Array(genres.prefix(5)))
        #expect(first.map(\.id) == genres.prefix(5).map { [$0[0]] })
        #expect(first.map { $0.value(at: 1) } == genres.prefix(5).map { $0[1] })
        #expect(first.map(\.count) == Array(repeating: 2, count: 5))
        #expect(first[0].value(at: 2) == nil && first[0].value(at: -1) == nil)
        let built = BrowserRow(values: genres[1], idPositions: [0])
        #expect(first[1] == built && Set(first).contains(built) && first[0] != built)
        let last = try source.page(PageRequest(entity: "Genre", filter: "", sort: nil, anchor: .last, limit: 3))
        #expect(last.map(\.values) == Array(genres.suffix(3)))
        // The rowid is no column: each row keeps its own.
        let loose = try source.page(PageRequest(entity: "Loose", filter: "", sort: nil, anchor: .last, limit: 3))
        #expect(loose.map(\.id) == [[.integer(5)], [.integer(6)], [.integer(7)]])
        #expect(loose.map(\.values) == (4..<7).map { [.text("row \($0)"), .integer(Int64($0))] })
    }

    /// Every data source on one store shares what any of them compiled (a new browser on a
    /// table seen before compiles nothing); a schema change makes them all compile again, and
    /// another store keeps its own.
    @Test func dataSourcesOnOneStoreShareTheirCompiledPages() throws {
        let db = try ChinookCopy()
        let request = PageRequest(entity: "Genre", filter: "Name == \"Rock\"", sort: nil, anchor: .first, limit: 5)
        #expect(try EngineDataSource(store: db.store).page(request).map(\.values) == [[.integer(1), .text("Rock")]])
        let pages = CompiledPages.of(db.store)
        let key = CompiledPages.FilterKey(entity: "Genre", filter: request.filter)
        #expect(pages.filter(key, version: try db.store.currentSchemaVersion()) != nil)
        #expect(try EngineDataSource(store: db.store).page(request).map(\.values) == [[.integer(1), .text("Rock")]])
        let genre = try EngineDataSource(store: db.store).entities().first { $0.name == "Genre" }
        #expect(pages.entities(version: try db.store.currentSchemaVersion())?.contains { $0 == genre } == true)
        #expect(try EngineDataSource(store: db.store).entities().first { $0.name == "Genre" } == genre)
        try db.store.write { _ = try $0.execute("ALTER TABLE Genre ADD COLUMN Extra TEXT DEFAULT 'x'") }
        #expect(try EngineDataSource(store: db.store).page(request).map(\.values) == [[.integer(1), .text("Rock"), .text("x")]])
        let altered = try EngineDataSource(store: db.store).entities().first { $0.name == "Genre" }
        #expect(altered?.columns.map(\.name) == ["GenreId", "Name", "Extra"])
        let other = try Store(path: db.path)
        defer { try? other.close() }
        #expect(CompiledPages.of(other) !== pages && CompiledPages.of(other) === CompiledPages.of(other))
    }

    @Test func readOnlyStoreRefusesEdits() throws {
        let db = try ChinookCopy(readOnly: true)
        let model = try db.model("Album", readOnly: true)
        model.press(.character("e"))
        #expect(model.status.contains("read-only"))
        #expect(model.entity?.isReadOnly == true)
    }

    @Test func tablesWithoutKeysAndViewsPage() throws {
        let db = try ChinookCopy()
        try db.store.write { context in
            _ = try context.execute("CREATE TABLE Loose (label TEXT, n INTEGER)")
            _ = try context.execute("CREATE VIEW BigAlbums AS SELECT AlbumId, Title FROM Album WHERE AlbumId > 300")
            for i in 0..<25 { _ = try context.execute("INSERT INTO Loose VALUES (?, ?)", [.text("row \(i % 5)"), .integer(Int64(i))]) }
        }
        let loose = try db.model("Loose")
        #expect(loose.entity?.idColumns == ["rowid"])
        #expect(pagedIDs(loose, forward: true) == (1...25).map { Value.integer(Int64($0)) })
        let view = try db.model("BigAlbums")
        #expect(view.entity?.isReadOnly == true)
        #expect(view.count == .exact(47))
        view.handle(.character("r"))
        #expect(view.count == .exact(47), "a recount keeps the old count on screen until the new one is known")
        view.handle(.character("G"))
        #expect(view.currentRow?.values[0] == .integer(347))
        view.handle(.character("e"))
        #expect(view.status.contains("read-only"))
    }
}

/// A copy of the Core Data fixture `name` in a folder of its own, opened by its model as the
/// shell opens a store (left in its journal mode); `remove()` closes it and removes the folder.
struct CoreDataFixtureCopy {
    let store: Store
    let directory: URL

    init(_ name: String) throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/coredata/\(name)")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tui-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        var options = StoreOptions()
        options.switchesToWAL = false
        options.catalog = CoreDataStoreCatalog()
        do {
            store = try Store(path: path, options: options)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func remove() {
        try? store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A Core Data store's Transformable values in the browser's grid: decoded (the keyed archive
/// of an array of strings as `["Torrance"]`), and the filter reads the decoded text.
@Suite struct CoreDataArchivedValueBrowserTests {
    @Test func theGridShowsArchivedValuesDecoded() throws {
        let copy = try CoreDataFixtureCopy("Photos-macOS-10.15.sqlite")
        defer { copy.remove() }
        let store = copy.store
        let model = BrowserModel(source: EngineDataSource(store: store), width: 100, height: 12, readOnly: true)
        try model.start(entity: "Moment", filter: #"localizedLocationNames CONTAINS "Torr""#)
        model.runPendingCounts()
        #expect(model.rows.count == 1)
        #expect(model.rows.first?.values.contains(.text(#"["Torrance"]"#)) == true, "\(model.rows)")
    }
}

/// The browser's undo of a delete goes through the engine's restore on every store: on a Core
/// Data store, a folder whose delete cascaded to its notes comes back with them, every column
/// of every row as it was.
@Suite struct EngineDataSourceRestoreTests {
    func everything(_ store: Store, _ sql: String) throws -> [[Value]] {
        try store.read { ctx in try ctx.query(sql).rows.map(\.values) }
    }

    @Test func undoingACascadingCoreDataDeletePutsEveryRowBack() throws {
        let copy = try CoreDataFixtureCopy("NoteStore-macOS-12-Monterey.sqlite")
        defer { copy.remove() }
        let store = copy.store
        let all = "SELECT * FROM ZICCLOUDSYNCINGOBJECT ORDER BY Z_PK"
        let before = try everything(store, all)
        let model = BrowserModel(source: EngineDataSource(store: store), width: 160, height: 12, readOnly: false)
        try model.start(entity: "ICFolder", filter: #"title == "Notes""#)
        #expect(model.rows.count == 1)
        model.press(.character("d"), .character("y"))
        #expect(model.rows.isEmpty, "\(model.status)")
        #expect(try everything(store, all).count < before.count - 1)
        model.press(.character("u"))
        #expect(model.status.hasPrefix("undone: deletion in ICFolder"), "\(model.status)")
        #expect(model.rows.count == 1)
        #expect(try everything(store, all) == before)
    }
}
