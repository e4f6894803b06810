import PortalEngine
import PortalTUI

/// Opens the full-screen browser (PortalTUI) on the session's database.
enum BrowserBridge {
    static func open(_ executor: Executor, _ query: Query?) throws {
        guard let database = executor.database else { throw ShellError("no database is open") }
        let store = try Store(path: database.path, options: StoreOptions(readOnly: database.isReadOnly, create: false))
        defer { try? store.close() }
        let sort = query?.sort.first.map { BrowserSort(column: $0.value.keyPath, direction: $0.value.ascending ? .ascending : .descending) }
        try Browser.run(store: store, entity: query?.entity.value, filter: query?.predicate?.text, sort: sort,
                        readOnly: database.isReadOnly, color: executor.options.color) { text in
            let saved = executor.output
            let captured = OutputStream()
            executor.output = captured
            defer { executor.output = saved }
            executor.run(text)
            return captured.text
        }
    }
}
