/// A key (or other input event) the browser reacts to.
public enum BrowserKey: Sendable, Hashable {
    /// A printable character.
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, deleteForward
    /// Control plus a lowercase letter: `.control("b")` is Ctrl-B.
    case control(Character)
    /// The terminal now has this size.
    case resize(width: Int, height: Int)
    case wheelUp, wheelDown
    /// Nothing was typed for a while: time to look for changes made elsewhere.
    case tick
}

/// A one-line text field with a caret, for the filter, the cell editor, the add form and `:`.
public struct LineEditor: Sendable, Hashable {
    public private(set) var characters: [Character]
    /// The caret, in characters from the start.
    public private(set) var caret: Int

    public init(_ text: String = "") {
        characters = Array(text)
        caret = characters.count
    }

    public var text: String { String(characters) }

    /// Replaces the characters in `range` with `text` and puts the caret after it (completion).
    public mutating func replace(_ range: Range<Int>, with text: String) {
        let range = max(0, range.lowerBound)..<min(characters.count, range.upperBound)
        characters.replaceSubrange(range, with: Array(text))
        caret = range.lowerBound + text.count
    }

    /// Applies an editing key; returns false when the key is not an editing key.
    public mutating func handle(_ key: BrowserKey) -> Bool {
        switch key {
        case .character(let c):
            characters.insert(c, at: caret)
            caret += 1
        case .backspace:
            if caret > 0 {
                characters.remove(at: caret - 1)
                caret -= 1
            }
        case .deleteForward, .control("d"):
            if caret < characters.count { characters.remove(at: caret) }
        case .left, .control("b"): caret = max(0, caret - 1)
        case .right, .control("f"): caret = min(characters.count, caret + 1)
        case .home, .control("a"): caret = 0
        case .end, .control("e"): caret = characters.count
        case .control("u"):
            characters.removeSubrange(0..<caret)
            caret = 0
        case .control("k"): characters.removeSubrange(caret...)
        default: return false
        }
        return true
    }
}
