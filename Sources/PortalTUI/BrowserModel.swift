import PortalEngine

/// Everything the browser shows, changed only by key events.
///
/// The model holds just the visible window of rows; every scroll asks the data source for the
/// rows after or before the window's edge by key, so memory is bounded by the screen.
public final class BrowserModel {
    public enum Focus: Sendable, Hashable { case grid, entities }

    public enum Mode: Sendable, Hashable {
        case browse
        case filter(LineEditor, error: BrowserFilterError?)
        case record(selected: Int)
        case editCell(column: Int, editor: LineEditor, isNull: Bool, fromRecord: Bool)
        case add(AddForm)
        case confirmDelete
        case help(scroll: Int)
        case command(LineEditor)
        case output(lines: [String], scroll: Int)
    }

    /// The add form: one field per column; nil means "leave it to the default".
    public struct AddForm: Sendable, Hashable {
        public var fields: [LineEditor?]
        public var nulls: Set<Int> = []
        public var selected: Int = 0
    }

    /// A background count the runner should perform and report with `countFinished`.
    public struct CountJob: Sendable, Hashable {
        public var entity: String
        public var filter: String
    }

    /// A write this session made, with what undoes it.
    enum UndoAction {
        case update(entity: String, id: [Value], column: String, old: Value)
        case create(entity: String, id: [Value])
        case delete(entity: String, row: BrowserRow)
    }

    /// Where the user was before following a foreign key.
    struct Place {
        var entityIndex: Int
        var filter: String
        var sort: BrowserSort?
        var top: BrowserRow?
        var cursorID: [Value]?
        var cursorColumn: Int
    }

    public let source: any BrowserDataSource
    public let readOnly: Bool
    let runCommand: ((String) -> String)?
    let completeFilter: FilterCompleter?

    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var entities: [BrowserEntity] = [] { didSet { widths = nil } }
    public private(set) var entityCounts: [String: RowCount] = [:]
    public private(set) var entityIndex = 0 { didSet { widths = nil } }
    public private(set) var entitySelection = 0
    public private(set) var focus: Focus = .grid
    public private(set) var filter = ""
    public private(set) var sort: BrowserSort? { didSet { widths = nil } }
    public private(set) var rows: [BrowserRow] = [] { didSet { widths = nil } }
    /// `columnWidths()` of the current rows, kept until the rows, sort or entity change.
    private var widths: [Int]?
    public private(set) var cursorRow = 0
    public private(set) var cursorColumn = 0
    public private(set) var columnOffset = 0
    public private(set) var count: RowCount?
    public private(set) var status = ""
    public private(set) var statusIsError = false
    /// What a key's slow work is doing, shown while it runs (`sorting…`); nil otherwise.
    public private(set) var busyText: String?
    /// In the record view, one line per relationship of the row: to-one, the related entity's
    /// name; to-many, how many there are.
    public private(set) var relatedSummaries: [String] = []
    /// What the work of the key being handled is called, for `busyText`.
    private var workName = "loading…"

    public private(set) var mode: Mode = .browse
    public private(set) var isFinished = false
    /// Set when the `:` output pane was closed: keys typed ahead of that (the rest of a command
    /// typed while the pane was open) must be dropped, not read as grid keys that edit or delete.
    /// The runner takes it (`takeDiscardTypeAhead()`).
    public private(set) var discardTypeAhead = false
    /// Counts still to be finished in the background; the runner takes them.
    public private(set) var pendingCounts: [CountJob] = []
    /// Counts being computed right now (the status line says `counting…`).
    public private(set) var runningCounts: Set<CountJob> = []
    var backStack: [Place] = []
    var undoStack: [UndoAction] = []
    var lastToken: UInt64 = 0

    /// How long a count may take in the foreground before it moves to the background.
    public var countBudget: Duration = .milliseconds(30)

    public init(source: any BrowserDataSource, width: Int, height: Int, readOnly: Bool = false,
                runCommand: ((String) -> String)? = nil, completeFilter: FilterCompleter? = nil) {
        self.source = source
        self.width = width
        self.height = height
        self.readOnly = readOnly
        self.runCommand = runCommand
        self.completeFilter = completeFilter
    }

    // MARK: - Opening

    /// Loads the entity list and opens `entity` (or the first one) with `filter` and `sort`.
    /// The entity list and the first page come from one state of the database.
    public func start(entity: String?, filter: String?, sort: BrowserSort? = nil) throws {
        lastToken = source.changeToken()
        try source.consistently {
            let (index, sort) = try check(entity: entity, filter: filter, sort: sort)
            countEntities()
            guard let index else {
                setStatus("the database has no entities", error: false)
                return
            }
            open(index, filter: filter ?? "", sort: sort)
        }
    }

