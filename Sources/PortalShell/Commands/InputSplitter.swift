import PortalEngine

/// Cuts input into commands: a command ends at a newline or `;` outside quotes and brackets, and
/// continues on the next line while a quote, parenthesis, bracket or brace is open. An `sql`
/// command ends at a `;` or newline only where its SQL statement is complete (SQLite's rule).
public enum InputSplitter {
    /// The complete commands in `text` (trimmed, empty ones and `--`/`#` comment lines dropped),
    /// and what is left open at its end (nil when nothing is).
    public static func split(_ text: String) -> (commands: [String], pending: String?) {
        let (commands, pending) = splitWithLines(text)
        return (commands.map(\.text), pending?.text)
    }

    /// As `split`, with the line (from 1) each command starts on, for errors from scripts.
    public static func splitWithLines(_ text: String) -> (commands: [(text: String, line: Int)], pending: (text: String, line: Int)?) {
        var commands: [(text: String, line: Int)] = []
        var line = 1
        var startLine = 1
        var current = ""
        var quote: Character?
        var escaped = false
        var depth = 0
        var atStart = true
        var inComment = false
        /// Inside an `sql` command, whose first `sqlPrefix` characters are the command word.
        var sqlMode = false
        var sqlPrefix = 0
        for c in text {
            defer { if c == "\n" || c == "\r\n" { line += 1 } }
            if inComment {
                if c == "\n" { inComment = false }
                continue
            }
            if atStart && c == "#" {
                inComment = true
                continue
            }
            if !sqlMode && !atStart && quote == nil && depth == 0 && c.isWhitespace
                && ["sql", ".sql"].contains(current.lowercased()) {
                sqlMode = true
                sqlPrefix = current.count
            }
            if sqlMode {
                // An `sql` command ends where SQLite says its statement does, not at the
                // first `;` or newline: `CREATE TRIGGER … BEGIN …; END` and SQL strings and
                // comments stay whole.
                if c == ";" || c == "\n" || c == "\r\n" {
                    let body = String(current.dropFirst(sqlPrefix))
                    if c == ";" ? SQLStatements.isComplete(body + ";") : SQLStatements.canEnd(body) {
                        append(&commands, current, startLine)
                        current = ""
                        atStart = true
                        sqlMode = false
                        continue
                    }
                }
                current.append(c)
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
                    append(&commands, current, startLine)
                    current = ""
                    atStart = true
                    continue
                }
            default:
                break
            }
            if c.isWhitespace && atStart { continue }
            if atStart { startLine = line }
            atStart = false
            current.append(c)
            if current == "--" {
                current = ""
                inComment = true
                atStart = true
            }
        }
        if quote != nil || depth > 0 || sqlMode && !SQLStatements.canEnd(String(current.dropFirst(sqlPrefix))) {
            return (commands, (current, startLine))
        }
        append(&commands, current, startLine)
        return (commands, nil)
    }

    private static func append(_ commands: inout [(text: String, line: Int)], _ text: String, _ line: Int) {
        let trimmed = text.trimmingWhitespace()
        if !trimmed.isEmpty { commands.append((trimmed, line)) }
    }
}
