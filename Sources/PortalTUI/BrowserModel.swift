import PortalEngine

/// Everything the browser shows, changed only by key events.
///
/// The model holds just the visible window of rows; every scroll asks the data source for the
/// rows after or before the window's edge by key, so memory is bounded by the screen.
public final class BrowserModel {
    public enum Focus: Sendable, Hashable { case grid, entities }

    public enum Mode: Sendable, Hashable {
        case browse
        case filter(LineEditor, error: BrowserError?)
        case record(selected: Int)
        case editCell(column: Int, editor: LineEditor, isNull: Bool, fromRecord: Bool)
        case add(AddForm)
        case confirmDelete
        case help(scroll: Int)
        case command(LineEditor)
        case output(lines: [String], scroll: Int)
        case frequency(FrequencyView)
        case statistics(StatisticsView)
    }

    /// The add form: one field per column; nil means "leave it to the default".
    public struct AddForm: Sendable, Hashable {
        public var fields: [LineEditor?]
        public var nulls: Set<Int> = []
        public var selected: Int = 0
    }

    /// A background count the runner should perform and report with `jobFinished`: the rows
    /// matching a filter, a column's distinct values (`F`) or its statistics (`I`).
    public struct CountJob: Sendable, Hashable {
        public enum Kind: Sendable, Hashable { case rows, values(column: String), statistics(column: String) }
        public var entity: String
        public var filter: String
        public var kind: Kind = .rows
    }

    /// What a background job found: a count (nil when it failed or was cancelled), or statistics.
    public enum JobOutcome: Sendable {
        case count(RowCount?)
        case statistics(Result<ColumnSummary, BrowserError>)
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

    public internal(set) var width: Int
    public internal(set) var height: Int
    public internal(set) var entities: [BrowserEntity] = [] { didSet { widths = nil } }
    public internal(set) var entityCounts: [String: RowCount] = [:]
    public internal(set) var entityIndex = 0 { didSet { widths = nil } }
    public internal(set) var entitySelection = 0
    public internal(set) var focus: Focus = .grid
    public internal(set) var filter = ""
    public internal(set) var sort: BrowserSort? { didSet { widths = nil } }
    public internal(set) var rows: [BrowserRow] = [] { didSet { widths = nil } }
    /// `columnWidths()` of the current rows, kept until the rows, sort or entity change.
    var widths: [Int]?
    public internal(set) var cursorRow = 0
    public internal(set) var cursorColumn = 0
    public internal(set) var columnOffset = 0
    public internal(set) var count: RowCount?
    public internal(set) var status = ""
    public internal(set) var statusIsError = false
    /// What a key's slow work is doing, shown while it runs (`sorting…`); nil otherwise.
    public internal(set) var busyText: String?
    /// In the record view, one line per relationship of the row: to-one, the related entity's
    /// name; to-many, how many there are.
    public internal(set) var relatedSummaries: [String] = []
    /// What the work of the key being handled is called, for `busyText`.
    var workName = "loading…"

