import Foundation
import PortalEngine
import Testing
@testable import PortalTUI

@Suite struct NavigationTests {
    @Test func opensOnFirstPageWithCount() throws {
        let model = try makeModel()
        #expect(model.pageSize == 9)
        #expect(model.rows.count == 9)
        #expect(model.cursorID == .integer(1))
        #expect(model.count == .exact(100))
        let screen = model.screen
        #expect(screen.line(0).contains("Album  100 rows"))
        #expect(screen.line(1).hasPrefix("AlbumId Title     ArtistId"))
        #expect(screen.line(2).contains("Album 001"))
    }

    @Test func movesDownPastTheWindowByKey() throws {
        let source = makeSource()
        let model = try makeModel(source)
        for _ in 0..<12 { model.handle(.down) }
        #expect(model.cursorID == .integer(13))
        #expect(model.rows.first?.values.first == .integer(5))
        model.press(.up, .up)
        #expect(model.cursorID == .integer(11))
        // Never an offset: every request after the first is anchored on a row.
        #expect(source.pageRequests.dropFirst().allSatisfy { $0.anchor != .first })
    }

    @Test func pagesAndJumps() throws {
        let model = try makeModel()
        model.press(.pageDown)
        #expect(model.rows.first?.values.first == .integer(10))
        model.press(.control("f"), .character(" "))
        #expect(model.rows.first?.values.first == .integer(28))
        model.press(.pageUp)
        #expect(model.rows.first?.values.first == .integer(19))
        model.press(.character("G"))
        #expect(model.cursorID == .integer(100))
        #expect(model.rows.count == 9)
        #expect(model.screen.text.contains("Album 100"))
        model.press(.pageDown)
        #expect(model.cursorID == .integer(100))
        model.press(.character("g"))
        #expect(model.cursorID == .integer(1))
        model.press(.end, .pageUp, .pageUp)
        #expect(model.rows.first?.values.first == .integer(74))
        model.press(.home, .pageUp)
        #expect(model.cursorID == .integer(1))
    }

    @Test func pageDownNearTheEndShowsAFullLastPage() throws {
        let model = try makeModel()
        for _ in 0..<12 { model.handle(.pageDown) }
        #expect(model.rows.count == 9)
        #expect(model.rows.last?.values.first == .integer(100))
    }

    @Test func wheelScrollsThreeRows() throws {
        let model = try makeModel()
        model.press(.wheelDown)
        #expect(model.cursorID == .integer(4))
        model.press(.wheelUp, .wheelUp)
        #expect(model.cursorID == .integer(1))
    }

    @Test func columnsScrollHorizontallyOnANarrowScreen() throws {
        let model = try makeModel(width: 20, height: 10)
        model.press(.right, .right)
        #expect(model.cursorColumn == 2)
        #expect(model.columnOffset > 0)
        #expect(model.screen.line(1).contains("ArtistId"))
        model.press(.left, .left, .character("h"))
        #expect(model.cursorColumn == 0)
        #expect(model.columnOffset == 0)
    }

    @Test func resizeKeepsTheCursorOnTheSameRow() throws {
        let model = try makeModel()
        for _ in 0..<8 { model.handle(.down) }
        #expect(model.cursorID == .integer(9))
        model.handle(.resize(width: 40, height: 10))
        #expect(model.pageSize == 7)
        #expect(model.cursorID == .integer(9))
        #expect(model.rows.count == 7)
        let small = model.screen
        #expect(small.width == 40 && small.height == 10)
        #expect(small.text.contains("Album 009"))
        model.handle(.resize(width: 120, height: 40))
        #expect(model.cursorID == .integer(9))
        #expect(model.rows.count == 37)
    }

    @Test func sortsAndClearsTheSort() throws {
        let model = try makeModel()
        model.press(.right, .character("S"))
        #expect(model.sort == BrowserSort(column: "Title", direction: .descending))
        #expect(model.cursorID == .integer(100))
        #expect(model.screen.line(0).contains("sort Title ↓"))
        model.press(.character("S"))
        #expect(model.sort == nil)
        #expect(model.cursorID == .integer(1))
        model.press(.right, .character("s"))
        // ArtistId ascending, ties broken by the id: albums 1, 31, 61, 91 have artist 1.
        #expect(model.rows.prefix(4).map { $0.values[0] } == [1, 31, 61, 91])
        model.press(.pageDown)
        #expect(model.rows.first?.values[2] == .integer(3))
    }

