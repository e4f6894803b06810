import PortalEngine

// Help (`?`), the command line (`:`) and its output pane.
extension BrowserModel {
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
        "0 $               first / last column",
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
        "F                 frequency table of the column (Enter filters to a value)",
        "I                 statistics and histogram of the column",
        "- +               hide the column / show every hidden column",
        "Ctrl-C            cancel a count, a query, or a write waiting for a lock",
        "Ctrl-L            redraw the screen",
        "?                 this help",
        "q                 back / quit",
        "Esc               back (never quits)",
    ]
}