    /// Loads the entity list and checks the arguments of `start` without fetching rows: the
    /// entity's index (nil when there is none at all) and the sort under the attribute's real name.
    @discardableResult
    public func check(entity: String?, filter: String?, sort: BrowserSort?) throws -> (Int?, BrowserSort?) {
        entities = try source.entities()
        guard !entities.isEmpty else {
            if let entity { throw BrowserError("no entity named '\(entity)'") }
            return (nil, nil)
        }
        var index = 0
        if let entity {
            guard let found = entityIndex(named: entity) else { throw BrowserError("no entity named '\(entity)'") }
            index = found
        }
        let name = entities[index].name
        if let filter, !filter.trimmingSpaces.isEmpty, let error = source.validate(entity: name, filter: filter) {
            throw BrowserError("invalid filter: \(error.message)")
        }
        guard let sort else { return (index, nil) }
        guard let column = entities[index].columns.first(where: { $0.name.lowercased() == sort.column.lowercased() }) else {
            throw BrowserError("no attribute '\(sort.column)' on \(name) to sort by")
        }
        return (index, BrowserSort(column: column.name, direction: sort.direction))
    }

    func entityIndex(named name: String) -> Int? {
        entities.firstIndex { $0.name == name }
            ?? entities.firstIndex { $0.name.lowercased() == name.lowercased() }
    }

    public var entity: BrowserEntity? { entities.indices.contains(entityIndex) ? entities[entityIndex] : nil }

    /// Rows that fit on the screen: everything but the title, header and status lines.
    public var pageSize: Int { max(1, height - 3) }

    func open(_ index: Int, filter: String, sort: BrowserSort?, anchor: PageAnchor = .first, cursorID: [Value]? = nil) {
        entityIndex = index
        entitySelection = index
        self.filter = filter
        self.sort = sort
        columnOffset = 0
        cursorColumn = 0
        rows = []
        cursorRow = 0
        count = nil
        load(anchor: anchor, cursorID: cursorID)
        recount()
    }

    func request(_ anchor: PageAnchor, limit: Int) -> PageRequest {
        PageRequest(entity: entity?.name ?? "", filter: filter, sort: sort, anchor: anchor, limit: limit)
    }

    /// Fetches rows, reporting a failure in the status line; nil when it failed.
    func fetch(_ anchor: PageAnchor, limit: Int) -> [BrowserRow]? {
        guard entity != nil else { return [] }
        do {
            return try source.page(request(anchor, limit: limit))
        } catch {
            setStatus(message(of: error), error: true)
            return nil
        }
    }

    /// Fills the window starting at `anchor`, topping it up from above when it runs short,
    /// and puts the cursor on the row with `cursorID` when it is there.
    @discardableResult
    func load(anchor: PageAnchor, cursorID: [Value]?, cursorFallback: Int = 0) -> Bool {
        guard var page = fetch(anchor, limit: pageSize) else { return false }
        if page.count < pageSize {
            let before: [BrowserRow]?
            if let first = page.first {
                before = fetch(.before(first), limit: pageSize - page.count)
            } else if case .first = anchor {
                before = []
            } else {
                before = fetch(.last, limit: pageSize)
            }
            page = (before ?? []) + page
        }
        rows = page
        if let cursorID, let found = rows.firstIndex(where: { $0.id == cursorID }) {
            cursorRow = found
        } else {
            cursorRow = min(max(0, cursorFallback), max(0, rows.count - 1))
        }
        clampColumn()
        return true
    }

    /// Reloads the visible rows where they are, keeping the cursor on the same entity.
    public func reload() {
        let cursorID = currentRow?.id
        if let top = rows.first {
            load(anchor: .atOrAfter(top), cursorID: cursorID, cursorFallback: cursorRow)
        } else {
            load(anchor: .first, cursorID: nil)
        }
    }

    public var currentRow: BrowserRow? { rows.indices.contains(cursorRow) ? rows[cursorRow] : nil }

    // MARK: - Counting

    /// Counts run in the background (the first screen never waits for them): first within a
    /// budget, giving `≥ N` on a large table, then exactly. The old count stays on screen meanwhile.
    func recount() {
        guard let name = entity?.name else { return }
        schedule(CountJob(entity: name, filter: filter))
    }

    func countEntities() {
        for entity in entities { schedule(CountJob(entity: entity.name, filter: "")) }
    }

    func schedule(_ job: CountJob) {
        if !pendingCounts.contains(job) { pendingCounts.append(job) }
    }

    /// Hands the pending counts to the runner, which reports each with `countFinished`.
    public func takePendingCounts() -> [CountJob] {
        let jobs = pendingCounts
        pendingCounts = []
        runningCounts.formUnion(jobs)
        return jobs
    }

    /// A background count has a result: `.atLeast` while it goes on, `.exact` when done, nil
    /// when it failed or was cancelled.
    public func countFinished(_ job: CountJob, _ result: RowCount?) {
        guard case .atLeast? = result else { runningCounts.remove(job); return deliver(job, result) }
        deliver(job, result)
    }

    private func deliver(_ job: CountJob, _ result: RowCount?) {
        guard let result else { return }
        if job.filter.isEmpty { entityCounts[job.entity] = result }
        if job.entity == entity?.name, job.filter == filter { count = result }
    }

