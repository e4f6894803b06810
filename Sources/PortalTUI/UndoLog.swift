import PortalEngine

/// The writes this browser session made, newest last, each with what undoes it (`u`). An undo
/// that fails is put back, so that it can be tried again.
struct UndoLog {
    /// A write and what undoes it.
    enum Action {
        /// `column` of the row `id` was changed from `old`.
        case update(entity: String, id: [Value], column: String, old: Value)
        /// The row `id` was added.
        case create(entity: String, id: [Value])
        /// `row` was deleted.
        case delete(entity: String, row: BrowserRow)
    }

    private var actions: [Action] = []

    /// Notes a write just made.
    mutating func record(_ action: Action) { actions.append(action) }

    /// The newest write, taken off the log; nil when there is none.
    mutating func takeLast() -> Action? { actions.popLast() }

    /// Puts back an action whose undo failed.
    mutating func putBack(_ action: Action) { actions.append(action) }
}
