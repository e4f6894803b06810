/// Cuts input into commands: a command ends at a newline or `;` outside quotes and brackets, and
/// continues on the next line while a quote, parenthesis, bracket or brace is open.
public enum InputSplitter {
    /// The complete commands in `text` (trimmed, empty ones and `--`/`#` comment lines dropped),
    /// and what is left open at its end (nil when nothing is).
    public static func split(_ text: String) -> (commands: [String], pending: String?) {
        var commands: [String] = []
        var current = ""
        var quote: Character?
        var escaped = false
        var depth = 0
        var atStart = true
        var inComment = false
        for c in text {
            if inComment {
                if c == "\n" { inComment = false }
                continue
            }
            if atStart && c == "#" {
                inComment = true
                continue
            }
            if let q = quote {
                current.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == q { quote = nil }
                continue
            }
            switch c {
            case "\"", "'":
                quote = c
            case "(", "[", "{":
                depth += 1
            case ")", "]", "}":
                depth = max(0, depth - 1)
            case "\n", ";", "\r\n":
                if depth == 0 {
                    append(&commands, current)
                    current = ""
                    atStart = true
                    continue
                }
            default:
                break
            }
            if c.isWhitespace && atStart { continue }
            atStart = false
            current.append(c)
            if current == "--" {
                current = ""
                inComment = true
                atStart = true
            }
        }
        if quote != nil || depth > 0 { return (commands, current) }
        append(&commands, current)
        return (commands, nil)
    }

    private static func append(_ commands: inout [String], _ text: String) {
        let trimmed = text.trimmingWhitespace()
        if !trimmed.isEmpty { commands.append(trimmed) }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
