import PortalEngine

// The filter prompt (`/`): editing, checking as you type, completion.
extension BrowserModel {
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
}
