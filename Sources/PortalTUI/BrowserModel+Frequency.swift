import PortalEngine

/// The frequency table `F` shows: one screen of a column's values with their counts, fetched by
/// key (count, value) like the grid's rows, and the number of distinct values once counted.
public struct FrequencyView: Sendable, Hashable {
    /// The attribute's name.
    public var column: String
    public var rows: [FrequencyRow] = []
    public var cursor = 0
    /// The count of the most frequent value: bars are drawn to its scale.
    public var largest = 0
    /// How many distinct values there are (counted in the background).
    public var values: RowCount?
    /// True while the window starts at the most frequent value: a refresh then starts there
    /// too (a value that became the most frequent shows up), else at the window's first value.
    public var atTop = true

    public init(column: String) { self.column = column }

    public var current: FrequencyRow? { rows[safe: cursor] }
}

// The frequency table (`F`): moving, paging, Enter filtering the grid to a value.
extension BrowserModel {
    func openFrequency() {
        guard let entity, let column = entity.columns[safe: cursorColumn] else { return }
        workName = "counting values…"
        var view = FrequencyView(column: column.name)
        guard let page = fetchFrequencies(view, .first, limit: pageSize) else { return }
        view.rows = page
        view.largest = page.first?.count ?? 0
        mode = .frequency(view)
        schedule(CountJob(entity: entity.name, filter: filter, kind: .values(column: column.name)))
    }

    func handleFrequency(_ key: BrowserKey, _ view: FrequencyView) {
        var view = view
        workName = "counting values…"
        switch key {
        case .down, .character("j"): frequencyDown(&view)
        case .up, .character("k"): frequencyUp(&view)
        case .pageDown, .control("f"), .character(" "): frequencyPage(&view, forward: true)
        case .pageUp, .control("b"): frequencyPage(&view, forward: false)
        case .home, .character("g"):
            if let page = fetchFrequencies(view, .first, limit: pageSize) { (view.rows, view.cursor, view.atTop) = (page, 0, true) }
        case .end, .character("G"):
            if let page = fetchFrequencies(view, .last, limit: pageSize) {
                (view.rows, view.cursor, view.atTop) = (page, max(0, page.count - 1), page.count < pageSize)
            }
        case .enter:
            if let row = view.current { return filterGrid(to: row.value, of: view.column) }
        case .escape, .character("q"):
            mode = .browse
            return
        case .character("?"):
            mode = .help(scroll: 0)
            return
        default: break
        }
        mode = .frequency(view)
    }

    /// Rows of the table from `anchor`; nil (the status line says why) when the query failed or
    /// was cancelled.
    func fetchFrequencies(_ view: FrequencyView, _ anchor: FrequencyAnchor, limit: Int) -> [FrequencyRow]? {
        guard let entity else { return [] }
        do {
            return try source.frequencies(FrequencyRequest(entity: entity.name, filter: filter, column: view.column,
                                                           anchor: anchor, limit: limit))
        } catch {
            setStatus(message(of: error), error: true)
            return nil
        }
    }

    /// Past the last line, the next page is fetched at once (each fetch groups the rows again,
    /// so a key press fetches a screen, not one line).
    private func frequencyDown(_ view: inout FrequencyView) {
        if view.cursor < view.rows.count - 1 { return view.cursor += 1 }
        guard let last = view.rows.last, let next = fetchFrequencies(view, .after(last), limit: pageSize), !next.isEmpty
        else { return }
        if view.rows.count + next.count > pageSize { view.atTop = false }
        view.rows = Array((view.rows + next).suffix(pageSize))
        view.cursor = max(0, view.rows.count - next.count)
    }

    private func frequencyUp(_ view: inout FrequencyView) {
        if view.cursor > 0 { return view.cursor -= 1 }
        guard let first = view.rows.first, let previous = fetchFrequencies(view, .before(first), limit: pageSize),
              !previous.isEmpty else { return }
        view.rows = Array((previous + view.rows).prefix(pageSize))
        view.cursor = previous.count - 1
        view.atTop = previous.count < pageSize
    }

    private func frequencyPage(_ view: inout FrequencyView, forward: Bool) {
        let edge = forward ? view.rows.last : view.rows.first
        guard let edge, let page = fetchFrequencies(view, forward ? .after(edge) : .before(edge), limit: pageSize) else { return }
        view.atTop = forward ? view.atTop && page.isEmpty : page.count < pageSize
        if page.isEmpty {
            view.cursor = forward ? max(0, view.rows.count - 1) : 0
        } else if page.count == pageSize {
            view.rows = page
        } else {
            view.rows = forward ? Array((view.rows + page).suffix(pageSize)) : Array((page + view.rows).prefix(pageSize))
            view.cursor = forward ? view.rows.count - 1 : 0
        }
    }

    /// Enter: the grid, filtered to the rows holding `value` (within the current filter), the
    /// comparison printed by the predicate printer so that any value parses back exactly.
    func filterGrid(to value: Value, of column: String) {
        let equality = Self.equalityFilter([(column, value)])
        let old = filter
        mode = .browse
        filter = old.trimmingSpaces.isEmpty ? equality : "(\(old)) AND \(equality)"
        workName = "filtering…"
        guard load(anchor: .first, cursorID: nil) else {
            filter = old
            return
        }
        backStack = []
        count = nil
        recount()
        if let i = entity?.columns.firstIndex(where: { $0.name == column }) {
            cursorColumn = i
            clampColumn()
        }
    }

    /// The database changed: the window again from where it starts (its first value, or the
    /// top), the cursor on the same value if it is still there, the bars to the new scale.
    func refreshFrequency(_ view: FrequencyView) {
        var view = view
        let top = view.rows.first
        let anchor: FrequencyAnchor = view.atTop ? .first : top.map { .atOrAfter($0) } ?? .first
        guard var page = fetchFrequencies(view, anchor, limit: pageSize) else { return }
        if page.count < pageSize, !view.atTop {
            // Values went away below the window: show the last screen.
            guard let last = fetchFrequencies(view, .last, limit: pageSize) else { return }
            page = last
        }
        let current = view.current?.value
        let largest = view.atTop ? page.first?.count : fetchFrequencies(view, .first, limit: 1)?.first?.count
        view.rows = page
        view.largest = largest ?? view.largest
        view.cursor = page.firstIndex { $0.value == current } ?? min(view.cursor, max(0, page.count - 1))
        mode = .frequency(view)
        schedule(CountJob(entity: entity?.name ?? "", filter: filter, kind: .values(column: view.column)))
    }

    /// The view after a resize: at most a screen of lines, the cursor's among them.
    func fitted(_ view: FrequencyView) -> FrequencyView {
        var view = view
        let extra = view.rows.count - pageSize
        guard extra > 0 else { return view }
        let drop = min(extra, max(0, view.cursor - pageSize + 1))
        view.rows = Array(view.rows.dropFirst(drop).prefix(pageSize))
        view.cursor -= drop
        return view
    }
}
