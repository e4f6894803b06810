@preconcurrency import CLibedit
import PortalEngine
import PortalTUI
#if canImport(Glibc)
import Glibc
#endif

/// The interactive prompt on libedit: history, Tab completion from the live schema, multi-line
/// input, Ctrl-C cancels the line or the running command, Ctrl-D quits.
final class REPL {
    private let executor: Executor
    private let configuration: Configuration
    private let historyPath: String?

    /// The session completion asks; libedit's callbacks are C functions without context.
    nonisolated(unsafe) static var current: REPL?

    init(executor: Executor, configuration: Configuration) {
        self.executor = executor
        self.configuration = configuration
        historyPath = Self.historyPath()
    }

    static func historyPath() -> String? {
        if let path = environment("PORTAL_SHELL_HISTORY"), !path.isEmpty { return path }
        let base: String
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") {
            base = state
        } else if let home = environment("HOME"), !home.isEmpty {
            base = home + "/.local/state"
        } else {
            return nil
        }
        return base + "/portal-shell/history"
    }

    static func initFilePath() -> String? {
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") { return config + "/portal-shell/init" }
        if let home = environment("HOME"), !home.isEmpty { return home + "/.config/portal-shell/init" }
        return nil
    }

    func run() -> Int32 {
        REPL.current = self
        setUpLineEditor()
        executor.confirm = { question in
            guard let answer = REPL.readLine(prompt: TerminalText.escaped(question) + " [y/N] ", addToHistory: false) else { return false }
            return ["y", "yes"].contains(answer.trimmingWhitespace().lowercased())
        }
        if !configuration.noInit, let initFile = Self.initFilePath(), access(initFile, R_OK) == 0,
           let text = readTextFile(initFile) {
            executor.run(text, stopOnError: false)
        }
        Interrupts.installInteractive(executor)
        var pending = ""
        session: while true {
            if executor.quitRequested {
                guard staysForOpenTransaction() else { break }
                executor.cancelQuit()
            }
            if Interrupts.terminated { break }   // SIGTERM while opening or running the init file
            Interrupts.reset()
            let prompt = pending.isEmpty ? promptText() : String(repeating: " ", count: max(0, DisplayWidth.of(promptText()) - 5)) + "...> "
            guard let line = REPL.readLine(prompt: prompt, addToHistory: false) else {
                if Interrupts.terminated { break }
                if Interrupts.consume() {
                    // Ctrl-C at the prompt: drop the line being typed.
                    pending = ""
                    writeRaw("^C\n")
                    continue
                }
                writeRaw("\n")
                if staysForOpenTransaction() { continue }
                break
            }
            pending += pending.isEmpty ? line : "\n" + line
            let (commands, open) = InputSplitter.split(pending)
            if open != nil { continue }
            let entry = pending.trimmingWhitespace()
            pending = ""
            if !entry.isEmpty { addHistory(entry) }
            for command in commands {
                _ = executor.runOne(command)
                if Interrupts.terminated { break session }   // SIGTERM during a command ends the session
                if executor.quitRequested || Interrupts.consume() { break }
            }
        }
        let terminated = Interrupts.terminated
        executor.database?.abandon()
        REPL.current = nil
        return terminated ? ExitStatus.interrupted : ExitStatus.success
    }

    /// Leaving (`quit`, Ctrl-D) with a transaction open asks what to do with it: commit, roll
    /// back, or stay in the session (the default). True when the user stays. When input ends
    /// at the question, nobody can answer: it rolls back, as a script does, and says so.
    private func staysForOpenTransaction() -> Bool {
        guard let database = executor.database, database.inUserTransaction else { return false }
        while true {
            guard let answer = REPL.readLine(prompt: "A transaction is open: commit, roll back, or stay? [c/r/S] ",
                                             addToHistory: false) else {
                if Interrupts.consume() {
                    writeRaw("^C\n")
                    return true
                }
                writeRaw("\n")
                database.abandon()
                executor.report("the open transaction was rolled back (end of input): nothing of it was written")
                return false
            }
            switch answer.trimmingWhitespace().lowercased() {
            case "c", "commit":
                return !executor.runOne("commit")   // a failed commit stays, to be fixed
            case "r", "rollback", "roll back":
                return !executor.runOne("rollback")
            case "", "s", "stay":
                return true
            default:
                continue
            }
        }
    }

    private func writeRaw(_ text: String) {
        var text = text
        text.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
    }

    func promptText() -> String {
        let name = executor.database?.displayName ?? "portal"
        let stem = name.hasSuffix(".sqlite") || name.hasSuffix(".db") || name.hasSuffix(".sqlite3")
            ? String(name[..<(name.lastIndex(of: ".") ?? name.endIndex)]) : name
        let inTransaction = executor.database?.inUserTransaction ?? false
        return TerminalText.escaped(stem) + (inTransaction ? "*" : "") + "> "
    }

    // MARK: libedit

    private func setUpLineEditor() {
        // libedit reads and shows multi-byte text by the user's locale. Only the prompt needs it
        // (the browser sets its own): loading the locale's files took 40 system calls and ten
        // mappings from the start of every scripted run, whose output depends on no C locale.
        setlocale(LC_ALL, "")
        rl_readline_name = UnsafePointer(strdup("portal-shell"))
        using_history()
        stifle_history(2000)
        if let historyPath {
            if let slash = historyPath.lastIndex(of: "/") {
                try? DemoDatabase.makeDirectories(String(historyPath[..<slash]))
            }
            read_history(historyPath)
        }
        // Quotes do not break words: `#"full na` is completed as one name.
        rl_completer_word_break_characters = strdup(Completion.wordBreakCharacters)
        rl_attempted_completion_function = { text, start, _ in
            rl_attempted_completion_over = 1
            guard let text, let repl = REPL.current else { return nil }
            let line = rl_line_buffer.map { String(cString: $0) } ?? ""
            let typed = String(cString: text)
            // libedit gives `start` in characters, and starts the word after a quote: the
            // word completed here starts at the last break character (`#"full na` is one word),
            // and what libedit left out before its word is taken off the replacement.
            let characters = Array(line)
            let end = min(characters.count, Int(start) + typed.count)
            var wordStart = min(Int(start), end)
            while wordStart > 0 && !" \t\n(),;=<>!".contains(characters[wordStart - 1]) { wordStart -= 1 }
            let word = String(characters[wordStart..<end])
            let skipped = String(characters[wordStart..<min(Int(start), end)])
            let matches = repl.completions(line: line, start: wordStart, word: word)
            guard !matches.isEmpty else { return nil }
            // libedit's list: what replaces the word, then the matches (one match: itself
            // again, and libedit adds a space after it).
            let replacement = Completion.replacement(for: word, matches: matches)
            guard replacement.hasPrefix(skipped) else { return nil }
            let inserted = String(replacement.dropFirst(skipped.count))
            let entries = [inserted] + (matches.count > 1 ? matches : [inserted])
            guard let list = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (entries.count + 1))?
                .bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: entries.count + 1) else { return nil }
            for (i, entry) in entries.enumerated() { list[i] = strdup(entry) }
            list[entries.count] = nil
            return list
        }
    }

    func completions(line: String, start: Int, word: String) -> [String] {
        let schema = executor.database?.schema ?? Schema(entities: [])
        return Completion.candidates(line: line, start: start, word: word, schema: schema,
                                     variables: executor.variables.keys.sorted())
    }

    /// One line from libedit; nil at end of input or on Ctrl-C (see `Interrupts.consume`).
    static func readLine(prompt: String, addToHistory: Bool) -> String? {
        guard let raw = readline(prompt) else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }

    private func addHistory(_ entry: String) {
        add_history(entry)
        if let historyPath { write_history(historyPath) }
    }
}

func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

extension Interrupts {
    /// In the REPL, Ctrl-C interrupts the running statement; at the prompt it cancels the line.
    static func installInteractive(_ executor: Executor) {
        if let database = executor.database { install(database.store) }
    }
}
