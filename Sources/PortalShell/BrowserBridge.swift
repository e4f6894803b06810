import PortalEngine
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// Opens the full-screen browser (PortalTUI) on the session's own store: it sees what the
/// session's open transaction changed and writes inside it, and the file is left in the journal
/// mode it has. `:` commands run in this session's executor and show what they printed.
enum BrowserBridge {
    static func open(_ executor: Executor, _ query: Query?) throws {
        try requireTerminal()
        let database = try executor.requireDatabase()
        guard database.path != ":memory:" else { throw ShellError("the browser needs a database file, not :memory:") }
        let store = database.store
        let sort = query?.sort.first.map {
            BrowserSort(column: $0.value.keyPath, direction: $0.value.ascending ? .ascending : .descending)
        }
        let runCommand: (String) -> String = { text in
            // No prompt can be answered under the full-screen browser: commands that would ask are refused.
            let savedConfirm = executor.confirm
            executor.confirm = { _ in false }
            defer { executor.confirm = savedConfirm }
            return executor.capturingOutput { _ = executor.run(text, stopOnError: true) }
        }
        // Tab in the filter completes as the prompt does after `where`.
        let completeFilter: FilterCompleter = { entity, text in
            Completion.filterCandidates(text, entity: entity, schema: executor.database?.schema ?? Schema(entities: []),
                                        variables: executor.variables.keys.sorted())
        }
        do {
            try Browser.run(store: store, entity: query?.entity.value, filter: query?.predicate?.text, sort: sort,
                            // On a Core Data store the browser's edits go through the engine's
                            // writes, which keep its bookkeeping and the model's delete rules.
                            readOnly: database.isReadOnly, color: executor.options.color, runCommand: runCommand,
                            completeFilter: completeFilter)
        } catch {
            throw ShellError.from(error, predicateOffset: query?.predicate?.offset)
        }
    }

    /// The browser reads keys from standard input and draws on standard output: without a
    /// terminal on both, ncurses would read end-of-file forever. A usage error (exit status 2).
    static func requireTerminal() throws(ShellError) {
        let missing = [(0, "standard input"), (1, "standard output")].filter { isatty($0.0) != 1 }.map(\.1)
        guard missing.isEmpty else {
            var error = ShellError("the browser needs a terminal: \(missing.joined(separator: " and ")) "
                                   + "\(missing.count == 1 ? "is" : "are") not a terminal (to print results, use find)")
            error.reason = .usage
            throw error
        }
    }
}

extension Executor {
    /// Runs `body` with results and errors collected in memory; returns the text. The text is
    /// plain, without colour codes: it is shown in the browser's pane, not written to a terminal.
    func capturingOutput(_ body: () -> Void) -> String {
        let saved = (output, errors, options.color)
        let collector = OutputStream()
        output = collector
        errors = collector
        options.color = false
        body()
        (output, errors) = (saved.0, saved.1)
        options.color = saved.2
        return collector.text
    }
}