    /// Runs one count job as the background runner does: within the budget, then exactly.
    public static func perform(_ job: CountJob, on source: any BrowserDataSource, budget: Duration,
                               report: (RowCount?) -> Void) {
        let first = try? source.count(entity: job.entity, filter: job.filter, budget: budget)
        report(first)
        guard case .atLeast? = first else { return }
        report(try? source.count(entity: job.entity, filter: job.filter, budget: nil))
    }

    /// Runs the pending counts here and now (tests and benchmarks have no background thread).
    public func runPendingCounts() {
        for job in takePendingCounts() {
            Self.perform(job, on: source, budget: countBudget) { countFinished(job, $0) }
        }
    }

    public var isCounting: Bool { !runningCounts.isEmpty || !pendingCounts.isEmpty }

    // MARK: - Status

    func setStatus(_ text: String, error: Bool) {
        status = text
        statusIsError = error
    }

    func message(of error: any Error) -> String {
        if let e = error as? BrowserError { return e.message }
        if let e = error as? BrowserFilterError { return e.message }
        return String(describing: error)
    }

    // MARK: - Keys

    /// Applies one key to the model.
    public func handle(_ key: BrowserKey) {
        switch key {
        case .resize(let w, let h):
            resize(width: w, height: h)
            return
        case .tick:
            refreshIfChanged()
            return
        case .control("c"):
            cancelCounts()
            return
        default:
            break
        }
        status = ""
        statusIsError = false
        workName = "loading…"
        defer { busyText = nil }
        switch mode {
        case .browse: focus == .grid ? handleGrid(key) : handleEntityList(key)
        case .filter(var editor, _): handleFilter(key, &editor)
        case .record(let selected): handleRecord(key, selected)
        case .editCell(let column, var editor, let isNull, let fromRecord):
            handleEditor(key, column: column, editor: &editor, isNull: isNull, fromRecord: fromRecord)
        case .add(var form): handleAdd(key, &form)
        case .confirmDelete: handleConfirmDelete(key)
        case .help(let scroll): handleHelp(key, scroll)
        case .command(var editor): handleCommand(key, &editor)
        case .output(let lines, let scroll): handleOutput(key, lines, scroll)
        }
    }

    func resize(width w: Int, height h: Int) {
        let cursorID = currentRow?.id
        let oldRow = cursorRow
        width = max(1, w)
        height = max(1, h)
        guard !rows.isEmpty else { return }
        // Keep the cursor's row on screen: start the window at or above it.
        let topIndex = max(0, oldRow - pageSize + 1)
        load(anchor: .atOrAfter(rows[topIndex]), cursorID: cursorID, cursorFallback: oldRow - topIndex)
    }

    /// The key's work is still running (called while it runs, before the screen is drawn).
    public func showBusy(_ busy: BrowserBusy) {
        switch busy {
        case .working: busyText = "\(workName)  (Ctrl-C cancels)"
        case .waitingForLock: busyText = "waiting for a lock…  (Ctrl-C cancels)"
        }
    }

    func cancelCounts() {
        guard isCounting else { return }
        source.cancel()
        pendingCounts = []
        setStatus("count cancelled", error: false)
    }

    /// Reloads when the database changed since the last look.
    public func refreshIfChanged() {
        let token = source.changeToken()
        guard token != lastToken else { return }
        lastToken = token
        guard case .browse = mode else { return }
        reload()
        recount()
    }

    // MARK: Grid

    func handleGrid(_ key: BrowserKey) {
        switch key {
        case .down, .character("j"): moveDown(1)
        case .up, .character("k"): moveUp(1)
        case .wheelDown: moveDown(3)
        case .wheelUp: moveUp(3)
        case .left, .character("h"): moveColumn(-1)
        case .right, .character("l"): moveColumn(1)
        case .pageDown, .control("f"), .character(" "): pageDown()
        case .pageUp, .control("b"): pageUp()
        case .home, .character("g"): load(anchor: .first, cursorID: nil)
        case .end, .character("G"): jumpToEnd()
        case .tab:
            focus = .entities
            entitySelection = entityIndex
        case .character("/"):
            mode = .filter(LineEditor(filter), error: nil)
        case .character("s"): toggleSort(.ascending)
        case .character("S"): toggleSort(.descending)
        case .enter:
            if currentRow != nil {
                mode = .record(selected: cursorColumn)
                summarizeRelationships()
            }
        case .character("e"): beginEdit(column: cursorColumn, fromRecord: false)
        case .character("a"): beginAdd()
        case .character("d"):
            if writeAllowed() {
                if currentRow == nil { setStatus("nothing to delete", error: true) } else { mode = .confirmDelete }
            }
        case .character("u"): undo()
        case .character("f"): follow()
        case .backspace: goBack()
        case .character("r"):
            reload()
            recount()
            countEntities()
            setStatus("reloaded", error: false)
        case .character(":"):
            if runCommand == nil {
                setStatus("commands are not available here", error: true)
            } else {
                mode = .command(LineEditor())
            }
        case .character("?"): mode = .help(scroll: 0)
        case .character("q"):
            if backStack.isEmpty { isFinished = true } else { goBack() }
        case .escape:
            // Only `q` quits: Esc goes back from a followed key, else says how to leave.
            if backStack.isEmpty { setStatus("q quits", error: false) } else { goBack() }
        default: break
        }
    }