    public internal(set) var mode: Mode = .browse
    public internal(set) var isFinished = false
    /// Set when the `:` output pane was closed: keys typed ahead of that (the rest of a command
    /// typed while the pane was open) must be dropped, not read as grid keys that edit or delete.
    /// The runner takes it (`takeDiscardTypeAhead()`).
    public internal(set) var discardTypeAhead = false
    /// Counts still to be finished in the background; the runner takes them.
    public internal(set) var pendingCounts: [CountJob] = []
    /// Counts being computed right now (the status line says `counting…`).
    public internal(set) var runningCounts: Set<CountJob> = []
    /// The columns `-` hid, per entity, until `+` (kept while the session lasts).
    public internal(set) var hiddenColumns: [String: Set<String>] = [:] { didSet { widths = nil } }
    var backStack: [Place] = []
    var undoLog = UndoLog()
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
    /// The entity list, the first page and the change token come from one state of the database
    /// (on a server, one transaction).
    public func start(entity: String?, filter: String?, sort: BrowserSort? = nil) throws {
        lastToken = try source.consistently {
            let (index, sort) = try check(entity: entity, filter: filter, sort: sort)
            countEntities()
            guard let index else {
                setStatus("the database has no entities", error: false)
                return
            }
            open(index, filter: filter ?? "", sort: sort)
        }.token
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
        if let filter, !filter.trimmingSpaces.isEmpty, var error = source.validate(entity: name, filter: filter) {
            error.message = "invalid filter: " + error.message
            throw error
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
        guard let result, job.entity == entity?.name || job.kind == .rows else { return }
        switch job.kind {
        case .rows:
            if job.filter.isEmpty { entityCounts[job.entity] = result }
            if job.entity == entity?.name, job.filter == filter { count = result }
        case .values(let column):
            guard case .frequency(var view) = mode, view.column == column, job.filter == filter else { return }
            view.values = result
            mode = .frequency(view)
        case .statistics:
            break
        }
    }

    /// A background job has a result (the runner calls this for every job it took).
    public func jobFinished(_ job: CountJob, _ outcome: JobOutcome) {
        switch outcome {
        case .count(let result): countFinished(job, result)
        case .statistics(let result):
            runningCounts.remove(job)
            guard case .statistics(let column) = job.kind, job.entity == entity?.name, job.filter == filter,
                  case .statistics(var view) = mode, view.column == column else { return }
            switch result {
            case .success(let summary): view.summary = summary
            case .failure(let error): view.failure = error.message
            }
            mode = .statistics(view)
        }
    }

    /// Runs one count job as the background runner does: within the budget, then exactly.
    public static func perform(_ job: CountJob, on source: any BrowserDataSource, budget: Duration,
                               report: (RowCount?) -> Void) {
        func count(_ budget: Duration?) -> RowCount? {
            switch job.kind {
            case .values(let column):
                return try? source.countValues(entity: job.entity, filter: job.filter, column: column, budget: budget)
            case .rows, .statistics:
                return try? source.count(entity: job.entity, filter: job.filter, budget: budget)
            }
        }
        let first = count(budget)
        report(first)
        guard case .atLeast? = first else { return }
        report(count(nil))
    }

    /// Runs any job as the background runner does: counts as `perform` does, statistics at once.
    public static func run(_ job: CountJob, on source: any BrowserDataSource, budget: Duration,
                           report: (JobOutcome) -> Void) {
        guard case .statistics(let column) = job.kind else {
            return perform(job, on: source, budget: budget) { report(.count($0)) }
        }
        do {
            report(.statistics(.success(try source.statistics(entity: job.entity, filter: job.filter, column: column))))
        } catch {
            report(.statistics(.failure(BrowserError.from(error))))
        }
    }

    /// Runs the pending jobs here and now (tests and benchmarks have no background thread).
    public func runPendingCounts() {
        for job in takePendingCounts() {
            Self.run(job, on: source, budget: countBudget) { jobFinished(job, $0) }
        }
    }

    public var isCounting: Bool { !runningCounts.isEmpty || !pendingCounts.isEmpty }

    // MARK: - Status

    func setStatus(_ text: String, error: Bool) {
        status = text
        statusIsError = error
    }

    func message(of error: any Error) -> String { BrowserError.from(error).message }

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
        case .frequency(let view): handleFrequency(key, view)
        case .statistics(let view): handleStatistics(key, view)
        }
    }

    func resize(width w: Int, height h: Int) {
        let cursorID = currentRow?.id
        let oldRow = cursorRow
        width = max(1, w)
        height = max(1, h)
        if case .frequency(let view) = mode { mode = .frequency(fitted(view)) }
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
        switch mode {
        case .browse:
            reload()
            recount()
        case .frequency(let view):
            reload()
            recount()
            refreshFrequency(view)
        case .statistics(let view):
            reload()
            recount()
            // The old figures stay on screen until the new ones are in.
            if let name = entity?.name { schedule(CountJob(entity: name, filter: filter, kind: .statistics(column: view.column))) }
        default:
            return
        }
    }
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
