import PortalEngine
import PortalTUI

/// What the `tui.*` and `tui.pg.*` figures time, the same on either database: the browser's
/// model on the 10,000,000-row table `Big`, each step with its screen drawn.
struct BrowserSteps {
    let store: Store
    static let width = 160
    static let height = 40
    /// The rows of one screen (title, header and status lines aside).
    static let pageRows = height - 3
    /// A session open on `Big`, for the steps after the first screen.
    let session: BrowserModel

    init(store: Store) throws {
        self.store = store
        session = BrowserModel(source: EngineDataSource(store: store), width: Self.width, height: Self.height, readOnly: true)
        try session.start(entity: "Big", filter: nil)
    }

    /// `tui.open`: a new session on the entity, first screen rendered. Each timed step is kept
    /// out of line so that `valgrind --tool=callgrind --toggle-collect='*BrowserSteps*'` counts it alone.
    @inline(never)
    func open() throws {
        let model = BrowserModel(source: EngineDataSource(store: store), width: Self.width, height: Self.height, readOnly: true)
        try model.start(entity: "Big", filter: nil)
        _ = Renderer.render(model)
    }

    /// Back to the first screen (untimed, before `end` and `pageDown`).
    func home() { session.handle(.home) }

    /// `tui.end`: G, last screen rendered.
    @inline(never)
    func end() {
        session.handle(.end)
        _ = Renderer.render(session)
    }

    /// `tui.pagedown`: 100 PgDn from the top, each rendered.
    @inline(never)
    func pageDown() {
        for _ in 0..<100 {
            session.handle(.pageDown)
            _ = Renderer.render(session)
        }
    }

    /// Untimed before `applyFilter`: the last run's filter cleared, back at the top, `text`
    /// typed on the filter line (each keystroke checks the predicate as it is typed).
    func typeFilter(_ text: String) {
        session.handle(.character("/"))
        session.handle(.control("u"))
        session.handle(.enter)
        session.handle(.home)
        session.handle(.character("/"))
        for c in text { session.handle(.character(c)) }
    }

    /// `tui.filter`: Enter on the filter line, first screen rendered.
    @inline(never)
    func applyFilter() {
        session.handle(.enter)
        _ = Renderer.render(session)
    }
}