    func moveDown(_ n: Int) {
        for _ in 0..<n {
            if cursorRow < rows.count - 1 {
                cursorRow += 1
                continue
            }
            guard let last = rows.last, let next = fetch(.after(last), limit: 1), let row = next.first else { return }
            rows.append(row)
            if rows.count > pageSize { rows.removeFirst(rows.count - pageSize) }
            cursorRow = rows.count - 1
        }
    }

    func moveUp(_ n: Int) {
        for _ in 0..<n {
            if cursorRow > 0 {
                cursorRow -= 1
                continue
            }
            guard let first = rows.first, let previous = fetch(.before(first), limit: 1), let row = previous.first else { return }
            rows.insert(row, at: 0)
            if rows.count > pageSize { rows.removeLast(rows.count - pageSize) }
            cursorRow = 0
        }
    }

    func pageDown() {
        guard let last = rows.last, let next = fetch(.after(last), limit: pageSize) else { return }
        if next.isEmpty {
            cursorRow = max(0, rows.count - 1)
        } else if next.count == pageSize {
            rows = next
            cursorRow = min(cursorRow, rows.count - 1)
        } else {
            rows = Array((rows + next).suffix(pageSize))
            cursorRow = rows.count - 1
        }
    }

    func pageUp() {
        guard let first = rows.first, let previous = fetch(.before(first), limit: pageSize) else { return }
        if previous.isEmpty {
            cursorRow = 0
        } else if previous.count == pageSize {
            rows = previous
            cursorRow = min(cursorRow, rows.count - 1)
        } else {
            rows = Array((previous + rows).prefix(pageSize))
            cursorRow = 0
        }
    }

    func jumpToEnd() {
        guard let page = fetch(.last, limit: pageSize) else { return }
        rows = page
        cursorRow = max(0, rows.count - 1)
    }

    func moveColumn(_ delta: Int) {
        guard let entity else { return }
        cursorColumn = min(max(0, cursorColumn + delta), max(0, entity.columns.count - 1))
        clampColumn()
    }

    /// Keeps the cursor column in range and scrolled into view.
    func clampColumn() {
        guard let entity else { return }
        cursorColumn = min(max(0, cursorColumn), max(0, entity.columns.count - 1))
        if cursorColumn < columnOffset { columnOffset = cursorColumn }
        let widths = columnWidths()
        let available = gridWidth
        while columnOffset < cursorColumn {
            let used = widths[columnOffset...cursorColumn].reduce(0) { $0 + $1 + 1 }
            if used - 1 <= available { break }
            columnOffset += 1
        }
    }

    /// Width of the left pane listing the entities (0 when hidden).
    public var paneWidth: Int {
        guard focus == .entities || width >= 120 else { return 0 }
        return min(28, max(16, width / 4))
    }

    public var gridWidth: Int { max(1, width - paneWidth) }

    /// Each column's width: wide enough for its header and the visible values, at most 40.
    public func columnWidths() -> [Int] {
        if let widths { return widths }
        guard let entity else { return [] }
        let computed = entity.columns.indices.map { i in
            var w = CellText.width(of: TerminalText.escaped(entity.columns[i].name)) + (sort?.column == entity.columns[i].name ? 1 : 0)
            for row in rows where i < row.values.count {
                w = max(w, CellText.displayWidth(row.values[i]))
            }
            return min(max(w, 3), 40)
        }
        widths = computed
        return computed
    }

    func toggleSort(_ direction: BrowserSortDirection) {
        guard let column = entity?.columns[safe: cursorColumn]?.name else { return }
        let old = sort
        if sort == BrowserSort(column: column, direction: direction) {
            sort = nil
        } else {
            sort = BrowserSort(column: column, direction: direction)
        }
        workName = "sorting…"
        // Cancelled (Ctrl-C) or failed: the rows on screen are still in the old order.
        if !load(anchor: .first, cursorID: nil) { sort = old }
    }

    // MARK: Entity list

    func handleEntityList(_ key: BrowserKey) {
        switch key {
        case .down, .character("j"), .wheelDown: entitySelection = min(entitySelection + 1, max(0, entities.count - 1))
        case .up, .character("k"), .wheelUp: entitySelection = max(entitySelection - 1, 0)
        case .home, .character("g"): entitySelection = 0
        case .end, .character("G"): entitySelection = max(0, entities.count - 1)
        case .enter, .right, .character("l"):
            focus = .grid
            if entitySelection != entityIndex {
                backStack = []
                open(entitySelection, filter: "", sort: nil)
            }
        case .tab, .escape: focus = .grid
        case .character("q"): isFinished = true
        case .character("?"): mode = .help(scroll: 0)
        default: break
        }
    }

    // MARK: Filter

