import PortalEngine
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// Opens the full-screen browser (PortalTUI) on the session's database.
enum BrowserBridge {
    static func open(_ executor: Executor, _ query: Query?) throws {
        guard let database = executor.database else { throw ShellError("no database is open") }
        let store = try Store(path: database.path, options: StoreOptions(readOnly: database.isReadOnly, create: false))
        defer { try? store.close() }
        let sort = query?.sort.first.map {
            BrowserSort(column: $0.value.keyPath, direction: $0.value.ascending ? .ascending : .descending)
        }
        try Browser.run(store: store, entity: query?.entity.value, filter: query?.predicate?.text, sort: sort,
                        readOnly: database.isReadOnly, color: executor.options.color) { text in
            runCaptured(text, on: executor)
        }
    }

    /// Runs one command for the browser's `:` and returns what it printed, standard error
    /// included (nothing may reach the terminal behind ncurses). A command that would ask for
    /// confirmation is refused: there is no prompt under the full-screen browser.
    static func runCaptured(_ text: String, on executor: Executor) -> String {
        let savedOutput = executor.output
        let savedConfirm = executor.confirm
        let captured = OutputStream()
        executor.output = captured
        executor.confirm = { _ in false }
        defer {
            executor.output = savedOutput
            executor.confirm = savedConfirm
        }
        let errors = capturingStandardError { executor.run(text) }
        return captured.text + errors
    }

    /// Runs `body` with file descriptor 2 sent to a temporary file; returns what was written there.
    static func capturingStandardError(_ body: () -> Void) -> String {
        fflush(nil)
        guard let file = tmpfile() else {
            body()
            return ""
        }
        defer { fclose(file) }
        let saved = dup(2)
        guard saved >= 0, dup2(fileno(file), 2) >= 0 else {
            if saved >= 0 { close(saved) }
            body()
            return ""
        }
        body()
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        rewind(file)
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            data += buffer[0..<n]
        }
        return String(decoding: data, as: UTF8.self)
    }
}