    @Test func entityListSwitchesEntities() throws {
        let model = try makeModel()
        model.press(.tab)
        #expect(model.focus == .entities)
        #expect(model.paneWidth > 0)
        #expect(model.screen.text.contains("Artist"))
        model.press(.down, .enter)
        #expect(model.focus == .grid)
        #expect(model.entity?.name == "Artist")
        #expect(model.count == .exact(30))
        #expect(model.screen.line(0).contains("Artist  30 rows"))
    }

    @Test func quitsWithQ() throws {
        let model = try makeModel()
        model.press(.character("q"))
        #expect(model.isFinished)
    }

    @Test func unknownEntityIsAnErrorBeforeTheScreen() throws {
        let model = BrowserModel(source: makeSource(), width: 80, height: 24)
        #expect(throws: BrowserError.self) { try model.start(entity: "Nope", filter: nil) }
        let other = BrowserModel(source: makeSource(), width: 80, height: 24)
        #expect(throws: BrowserError.self) { try other.start(entity: "album", filter: "Bogus == 1") }
    }
}

@Suite struct FilterTests {
    @Test func showsErrorsWhileTypingAndAppliesOnEnter() throws {
        let model = try makeModel()
        model.press(.character("/"))
        model.type("Titel")
        guard case .filter(_, let error?) = model.mode else {
            Issue.record("expected a filter error while typing")
            return
        }
        #expect(error.message.contains("unknown attribute 'Titel'"))
        #expect(error.range == 0..<5)
        let screen = model.screen
        #expect(screen.line(10).contains("unknown attribute 'Titel'"))
        #expect(screen.line(11).hasPrefix("/Titel"))
        #expect(screen.style(x: 1, y: 11) == .error)
        // Enter on an invalid filter keeps the editor open.
        model.press(.enter)
        if case .filter = model.mode {} else { Issue.record("the editor closed on an invalid filter") }
        for _ in 0..<5 { model.handle(.backspace) }
        model.type("ArtistId == 2")
        if case .filter(_, let error) = model.mode { #expect(error == nil) }
        model.press(.enter)
        #expect(model.mode == .browse)
        #expect(model.filter == "ArtistId == 2")
        #expect(model.count == .exact(4))
        #expect(model.rows.map { $0.values[0] } == [2, 32, 62, 92])
        #expect(model.screen.line(0).contains("where ArtistId == 2"))
    }

    @Test func escapeCancelsTheEdit() throws {
        let model = try makeModel()
        model.press(.character("/"))
        model.type("ArtistId == 3")
        model.press(.escape)
        #expect(model.filter == "")
        #expect(model.count == .exact(100))
    }

    @Test func aFilterMatchingNothingSaysSo() throws {
        let model = try makeModel()
        model.press(.character("/"))
        model.type("Title == \"nothing\"")
        model.press(.enter)
        #expect(model.rows.isEmpty)
        #expect(model.screen.text.contains("(no rows match the filter)"))
        model.press(.down, .pageDown, .character("G"), .character("e"), .character("d"))
        #expect(model.rows.isEmpty)
    }
}

@Suite struct CountTests {
    @Test func slowCountsFinishInTheBackground() throws {
        let source = makeSource()
        source.budgetLimit = 50
        let model = BrowserModel(source: source, width: 80, height: 12)
        try model.start(entity: "Album", filter: nil)
        #expect(model.count == nil)
        #expect(model.rows.count == 9)
        #expect(model.screen.line(0).contains("Album  counting…"))
        let jobs = model.takePendingCounts()
        let job = try #require(jobs.first { $0.entity == "Album" })
        model.countFinished(job, try source.count(entity: "Album", filter: "", budget: .milliseconds(1)))
        #expect(model.count == .atLeast(50))
        #expect(model.isCounting)
        #expect(model.screen.line(0).contains("≥ 50 rows, counting…"))
        model.countFinished(job, try source.count(entity: "Album", filter: "", budget: nil))
        #expect(model.count == .exact(100))
        #expect(!model.runningCounts.contains(job))
        #expect(model.entityCounts["Album"] == .exact(100))
    }