    func handleFilter(_ key: BrowserKey, _ editor: inout LineEditor) {
        switch key {
        case .escape:
            mode = .browse
        case .enter:
            let text = editor.text.trimmingSpaces
            if let name = entity?.name, !text.isEmpty, let error = source.validate(entity: name, filter: text) {
                mode = .filter(editor, error: error)
                setStatus(error.message, error: true)
                return
            }
            mode = .browse
            let old = filter
            filter = text
            workName = "filtering…"
            // Cancelled (Ctrl-C) or failed: the rows on screen still match the old filter.
            guard load(anchor: .first, cursorID: nil) else {
                filter = old
                return
            }
            backStack = []
            if old != text { count = nil }
            recount()
        case .tab:
            complete(&editor)
            revalidate(editor)
        default:
            guard editor.handle(key) else { return }
            revalidate(editor)
        }
    }

    private func revalidate(_ editor: LineEditor) {
        let text = editor.text.trimmingSpaces
        let error = text.isEmpty ? nil : entity.flatMap { source.validate(entity: $0.name, filter: editor.text) }
        mode = .filter(editor, error: error)
    }

    /// Tab in the filter: the word before the caret completed as at the prompt. One candidate
    /// replaces the word; several extend it by what they share (never dropping a typed
    /// character) and are listed in the status line.
    func complete(_ editor: inout LineEditor) {
        guard let completeFilter, let entity else { return }
        let (found, candidates) = completeFilter(entity.name, String(editor.characters[0..<editor.caret]))
        let start = min(max(0, found), editor.caret)
        let typed = String(editor.characters[start..<editor.caret])
        switch candidates.count {
        case 0:
            setStatus("no completion for '\(typed)'", error: false)
        case 1:
            editor.replace(start..<editor.caret, with: candidates[0])
        default:
            let shared = Self.sharedPrefix(candidates)
            if shared.count > typed.count { editor.replace(start..<editor.caret, with: shared) }
            setStatus(candidates.joined(separator: "  "), error: false)
        }
    }

    /// The longest prefix all of `words` have.
    static func sharedPrefix(_ words: [String]) -> String {
        guard var prefix = words.first.map(Array.init) else { return "" }
        for word in words.dropFirst() {
            prefix = Array(zip(prefix, word).prefix { $0 == $1 }.map(\.0))
        }
        return String(prefix)
    }

    // MARK: Record view

    func handleRecord(_ key: BrowserKey, _ selected: Int) {
        let columns = entity?.columns.count ?? 0
        let count = columns + (entity?.relationships.count ?? 0)
        switch key {
        case .down, .character("j"): mode = .record(selected: min(selected + 1, max(0, count - 1)))
        case .up, .character("k"): mode = .record(selected: max(selected - 1, 0))
        case .home, .character("g"): mode = .record(selected: 0)
        case .end, .character("G"): mode = .record(selected: max(0, count - 1))
        case .character("e"):
            if selected >= columns {
                setStatus("a relationship is not edited here: f follows it", error: true)
            } else {
                beginEdit(column: selected, fromRecord: true)
            }
        case .character("f"):
            mode = .browse
            if selected >= columns {
                followRelationship(selected - columns)
            } else {
                cursorColumn = selected
                follow()
            }
        case .enter, .escape, .character("q"):
            cursorColumn = min(selected, max(0, columns - 1))
            mode = .browse
            clampColumn()
        case .character("?"): mode = .help(scroll: 0)
        default: break
        }
    }

    // MARK: Writes

    /// Whether writes are allowed here; says why not in the status line.
    func writeAllowed() -> Bool {
        if readOnly {
            setStatus("read-only session: e, a, d and u are disabled", error: true)
            return false
        }
        if let entity, entity.isReadOnly {
            setStatus("\(entity.name) is read-only (a view or an entity without a primary id)", error: true)
            return false
        }
        return entity != nil
    }

    func beginEdit(column: Int, fromRecord: Bool) {
        guard writeAllowed() else { return }
        guard let row = currentRow, row.values.indices.contains(column) else {
            setStatus("nothing to edit", error: true)
            return
        }
        if let info = entity?.columns[safe: column], info.isGenerated {
            setStatus("\(info.name) is a generated column: it is computed, not edited", error: true)
            return
        }
        let value = row.values[column]
        if case .blob = value {
            setStatus("blobs cannot be edited here", error: true)
            return
        }
        mode = .editCell(column: column, editor: LineEditor(CellText.editable(value)), isNull: value.isNull,
                         fromRecord: fromRecord)
    }

    func handleEditor(_ key: BrowserKey, column: Int, editor: inout LineEditor, isNull: Bool, fromRecord: Bool) {
        let back: Mode = fromRecord ? .record(selected: column) : .browse
        switch key {
        case .escape:
            mode = back
        case .control("n"):
            mode = .editCell(column: column, editor: LineEditor(), isNull: true, fromRecord: fromRecord)
        case .enter:
            mode = back
            guard let entity, let row = currentRow, let name = entity.columns[safe: column]?.name else { return }
            let old = row.values[column]
            let value = isNull ? Value.null : Self.value(from: editor.text, like: old, column: entity.columns[column])
            do {
                let updated = try source.update(entity: entity.name, id: row.id, column: name, value: value)
                undoStack.append(.update(entity: entity.name, id: updated.id, column: name, old: old))
                rows[cursorRow] = updated
                afterWrite("updated \(entity.name).\(name)")
            } catch {
                setStatus("not saved: \(message(of: error))", error: true)
            }
        default:
            guard editor.handle(key) else { return }
            mode = .editCell(column: column, editor: editor, isNull: false, fromRecord: fromRecord)
        }
    }

