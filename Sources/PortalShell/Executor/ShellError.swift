import PortalEngine
import PortalTUI

/// The shell's one error type: what is wrong, in words ready to print, and where — a range of
/// the command's text (character offsets) or a line of the file being read. An error from the
/// engine is kept whole in `cause` (its kind, the database's own code, the predicate error), and
/// `reason` decides a scripted run's exit status.
public struct ShellError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    /// Where in the command's text, in characters from its start.
    public var range: Range<Int>?
    /// Where in the file being read (an `import` file), counted from 1.
    public var line: Int?
    /// Lines printed under the message, each on its own: a server's detail and hint.
    public var notes: [String] = []
    /// Why the command failed, which decides a scripted run's exit status.
    public var reason = Reason.failed
    /// The engine's error this one reports, when it came from the engine: its kind and the
    /// database's own code (SQLite's result code, PostgreSQL's SQLSTATE) stay with it, and a
    /// predicate's parse or compile error is its `predicateError`.
    public var cause: PortalError?

    /// The predicate's parse or compile error behind this one, whose range `range` is shifted from.
    public var predicateError: PortalPredicateError? { cause?.predicateError }

    /// Why a command failed.
    public enum Reason: Sendable, Hashable {
        /// The command could not do what it asked (exit 1).
        case failed
        /// An interrupt stopped it (Ctrl-C, SIGTERM): scripted runs exit 130.
        case interrupted
        /// It cannot run in this kind of session at all (`browse` without a terminal): a
        /// scripted run exits 2, as for a usage error.
        case usage
        /// The database could not be opened (exit 3).
        case cannotOpen

        /// The exit status of a run that this ends (see EXIT STATUS in portal-shell(1)).
        public var exitStatus: Int32 {
            switch self {
            case .failed: ExitStatus.commandFailed
            case .interrupted: ExitStatus.interrupted
            case .usage: ExitStatus.usage
            case .cannotOpen: ExitStatus.cannotOpen
            }
        }
    }

    public init(_ message: String, _ range: Range<Int>? = nil) {
        self.message = message
        self.range = range
    }

    /// An error at `line` of the file being read.
    init(line: Int, message: String) {
        self.message = message
        self.line = line
    }

    /// An error that ends the run with `reason`'s status.
    init(_ message: String, reason: Reason) {
        self.message = message
        self.reason = reason
    }

    /// A database that could not be opened (exit status 3), and the engine's error for it if any.
    static func cannotOpen(_ message: String, cause: (any Error)? = nil) -> ShellError {
        var error = ShellError(message, reason: .cannotOpen)
        error.cause = cause as? PortalError
        return error
    }

    public var description: String { message }

    /// Converts any error a command can raise, shifting predicate positions by `offset`.
    static func from(_ error: any Error, predicateOffset offset: Int? = nil) -> ShellError {
        switch error {
        case let error as ShellError: return error
        case let error as PortalPredicateError: return from(PortalError(wrapping: error), offset: offset)
        case let error as PortalError: return from(error, offset: offset)
        case let error as BrowserError:
            var shellError = error.cause.map { from($0, offset: nil) } ?? ShellError(error.message)
            shellError.message = error.message
            shellError.range = shift(error.range, by: offset)
            return shellError
        default:
            return ShellError("\(error)")
        }
    }

    /// An engine error whose predicate error (if any) is in `text`, which starts at `offset` in
    /// the command: the range is found in the text when the error has none of its own.
    static func from(_ error: PortalError, in text: String, offset: Int) -> ShellError {
        var shellError = from(error, offset: nil)
        if let predicate = error.predicateError, predicate.kind != .interrupted, let range = predicate.range(in: text) {
            shellError.range = shift(range, by: offset)
        }
        return shellError
    }

    private static func from(_ error: PortalError, offset: Int?) -> ShellError {
        var shellError: ShellError
        if let predicate = error.predicateError, predicate.kind != .interrupted {
            // The predicate's own words: the caret under the command says where, and for what.
            shellError = ShellError(predicate.description, shift(predicate.range, by: offset))
        } else {
            shellError = ShellError(error.description)
            shellError.notes = [error.detail.map { "detail: " + $0 }, error.hint.map { "hint: " + $0 }].compactMap { $0 }
        }
        shellError.cause = error
        if error.kind == .interrupted || error.predicateError?.kind == .interrupted { shellError.reason = .interrupted }
        return shellError
    }

    private static func shift(_ range: Range<Int>?, by offset: Int?) -> Range<Int>? {
        guard let range, let offset else { return nil }
        return (range.lowerBound + offset)..<(range.upperBound + offset)
    }

    /// Stops the lexing or parsing of a long command when the caller asks (`PredicateInterruption`).
    static func poll(_ count: Int, _ ask: (@Sendable () -> Bool)?) throws(ShellError) {
        do { try PredicateInterruption.poll(count, ask) } catch {
            throw ShellError("interrupted", reason: .interrupted)
        }
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
