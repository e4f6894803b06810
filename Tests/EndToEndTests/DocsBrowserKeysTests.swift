import Foundation
import PortalEngine
import PortalSQLite
import PortalTUI
import Testing

/// Every key the browser reacts to is in its `?` screen and in the man page's BROWSER section.
///
/// The keys are found by behaviour, not by a list kept beside the code: each candidate key is
/// sent to a fresh browser model on the demo database, and a key that changes anything the
/// model shows (mode, focus, cursor, rows, filter, sort, status, quitting) is a handled key.
@Suite struct DocsBrowserKeysTests {
    /// Everything the screen is drawn from.
    struct Snapshot: Equatable {
        var mode: BrowserModel.Mode
        var focus: BrowserModel.Focus
        var entityIndex: Int
        var entitySelection: Int
        var filter: String
        var sort: BrowserSort?
        var rows: [BrowserRow]
        var cursorRow: Int
        var cursorColumn: Int
        var columnOffset: Int
        var status: String
        var isFinished: Bool

        init(_ m: BrowserModel) {
            (mode, focus, entityIndex, entitySelection) = (m.mode, m.focus, m.entityIndex, m.entitySelection)
            (filter, sort, rows) = (m.filter, m.sort, m.rows)
            (cursorRow, cursorColumn, columnOffset) = (m.cursorRow, m.cursorColumn, m.columnOffset)
            (status, isFinished) = (m.status, m.isFinished)
        }
    }

    static var candidates: [BrowserKey] {
        var keys: [BrowserKey] = [.up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .enter, .escape,
                                  .tab, .backTab, .backspace, .deleteForward, .wheelUp, .wheelDown]
        keys += (0x20...0x7e).compactMap { Unicode.Scalar($0).map { .character(Character($0)) } }
        keys += "abcdefghijklmnopqrstuvwxyz".map { .control($0) }
        return keys
    }

    /// How the help screen and the man page name a key (a control key: `^B` or `Ctrl-B`).
    static func names(of key: BrowserKey) -> [String] {
        switch key {
        case .up, .down, .left, .right: return ["arrows"]
        case .pageUp: return ["PgUp"]
        case .pageDown: return ["PgDn"]
        case .home: return ["Home"]
        case .end: return ["End"]
        case .enter: return ["Enter"]
        case .escape: return ["Esc"]
        case .tab: return ["Tab"]
        case .backTab: return ["Shift-Tab"]
        case .backspace: return ["Backspace"]
        case .deleteForward: return ["Delete"]
        case .wheelUp, .wheelDown: return ["wheel"]
        case .character(" "): return ["Space"]
        case .character(let c): return [String(c)]
        case .control(let c): return ["^" + c.uppercased(), "Ctrl-" + c.uppercased()]
        case .resize, .tick: return []
        }
    }

    /// The key column of the `?` screen: the text before the first run of two spaces.
    static func helpKeyNames() -> Set<String> {
        var names: Set<String> = []
        for line in BrowserModel.helpLines {
            let keys = line.components(separatedBy: "  ")[0]
            for name in keys.split(whereSeparator: { $0 == " " || $0 == "," }) { names.insert(String(name)) }
        }
        return names
    }

    /// The keys of the man page's BROWSER list (`.It PgUp , PgDn , Ctrl-B , Ctrl-F`).
    static func manKeyNames() throws -> Set<String> {
        var names: Set<String> = []
        let macros: Set<String> = ["Cm", "No", "Ns", "Li", ","]
        for line in try Docs.manSection("BROWSER") where line.hasPrefix(".It ") {
            for word in Docs.unescape(String(line.dropFirst(4))).split(separator: " ") where !macros.contains(String(word)) {
                names.insert(String(word))
            }
        }
        return names
    }

    /// The keys that change what a model in `state` shows.
    static func handledKeys(source: EngineDataSource, state: (BrowserModel) -> Void) throws -> [BrowserKey] {
        var handled: [BrowserKey] = []
        for key in candidates {
            let model = BrowserModel(source: source, width: 120, height: 30)
            model.countBudget = .zero   // counts are left to a background runner there is none of
            try model.start(entity: "Shoe", filter: nil)
            state(model)
            let before = Snapshot(model)
            model.handle(key)
            if Snapshot(model) != before { handled.append(key) }
        }
        return handled
    }

    @Test func everyHandledKeyIsInTheHelpScreenAndTheManPage() throws {
        let folder = try Docs.exampleFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store(path: folder.appendingPathComponent("fitness.sqlite").path)
        let source = EngineDataSource(store: store)
        // In the grid, a few rows down, on the foreign key column UserId (so that f follows it).
        let grid = try Self.handledKeys(source: source) { model in
            model.handle(.down)
            model.handle(.down)
            model.handle(.right)
        }
        // In the entity list.
        let list = try Self.handledKeys(source: source) { model in model.handle(.tab) }
        // In the record view of the current row.
        let record = try Self.handledKeys(source: source) { model in model.handle(.enter) }
        let handled = grid + list + record
        // Sanity: the discovery sees the keys we know the browser handles.
        for key: BrowserKey in [.character("/"), .character("q"), .pageDown, .control("f"), .tab, .enter, .character("f")] {
            #expect(handled.contains(key), "\(key) was not discovered")
        }
        let help = Self.helpKeyNames(), man = try Self.manKeyNames()
        for key in handled {
            let names = Self.names(of: key)
            #expect(names.contains(where: help.contains), "\(key) (\(names)) is handled but not in the ? help screen")
            #expect(names.contains(where: man.contains), "\(key) (\(names)) is handled but not in the man page's BROWSER")
        }
    }
}
