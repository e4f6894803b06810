/// Lets a caller stop a parse or a compile that takes long: a predicate of a million terms takes
/// seconds to lex, parse and compile. The lexer, the parser's AND/OR chains and the SQL
/// compiler's chains ask `requested` every `interval` tokens or terms, and stop with an
/// `.interrupted` error when it says yes.
///
/// A task-local value, so that every path that parses inside the caller's work (a command, with
/// its filter, selection and values) sees it without a parameter threaded through each: the
/// shell binds its signal flag around each command.
public enum PredicateInterruption {
    /// True when the work under way should stop; nil (the default) never stops it.
    @TaskLocal public static var requested: (@Sendable () -> Bool)?

    /// How many tokens or terms pass between two questions: asking costs a call, and 4,096
    /// tokens take well under a millisecond.
    static let interval = 4096

    /// Throws `.interrupted` when `count` is a multiple of `interval` and `ask` says to stop.
    @inline(__always)
    public static func poll(_ count: Int, _ ask: (@Sendable () -> Bool)?) throws(PredicateError) {
        guard count & (interval - 1) == 0, let ask, ask() else { return }
        throw PredicateError(.interrupted, "interrupted")
    }
}