    @Test func controlCCancelsACount() throws {
        let source = makeSource()
        source.budgetLimit = 50
        let model = try makeModel(source)
        model.handle(.character("r"))
        #expect(model.isCounting)
        model.handle(.control("c"))
        #expect(model.status == "count cancelled")
        #expect(model.pendingCounts.isEmpty)
    }
}

@Suite struct WriteTests {
    @Test func editsACellAndUndoes() throws {
        let source = makeSource()
        let model = try makeModel(source)
        model.press(.right, .character("e"))
        for _ in 0..<9 { model.handle(.backspace) }
        model.type("Renamed")
        #expect(model.screen.line(11).hasPrefix("Title: Renamed"))
        model.press(.enter)
        #expect(model.rows[0].values[1] == .text("Renamed"))
        #expect(source.rows(of: "Album")[0].values[1] == .text("Renamed"))
        #expect(model.status == "updated Album.Title")
        model.press(.character("u"))
        #expect(source.rows(of: "Album")[0].values[1] == .text("Album 001"))
        #expect(model.rows[0].values[1] == .text("Album 001"))
    }

    @Test func editsToNullAndNumbers() throws {
        let source = makeSource()
        let model = try makeModel(source)
        model.press(.right, .right, .character("e"), .backspace)
        model.type("7")
        model.press(.enter)
        #expect(source.rows(of: "Album")[0].values[2] == .integer(7))
        model.press(.character("e"), .control("n"), .enter)
        #expect(source.rows(of: "Album")[0].values[2] == .null)
        #expect(model.screen.line(2).contains("NULL"))
    }

    @Test func aFailedWriteChangesNothing() throws {
        let source = makeSource()
        let model = try makeModel(source)
        let before = model.screen.line(2)
        source.failWrites = "database is locked"
        model.press(.right, .character("e"))
        model.type("x")
        model.press(.enter)
        #expect(model.statusIsError)
        #expect(model.status.contains("database is locked"))
        #expect(model.screen.line(2) == before)
        #expect(source.rows(of: "Album")[0].values[1] == .text("Album 001"))
    }

    @Test func addsAnEntityThroughTheForm() throws {
        let source = makeSource()
        let model = try makeModel(source)
        model.press(.character("a"))
        #expect(model.screen.text.contains("(default)"))
        model.press(.down)
        model.type("Fresh")
        model.press(.down)
        model.type("5")
        model.press(.enter)
        let created = try #require(source.rows(of: "Album").last)
        #expect(created.values[1] == .text("Fresh"))
        #expect(created.values[2] == .integer(5))
        #expect(model.currentRow == created)
        #expect(model.count == .exact(101))
        model.press(.character("u"))
        #expect(source.rows(of: "Album").count == 100)
    }

    @Test func deletesAfterConfirmationAndUndoes() throws {
        let source = makeSource()
        let model = try makeModel(source)
        model.press(.down, .character("d"))
        #expect(model.screen.line(11).hasPrefix("delete Album 2? y/n"))
        model.press(.character("n"))
        #expect(source.rows(of: "Album").count == 100)
        model.press(.character("d"), .character("y"))
        #expect(source.rows(of: "Album").count == 99)
        #expect(model.cursorID == .integer(3))
        #expect(model.rows.count == 9)
        model.press(.character("u"))
        #expect(source.rows(of: "Album").count == 100)
        #expect(source.rows(of: "Album").contains { $0.values == [.integer(2), .text("Album 002"), .integer(2)] })
    }

    @Test func readOnlySessionsRefuseWrites() throws {
        let source = makeSource()
        let model = try makeModel(source, readOnly: true)
        for key in ["e", "a", "d", "u"] {
            model.press(.character(Character(key)))
            #expect(model.mode == .browse)
            #expect(model.statusIsError)
            #expect(model.status.contains("read-only session"))
        }
        #expect(model.screen.line(11).contains("read-only session"))
        #expect(model.screen.line(0).contains("[read-only]"))
    }

