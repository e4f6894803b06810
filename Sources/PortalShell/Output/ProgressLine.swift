/// A line of progress on standard error, redrawn in place (`\r`, then erase to the end of the
/// line) while a long command runs, cleared when it ends. Shown only on a terminal.
final class ProgressLine {
    private let errors: OutputStream
    private let enabled: Bool
    private var shown = false

    init(_ errors: OutputStream, enabled: Bool) {
        self.errors = errors
        self.enabled = enabled
    }

    /// Replaces the line with `text`.
    func show(_ text: String) {
        guard enabled else { return }
        errors.write("\r\u{1B}[K" + text)
        errors.flush()
        shown = true
    }

    /// Clears the line for what follows.
    func finish() {
        guard shown else { return }
        errors.write("\r\u{1B}[K")
        errors.flush()
        shown = false
    }
}