    /// Typed text as a value: a number where the old value or the column is numeric, else text
    /// (SQLite's affinity converts it where the column declares a type).
    static func value(from text: String, like old: Value, column: BrowserColumn) -> Value {
        let numeric: Bool
        switch old {
        case .integer, .real: numeric = true
        case .text: numeric = false
        default: numeric = column.isNumeric
        }
        if numeric {
            if let i = Int64(text) { return .integer(i) }
            if let d = Double(text), d.isFinite { return .real(d) }
        }
        return .text(text)
    }

    func beginAdd() {
        guard writeAllowed(), let entity else { return }
        var form = AddForm(fields: Array(repeating: nil, count: entity.columns.count))
        form.selected = writableField(entity, from: 0, step: 1) ?? 0
        mode = .add(form)
    }

    /// The first field at or after `start` (going by `step`) that can be written: generated
    /// columns are shown read-only and skipped.
    func writableField(_ entity: BrowserEntity, from start: Int, step: Int) -> Int? {
        var i = start
        while entity.columns.indices.contains(i) {
            if !entity.columns[i].isGenerated { return i }
            i += step
        }
        return nil
    }

    func handleAdd(_ key: BrowserKey, _ form: inout AddForm) {
        guard let entity else { mode = .browse; return }
        switch key {
        case .escape:
            mode = .browse
            return
        case .down, .tab:
            form.selected = writableField(entity, from: form.selected + 1, step: 1) ?? form.selected
        case .up, .backTab:
            form.selected = writableField(entity, from: form.selected - 1, step: -1) ?? form.selected
        case .control("n"):
            form.fields[form.selected] = nil
            form.nulls.insert(form.selected)
        case .control("x"):
            form.fields[form.selected] = nil
            form.nulls.remove(form.selected)
        case .enter:
            mode = .browse
            submit(form, entity)
            return
        default:
            if entity.columns[safe: form.selected]?.isGenerated ?? true {
                setStatus("no attribute here can be set: generated columns are computed", error: true)
                return
            }
            var editor = form.fields[form.selected] ?? LineEditor()
            guard editor.handle(key) else { return }
            form.fields[form.selected] = editor
            form.nulls.remove(form.selected)
        }
        mode = .add(form)
    }

    func submit(_ form: AddForm, _ entity: BrowserEntity) {
        var values: [(String, Value)] = []
        for (i, column) in entity.columns.enumerated() where !column.isGenerated {
            if form.nulls.contains(i) {
                values.append((column.name, .null))
            } else if let field = form.fields[i] {
                values.append((column.name, Self.value(from: field.text, like: .null, column: column)))
            }
        }
        do {
            let row = try source.create(entity: entity.name, values: values)
            undoStack.append(.create(entity: entity.name, id: row.id))
            load(anchor: .atOrAfter(row), cursorID: row.id)
            afterWrite("created \(entity.name)")
        } catch {
            mode = .add(form)
            setStatus("not created: \(message(of: error))", error: true)
        }
    }

    func handleConfirmDelete(_ key: BrowserKey) {
        mode = .browse
        guard case .character(let c) = key, c == "y" || c == "Y" else {
            setStatus("not deleted", error: false)
            return
        }
        guard let entity, let row = currentRow else { return }
        do {
            try source.delete(entity: entity.name, id: row.id)
            undoStack.append(.delete(entity: entity.name, row: row))
            let fallback = cursorRow
            load(anchor: .atOrAfter(rows.first ?? row), cursorID: nil, cursorFallback: fallback)
            afterWrite("deleted 1 \(entity.name)")
        } catch {
            setStatus("not deleted: \(message(of: error))", error: true)
        }
    }

    func undo() {
        guard !readOnly else {
            _ = writeAllowed()
            return
        }
        guard let action = undoStack.popLast() else {
            setStatus("nothing to undo", error: false)
            return
        }
        do {
            switch action {
            case .update(let name, let id, let column, let old):
                let row = try source.update(entity: name, id: id, column: column, value: old)
                if let i = rows.firstIndex(where: { $0.id == id }), name == entity?.name { rows[i] = row }
                afterWrite("undone: update of \(name).\(column)")
            case .create(let name, let id):
                try source.delete(entity: name, id: id)
                afterWrite("undone: creation in \(name)")
            case .delete(let name, let row):
                let restored = try source.create(entity: name, values: restoreValues(name, row))
                if name == entity?.name { load(anchor: .atOrAfter(restored), cursorID: restored.id) }
                afterWrite("undone: deletion in \(name)")
            }
        } catch {
            undoStack.append(action)
            setStatus("undo failed: \(message(of: error))", error: true)
        }
    }

