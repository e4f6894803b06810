import Foundation
import PortalEngine

/// The browser's entry point, for the shell (`--browse`, `browse`).
public enum Browser {
    /// Runs the browser on a store (read-only when the store is, or when `readOnly`).
    /// `runCommand` runs one shell command for `:` and returns everything it printed.
    public static func run(store: Store, entity: String?, filter: String?, sort: BrowserSort? = nil, readOnly: Bool,
                           color: Bool, runCommand: ((String) -> String)?, completeFilter: FilterCompleter? = nil) throws {
        try run(source: EngineDataSource(store: store), entity: entity, filter: filter, sort: sort,
                readOnly: readOnly || store.isReadOnly, color: color, runCommand: runCommand,
                completeFilter: completeFilter)
    }

    /// Runs the full-screen browser until the user quits.
    ///
    /// - Parameters:
    ///   - source: where rows come from and writes go (`EngineDataSource(store:)` for a database).
    ///   - entity: the entity to open on (case-insensitive), else the first one.
    ///   - filter: its initial filter (a predicate); an invalid one is an error before the screen opens.
    ///   - readOnly: refuse `e`, `a`, `d`, `u` and say why.
    ///   - color: use colours (false under `NO_COLOR` / `--color never`).
    ///   - runCommand: runs one shell command for `:` and returns what it printed.
    ///   - completeFilter: Tab's candidates in the filter (`/`), as the prompt's completion gives them.
    public static func run(source: any BrowserDataSource, entity: String?, filter: String?, sort: BrowserSort? = nil,
                           readOnly: Bool, color: Bool, runCommand: ((String) -> String)?,
                           completeFilter: FilterCompleter? = nil) throws {
        // Errors (unknown entity, bad filter, unreadable database) surface before the screen changes.
        try BrowserModel(source: source, width: 80, height: 24).check(entity: entity, filter: filter, sort: sort)
        BrowserSignals.install()
        let terminal = Terminal(color: color)
        defer {
            terminal.close()
            BrowserSignals.restoreAndRaise()
        }
        // A signal while a query or write runs cancels it, as Ctrl-C does; the loop then ends.
        let interruptible = InterruptibleSource(source) {
            BrowserSignals.pending != nil ? .control("c") : terminal.readKey(timeoutMilliseconds: 0)
        }
        let model = BrowserModel(source: interruptible, width: terminal.width, height: terminal.height,
                                 readOnly: readOnly, runCommand: runCommand, completeFilter: completeFilter)
        // A slow query or a write held up by a lock says so on the screen while it runs.
        interruptible.onBusy = { busy in
            model.showBusy(busy)
            terminal.draw(Renderer.render(model))
        }
        try model.start(entity: entity, filter: filter, sort: sort)
        let counter = BackgroundCounter(source: source)
        var typed: [BrowserKey] = []
        while !model.isFinished, BrowserSignals.pending == nil {
            terminal.draw(Renderer.render(model))
            counter.start(model.takePendingCounts(), budget: model.countBudget)
            typed += interruptible.takeTypedKeys()
            let key = typed.isEmpty ? terminal.readKey() : typed.removeFirst()
            if BrowserSignals.pending != nil { break }
            for (job, outcome) in counter.takeFinished() { model.jobFinished(job, outcome) }
            if key == .control("l") {
                terminal.invalidate()
                continue
            }
            let wasCommand: Bool
            if case .command = model.mode { wasCommand = true } else { wasCommand = false }
            model.handle(key)
            if model.takeDiscardTypeAhead() {
                typed.removeAll()
                terminal.discardTypeAhead()
            }
            // A command may have written to the terminal behind ncurses's back.
            if wasCommand, key == .enter { terminal.invalidate() }
        }
        counter.cancelAll()
    }
}

/// Runs exact counts and statistics on background threads and collects their results for the main loop.
final class BackgroundCounter: @unchecked Sendable {
    private let source: any BrowserDataSource
    private let lock = NSLock()
    private var finished: [(BrowserModel.CountJob, BrowserModel.JobOutcome)] = []

    init(source: any BrowserDataSource) { self.source = source }

    func start(_ jobs: [BrowserModel.CountJob], budget: Duration) {
        for job in jobs {
            let thread = Thread { [self] in
                BrowserModel.run(job, on: source, budget: budget) { result in
                    lock.lock()
                    finished.append((job, result))
                    lock.unlock()
                }
            }
            thread.start()
        }
    }

    func takeFinished() -> [(BrowserModel.CountJob, BrowserModel.JobOutcome)] {
        lock.lock()
        defer { lock.unlock() }
        let done = finished
        finished = []
        return done
    }

    func cancelAll() { source.cancel() }
}
