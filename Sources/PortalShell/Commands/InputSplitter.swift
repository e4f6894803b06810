import PortalEngine
import PortalSQLite

/// Cuts input into commands: a command ends at a newline or `;` outside quotes and brackets, and
/// continues on the next line while a quote, parenthesis, bracket or brace is open. An `sql`
/// command ends at a `;` or newline only where its SQL statement is complete (SQLite's rule), and
/// continues on the next line while SQLite's parser would call it incomplete (`SELECT a,`,
/// `... UNION`, an open parenthesis); in a script, a next line that starts with a clause
/// (`FROM`, `WHERE`, `ORDER`, ...) continues it too.
///
/// It reads bytes, once each, and can be fed piece by piece (a pipe's lines as they come): every
/// character that ends or continues a command is ASCII, so a piece may end inside a character.
public struct InputSplitter {
    public typealias Piece = (text: String, line: Int)

    /// Whether a line after a complete `sql` statement may continue it (scripts, where the next
    /// line is there to look at); at the prompt, Enter runs what is complete.
    private let looksAhead: Bool
    private var current: [UInt8] = []
    private var line = 1
    private var startLine = 1
    private var quote: UInt8 = 0
    private var escaped = false
    private var depth = 0
    private var atStart = true
    private var inComment = false
    /// Inside an `sql` command, whose first `sqlPrefix` bytes are the command word.
    private var sqlMode = false
    private var sqlPrefix = 0
    /// After a newline that may end an `sql` command (at `current[heldFrom]`): the next line's
    /// first word decides whether it continues the statement.
    private var heldFrom: Int?
    private var completed: [Piece] = []

    public init(looksAhead: Bool) {
        self.looksAhead = looksAhead
    }

    /// The complete commands in `text` (trimmed, empty ones and `--`/`#` comment lines dropped),
    /// and what is left open at its end (nil when nothing is).
    public static func split(_ text: String) -> (commands: [String], pending: String?) {
        let (commands, pending) = splitWithLines(text, looksAhead: false)
        return (commands.map(\.text), pending?.text)
    }

    /// As `split`, with the line (from 1) each command starts on, for errors from scripts.
    public static func splitWithLines(_ text: String, looksAhead: Bool = true) -> (commands: [Piece], pending: Piece?) {
        var splitter = InputSplitter(looksAhead: looksAhead)
        var text = text
        var commands = text.withUTF8 { splitter.feed($0) }
        let pending = splitter.finish(into: &commands)
        return (commands, pending)
    }