    /// Every attribute of a deleted row, plus the rowid when that is its identity.
    func restoreValues(_ name: String, _ row: BrowserRow) -> [(String, Value)] {
        guard let entity = entities.first(where: { $0.name == name }) else { return [] }
        var values = zip(entity.columns, row.values).filter { !$0.0.isGenerated }.map { ($0.name, $1) }
        for (column, value) in zip(entity.idColumns, row.id) where !entity.columns.contains(where: { $0.name == column }) {
            values.append((column, value))
        }
        return values
    }

    /// After a successful write: show the rows as stored now and say what happened.
    func afterWrite(_ text: String) {
        lastToken = source.changeToken()
        reload()
        recount()
        setStatus(text, error: false)
    }

    // MARK: Following keys

    func follow() {
        guard let entity, let row = currentRow, let column = entity.columns[safe: cursorColumn] else { return }
        guard let reference = column.reference else {
            setStatus("\(column.name) is not a foreign key (Enter lists the relationships; f follows one)", error: true)
            return
        }
        let value = row.values[cursorColumn]
        if value.isNull {
            setStatus("\(column.name) is NULL: nothing to follow", error: true)
            return
        }
        guard let target = entityIndex(named: reference.entity) else {
            setStatus("no entity named '\(reference.entity)'", error: true)
            return
        }
        backStack.append(Place(entityIndex: entityIndex, filter: filter, sort: sort, top: rows.first,
                               cursorID: row.id, cursorColumn: cursorColumn))
        let targetFilter = Self.equalityFilter([(reference.column, value)])
        open(target, filter: targetFilter, sort: nil)
        if let i = entities[target].columns.firstIndex(where: { $0.name == reference.column }) {
            cursorColumn = i
            clampColumn()
        }
    }

    /// `a == 1 AND b == 2`, printed by the predicate printer: reserved-word or odd column
    /// names and any value come out as text that parses back to exactly these comparisons.
    static func equalityFilter(_ pairs: [(column: String, value: Value)]) -> String {
        let comparisons = pairs.map { Predicate.comparison(Comparison(.key($0.column), .equal, .literal($0.value))) }
        guard let first = comparisons.first else { return "" }
        return comparisons.dropFirst().reduce(first) { .and($0, $1) }.description
    }

    /// The filter on the relationship's destination that finds the rows related to `row`; nil
    /// when a joining value is NULL (nothing is related).
    func relatedFilter(_ relationship: BrowserRelationship, _ row: BrowserRow, _ entity: BrowserEntity) -> String? {
        var pairs: [(column: String, value: Value)] = []
        for (source, destination) in zip(relationship.sourceColumns, relationship.destinationColumns) {
            guard let value = Self.value(of: source, in: row, entity), !value.isNull else { return nil }
            pairs.append((destination, value))
        }
        return pairs.isEmpty ? nil : Self.equalityFilter(pairs)
    }

    /// The row's value of `column`, which may be the rowid (an id that is no column).
    static func value(of column: String, in row: BrowserRow, _ entity: BrowserEntity) -> Value? {
        if let i = entity.columns.firstIndex(where: { $0.name.lowercased() == column.lowercased() }) { return row.values[safe: i] }
        if let i = entity.idColumns.firstIndex(where: { $0.lowercased() == column.lowercased() }) { return row.id[safe: i] }
        return nil
    }

    /// Fills `relatedSummaries` for the current row (on opening the record view).
    func summarizeRelationships() {
        guard let entity, let row = currentRow else {
            relatedSummaries = []
            return
        }
        relatedSummaries = entity.relationships.map { summary(of: $0, row, entity) }
    }

    /// `→ AC/DC  (Artist 1)` for a to-one relationship, `→ 10 Track` for a to-many one.
    func summary(of relationship: BrowserRelationship, _ row: BrowserRow, _ entity: BrowserEntity) -> String {
        guard let filter = relatedFilter(relationship, row, entity) else {
            return relationship.isToMany ? "→ 0 \(relationship.destination)" : "→ NULL"
        }
        do {
            if relationship.isToMany {
                let count = try source.count(entity: relationship.destination, filter: filter, budget: countBudget)
                return "→ \(count.label) \(relationship.destination)"
            }
            let related = try source.page(PageRequest(entity: relationship.destination, filter: filter, sort: nil,
                                                      anchor: .first, limit: 1))
            guard let target = related.first, let destination = entities.first(where: { $0.name == relationship.destination })
            else { return "→ none (no \(relationship.destination) where \(filter))" }
            return "→ " + Self.displayName(target, destination)
        } catch {
            return "→ ? (\(message(of: error)))"
        }
    }

    /// How a row is named for people: its name or title column (else the first text that is
    /// not part of its id), with the entity and id after it.
    static func displayName(_ row: BrowserRow, _ entity: BrowserEntity) -> String {
        let names = entity.columns.map { $0.name.lowercased() }
        let id = row.id.map { CellText.display($0).text }.joined(separator: ", ")
        let index = names.firstIndex { ["name", "title", "label"].contains($0) }
            ?? names.firstIndex { $0.contains("name") || $0.contains("title") }
            ?? entity.columns.indices.first { i in
                if case .text? = row.values[safe: i], !entity.columns[i].isKey { return true } else { return false }
            }
        guard let index, let value = row.values[safe: index], !value.isNull else { return "\(entity.name) \(id)" }
        return "\(CellText.display(value).text)  (\(entity.name) \(id))"
    }

