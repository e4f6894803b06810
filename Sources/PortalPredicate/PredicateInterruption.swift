import Foundation

/// Lets a program stop a parse or a compile that takes long: a predicate of a million terms takes
/// seconds to lex, parse and compile. The lexer, the parser's AND/OR chains and the SQL
/// compiler's chains ask `requested` every `interval` tokens or terms, and stop with an
/// `.interrupted` error when it says yes.
///
/// One question for the whole process, as the signals that answer it are the process's: the
/// shell sets it to its SIGINT/SIGTERM flag when it installs its handlers.
public enum PredicateInterruption {
    // An NSLock (a pthread mutex), not Synchronization's Mutex: ThreadSanitizer sees the
    // futex of the latter as no lock, and reported the set and the reads as a race.
    private static let lock = NSLock()
    nonisolated(unsafe) private static var current: (@Sendable () -> Bool)?

    /// True when the work under way should stop; nil (the default) never stops it.
    public static var requested: (@Sendable () -> Bool)? {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    /// How many tokens or terms pass between two questions: asking costs a call, and 4,096
    /// tokens take well under a millisecond.
    static let interval = 4096

    /// Throws `.interrupted` when `count` is a multiple of `interval` and `ask` says to stop.
    @inline(__always)
    public static func poll(_ count: Int, _ ask: (@Sendable () -> Bool)?) throws(PortalPredicateError) {
        guard count & (interval - 1) == 0, let ask, ask() else { return }
        throw PortalPredicateError(.interrupted, "interrupted")
    }
}