    /// Reads `bytes`; returns the commands they completed.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> [Piece] {
        for byte in bytes { take(byte) }
        defer { completed = [] }
        return completed
    }

    /// At the end of input: appends the last command to `commands` when it is complete, else
    /// returns what is left open.
    public mutating func finish(into commands: inout [Piece]) -> Piece? {
        if let heldFrom { endHeld(at: heldFrom) }
        commands += completed
        completed = []
        if quote != 0 || depth > 0 || sqlMode && !Self.sqlCanEnd(sqlBody) {
            return (String(decoding: current, as: UTF8.self), startLine)
        }
        append(current, startLine)
        commands += completed
        completed = []
        current = []
        return nil
    }

    private static let newline = UInt8(ascii: "\n")
    private static let semicolon = UInt8(ascii: ";")

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || (9...13).contains(byte)
    }

    private var sqlBody: String { String(decoding: current[sqlPrefix...], as: UTF8.self) }

    private mutating func take(_ byte: UInt8) {
        defer { if byte == Self.newline { line += 1 } }
        if let heldFrom, decided(byte, heldFrom) { return }
        if inComment {
            if byte == Self.newline { inComment = false }
            return
        }
        if atStart && byte == UInt8(ascii: "#") {
            inComment = true
            return
        }
        if !sqlMode && !atStart && quote == 0 && depth == 0 && Self.isSpace(byte) && isSQLWord {
            sqlMode = true
            sqlPrefix = current.count
        }
        if sqlMode { return takeSQL(byte) }
        if quote != 0 {
            current.append(byte)
            if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == quote { quote = 0 }
            return
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            quote = byte
        case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
            depth += 1
        case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
            depth = max(0, depth - 1)
        case Self.newline, Self.semicolon:
            if depth == 0 { return endCommand() }
        default:
            break
        }
        if Self.isSpace(byte) && atStart { return }
        if atStart { startLine = line }
        atStart = false
        current.append(byte)
        if current.count == 2 && current[0] == UInt8(ascii: "-") && current[1] == UInt8(ascii: "-") {
            current = []
            inComment = true
            atStart = true
        }
    }

    /// True when the command so far is the word `sql` or `.sql` (looked at only while it is
    /// that short, so that a long command costs nothing per space).
    private var isSQLWord: Bool {
        guard current.count == 3 || current.count == 4 else { return false }
        let word = current.map { $0 | 0x20 }   // ASCII lower case; other bytes cannot match
        return word == Array("sql".utf8) || word == Array(".sql".utf8)
    }

    /// An `sql` command ends where SQLite says its statement does, not at the first `;` or
    /// newline: `CREATE TRIGGER … BEGIN …; END`, SQL strings, comments and a statement SQLite
    /// still waits for the rest of stay whole.
    private mutating func takeSQL(_ byte: UInt8) {
        if byte == Self.semicolon && SQLStatements.isComplete(sqlBody + ";") { return endCommand() }
        if byte == Self.newline && Self.sqlCanEnd(sqlBody) {
            guard looksAhead else { return endCommand() }
            heldFrom = current.count
        }
        current.append(byte)
    }

    private static func sqlCanEnd(_ body: String) -> Bool {
        SQLStatements.canEnd(body) && !SQLStatements.isIncompleteInput(body)
    }

    /// Clause words that, starting the line after a complete `sql` statement, continue it.
    private static let continuingWords: Set<String> = [
        "from", "where", "group", "order", "having", "limit", "offset", "window", "union", "intersect", "except",
        "join", "inner", "left", "right", "full", "cross", "natural", "on", "using", "and", "or", "returning",
    ]

    /// Looks at the line after a newline that may end an `sql` command, up to its first word:
    /// true when `byte` was taken here (the line's start, or the statement goes on); false when
    /// the command ended, and `byte` is the next command's.
    private mutating func decided(_ byte: UInt8, _ heldFrom: Int) -> Bool {
        // current[heldFrom] is the newline; then the next line's spaces and first letters.
        let word = current[(heldFrom + 1)...].drop { Self.isSpace($0) }
        let inWord = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte >= 0x80
        if word.isEmpty && Self.isSpace(byte) && byte != Self.newline || inWord {
            current.append(byte)
            return true
        }
        let text = String(decoding: word.map { $0 | 0x20 }, as: UTF8.self)
        if Self.continuingWords.contains(text) || word.isEmpty && (byte == UInt8(ascii: ",") || byte == UInt8(ascii: ")")) {
            self.heldFrom = nil
            current.append(byte)
            return true
        }
        endHeld(at: heldFrom)
        return false
    }

    /// Ends the `sql` command at its newline (`heldFrom`) and reads what followed that newline
    /// (spaces and a word, no newline) as new input.
    private mutating func endHeld(at heldFrom: Int) {
        let rest = current[(heldFrom + 1)...]
        current.removeSubrange(heldFrom...)
        self.heldFrom = nil
        endCommand()
        for byte in rest { take(byte) }
    }

    private mutating func endCommand() {
        append(current, startLine)
        current = []
        atStart = true
        sqlMode = false
    }

    private mutating func append(_ bytes: [UInt8], _ line: Int) {
        let trimmed = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
        if !trimmed.isEmpty { completed.append((trimmed, line)) }
    }
}