    /// `f` on a relationship in the record view: its destination, filtered to the related rows.
    func followRelationship(_ index: Int) {
        guard let entity, let row = currentRow, let relationship = entity.relationships[safe: index] else { return }
        guard let filter = relatedFilter(relationship, row, entity) else {
            setStatus("\(relationship.name): nothing is related (a joining value is NULL)", error: true)
            return
        }
        guard let target = entityIndex(named: relationship.destination) else {
            setStatus("no entity named '\(relationship.destination)'", error: true)
            return
        }
        backStack.append(Place(entityIndex: entityIndex, filter: self.filter, sort: sort, top: rows.first,
                               cursorID: row.id, cursorColumn: cursorColumn))
        open(target, filter: filter, sort: nil)
    }

    func goBack() {
        guard let place = backStack.popLast() else {
            setStatus("nowhere to go back to", error: false)
            return
        }
        let anchor: PageAnchor = place.top.map { .atOrAfter($0) } ?? .first
        open(place.entityIndex, filter: place.filter, sort: place.sort, anchor: anchor, cursorID: place.cursorID)
        cursorColumn = place.cursorColumn
        clampColumn()
    }

    // MARK: Help, commands

    func handleHelp(_ key: BrowserKey, _ scroll: Int) {
        switch key {
        case .down, .character("j"), .wheelDown: mode = .help(scroll: min(scroll + 1, max(0, Self.helpLines.count - 1)))
        case .up, .character("k"), .wheelUp: mode = .help(scroll: max(0, scroll - 1))
        case .pageDown, .character(" "): mode = .help(scroll: min(scroll + pageSize, max(0, Self.helpLines.count - 1)))
        case .pageUp: mode = .help(scroll: max(0, scroll - pageSize))
        default: mode = .browse
        }
    }

    func handleCommand(_ key: BrowserKey, _ editor: inout LineEditor) {
        switch key {
        case .escape: mode = .browse
        case .enter:
            let text = editor.text.trimmingSpaces
            mode = .browse
            guard !text.isEmpty, let runCommand else { return }
            let output = runCommand(text)
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let trimmed = lines.last == "" ? Array(lines.dropLast()) : lines
            if !trimmed.isEmpty { mode = .output(lines: trimmed, scroll: 0) }
            // A command may have changed the schema or the data.
            if let refreshed = try? source.entities() {
                let current = entity?.name
                entities = refreshed
                entityIndex = current.flatMap { entityIndex(named: $0) } ?? 0
                entitySelection = entityIndex
            }
            lastToken = source.changeToken()
            reload()
            recount()
            if trimmed.isEmpty { setStatus("done: \(text)", error: false) }
        default:
            guard editor.handle(key) else { return }
            mode = .command(editor)
        }
    }

    func handleOutput(_ key: BrowserKey, _ lines: [String], _ scroll: Int) {
        let last = max(0, lines.count - 1)
        switch key {
        case .down, .character("j"), .wheelDown: mode = .output(lines: lines, scroll: min(scroll + 1, last))
        case .up, .character("k"), .wheelUp: mode = .output(lines: lines, scroll: max(0, scroll - 1))
        case .pageDown, .character(" "): mode = .output(lines: lines, scroll: min(scroll + pageSize, last))
        case .pageUp: mode = .output(lines: lines, scroll: max(0, scroll - pageSize))
        case .character(":"):
            // A new command while the output is open: the line opens, as in the grid.
            mode = .command(LineEditor())
        default:
            // The key that closes the pane does nothing else, and nor does what was typed after it.
            mode = .browse
            discardTypeAhead = true
        }
    }

    /// Whether keys typed ahead must be dropped now; resets the request.
    public func takeDiscardTypeAhead() -> Bool {
        defer { discardTypeAhead = false }
        return discardTypeAhead
    }

    /// Every key, for `?`.
    public static let helpLines: [String] = [
        "arrows, h j k l   move the cursor",
        "PgUp PgDn ^B ^F   page",
        "Space             page down",
        "wheel             move the cursor 3 rows",
        "Home End g G      first / last row",
        "Tab               entity list / grid",
        "/                 filter (a predicate; Tab completes, Enter applies, Esc cancels)",
        "s S               sort ascending / descending (again: clear)",
        "Enter             record view",
        "e                 edit the cell (Ctrl-N: NULL)",
        "a                 add an entity",
        "d                 delete the entity (asks y/n)",
        "u                 undo the last write",
        "f                 follow the foreign key, or a relationship in the record view",
        "Backspace         back from a followed key",
        "r                 reload now",
        ":                 run a command",
        "Ctrl-C            cancel a count, a query, or a write waiting for a lock",
        "Ctrl-L            redraw the screen",
        "?                 this help",
        "q                 back / quit",
        "Esc               back (never quits)",
    ]
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return String(s)
    }
}