    @Test func viewsAreReadOnly() throws {
        let model = try makeModel(entity: "Summary")
        model.press(.character("e"))
        #expect(model.status.contains("Summary is read-only"))
    }
}

@Suite struct RecordAndFollowTests {
    @Test func recordViewShowsEveryAttribute() throws {
        let model = try makeModel()
        model.press(.down, .enter)
        guard case .record(let selected) = model.mode else {
            Issue.record("expected the record view")
            return
        }
        #expect(selected == 0)
        let text = model.screen.text
        #expect(text.contains("AlbumId    2"))
        #expect(text.contains("Title      Album 002"))
        #expect(text.contains("ArtistId   2"))
        model.press(.down, .character("e"))
        model.type("!")
        model.press(.enter)
        #expect(model.mode == .record(selected: 1))
        #expect(model.currentRow?.values[1] == .text("Album 002!"))
        model.press(.escape)
        #expect(model.mode == .browse)
        #expect(model.cursorColumn == 1)
    }

    @Test func followsAForeignKeyAndComesBack() throws {
        let model = try makeModel()
        for _ in 0..<12 { model.handle(.down) }
        model.press(.right, .right, .character("f"))
        #expect(model.entity?.name == "Artist")
        #expect(model.filter == "ArtistId == 13")
        #expect(model.rows.count == 1)
        #expect(model.screen.text.contains("Artist 13"))
        model.press(.backspace)
        #expect(model.entity?.name == "Album")
        #expect(model.filter == "")
        #expect(model.cursorID == .integer(13))
        #expect(model.cursorColumn == 2)
        model.press(.left, .character("f"))
        #expect(model.status.hasPrefix("Title is not a foreign key"))
    }

    @Test func qGoesBackBeforeQuitting() throws {
        let model = try makeModel()
        model.press(.right, .right, .character("f"), .character("q"))
        #expect(!model.isFinished)
        #expect(model.entity?.name == "Album")
        model.press(.character("q"))
        #expect(model.isFinished)
    }
}

@Suite struct LiveRefreshAndCommandTests {
    @Test func anExternalChangeAppearsOnTheNextTick() throws {
        let source = makeSource()
        let model = try makeModel(source)
        model.press(.down, .down)
        _ = try source.update(entity: "Album", id: [.integer(1)], column: "Title", value: .text("Changed elsewhere"))
        #expect(!model.screen.text.contains("Changed elsewhere"))
        model.press(.tick)
        #expect(model.screen.text.contains("Changed elsewhere"))
        #expect(model.cursorID == .integer(3))
        try source.delete(entity: "Album", id: [.integer(3)])
        model.press(.tick)
        #expect(model.cursorID == .integer(4))
        #expect(model.count == .exact(99))
    }

    @Test func colonRunsACommandAndShowsItsOutput() throws {
        let source = makeSource()
        var received: [String] = []
        let model = try makeModel(source) { command in
            received.append(command)
            return "line one\nline \u{1b}[31mtwo\n"
        }
        model.press(.character(":"))
        model.type("count Album")
        #expect(model.screen.line(11).hasPrefix(":count Album"))
        model.press(.enter)
        #expect(received == ["count Album"])
        let text = model.screen.text
        #expect(text.contains("line one"))
        #expect(text.contains("line \\x1b[31mtwo"))
        #expect(!text.contains("\u{1b}"))
        model.press(.escape)
        #expect(model.mode == .browse)
    }

    @Test func helpListsEveryKey() throws {
        let model = try makeModel(height: 30)
        model.press(.character("?"))
        let text = model.screen.text
        for key in ["PgUp", "Home End g G", "Tab", "/", "s S", "Enter", "e ", "a ", "d ", "u ", "f ", "r ", ":", "q "] {
            #expect(text.contains(key), "help lacks \(key)")
        }
        model.press(.character("q"))
        #expect(model.mode == .browse)
        #expect(!model.isFinished)
    }
}
