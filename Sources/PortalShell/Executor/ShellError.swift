import PortalEngine
import PortalTUI

/// A failed command, ready to print: what is wrong, and where in the command (character offsets).
public struct ShellError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var range: Range<Int>?
    /// Lines printed under the message, each on its own: a server's detail and hint.
    public var notes: [String] = []
    /// Why the command failed, which decides a scripted run's exit status.
    public var reason = Reason.failed
    /// The engine's error this one reports, when it came from the engine: its kind and the
    /// database's own code (SQLite's result code, PostgreSQL's SQLSTATE) stay with it.
    public var cause: PortalError?

    /// Why a command failed.
    public enum Reason: Sendable {
        /// The command could not do what it asked (exit 1).
        case failed
        /// An interrupt stopped it (Ctrl-C, SIGTERM): scripted runs exit 130.
        case interrupted
        /// It cannot run in this kind of session at all (`browse` without a terminal): a
        /// scripted run exits 2, as for a usage error.
        case usage
    }

    public init(_ message: String, _ range: Range<Int>? = nil) {
        self.message = message
        self.range = range
    }

    public var description: String { message }

    /// Converts any error a command can raise, shifting predicate positions by `offset`.
    static func from(_ error: any Error, predicateOffset offset: Int? = nil) -> ShellError {
        switch error {
        case let error as ShellError: return error
        case let error as CommandError:
            var shellError = ShellError(error.message, error.range)
            if error.interrupted { shellError.reason = .interrupted }
            return shellError
        case let error as PortalPredicateError where error.kind == .interrupted:
            var shellError = ShellError(error.description)
            shellError.reason = .interrupted
            return shellError
        case let error as PortalPredicateError:
            return ShellError(error.description, shift(error.range, by: offset))
        case let error as PortalError:
            if let predicate = error.predicateError {
                return ShellError(predicate.description, shift(predicate.range, by: offset))
            }
            if case .predicate = error.kind { return ShellError(error.description) }
            var shellError = ShellError(error.description)
            shellError.cause = error
            shellError.notes = [error.detail.map { "detail: " + $0 }, error.hint.map { "hint: " + $0 }].compactMap { $0 }
            if case .interrupted = error.kind { shellError.reason = .interrupted }
            return shellError
        default:
            return ShellError("\(error)")
        }
    }

    /// Where `error` points in the predicate `text`, which starts at `offset` in the command.
    static func locate(_ error: PortalPredicateError, in text: String, offset: Int) -> Range<Int>? {
        error.range(in: text).map { ($0.lowerBound + offset)..<($0.upperBound + offset) }
    }

    private static func shift(_ range: Range<Int>?, by offset: Int?) -> Range<Int>? {
        guard let range, let offset else { return nil }
        return (range.lowerBound + offset)..<(range.upperBound + offset)
    }

    /// `error: message`, then the command's line and a caret under the offending part. The
    /// message and the line are escaped: both may hold names from the database or typed text.
    func report(command: String) -> String {
        var text = "error: \(TerminalText.escaped(message))\n"
        for note in notes { text += TerminalText.escaped(note) + "\n" }
        guard let range else { return text }
        let characters = Array(command)
        // The line of a multi-line command that holds the range's start.
        var lineStart = 0
        var i = 0
        while i < min(range.lowerBound, characters.count) {
            if characters[i] == "\n" { lineStart = i + 1 }
            i += 1
        }
        var lineEnd = lineStart
        while lineEnd < characters.count && characters[lineEnd] != "\n" { lineEnd += 1 }
        let line = String(characters[lineStart..<lineEnd])
        let start = min(range.lowerBound, lineEnd)
        let prefixWidth = DisplayWidth.of(TerminalText.escaped(String(characters[lineStart..<start])))
        let end = min(max(range.upperBound, start), lineEnd)
        let markWidth = max(1, DisplayWidth.of(TerminalText.escaped(String(characters[start..<end]))))
        text += "  " + TerminalText.escaped(line) + "\n"
        text += "  " + String(repeating: " ", count: prefixWidth) + "^" + String(repeating: "~", count: markWidth - 1) + "\n"
        return text
    }
}
