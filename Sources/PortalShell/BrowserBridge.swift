import PortalEngine

/// Opens the full-screen browser (PortalTUI) on the session's database.
enum BrowserBridge {
    static func open(_ executor: Executor, _ query: Query?) throws {
        throw ShellError("the full-screen browser is not available in this build yet")
    }
}
