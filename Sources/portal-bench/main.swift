import Foundation

runKillTestWriterIfAsked()   // a hidden mode for the engine's kill-9 test; returns unless asked

// portal-bench: each figure is a ratio against the same work done by the SQLite C API (CBaseline)
// or by the sqlite3 shell, measured in the same run. `--json` prints JSON lines;
// `--only PREFIX` runs the figures whose name starts with PREFIX.
let arguments = CommandLine.arguments.dropFirst()
let reporter = Reporter(json: arguments.contains("--json"))
let only: String? = arguments.firstIndex(of: "--only").flatMap { i in
    arguments.index(after: i) < arguments.endIndex ? arguments[arguments.index(after: i)] : nil
}

/// Whether `--only` asks for the figure `name` (groups that take long skip the others).
func wanted(_ name: String) -> Bool {
    only.map { name.hasPrefix($0) } ?? true
}

/// Every group of figures, each in its own file. The browser's group runs first: its memory
/// figure reads the process's peak RSS, which the engine's 200,000-row fetches would raise.
nonisolated(unsafe) let groups: [(prefix: String, run: () throws -> [Figure])] = [
    ("tui", tuiBenchmarks),
    ("tui.frequency", tuiFrequencyBenchmarks),
    ("tui.pg", tuiPostgresBenchmarks),
    ("shell.", shellBenchmarks),
    ("engine", engineBenchmarks),
    ("predicate", predicateBenchmarks),
    ("predicate.t", foundationPredicateBenchmarks),
]

/// Whether `--only` selects the group: every group under its prefix, else the most specific group
/// whose prefix it extends (`tui.frequency.open` runs `tui.frequency`, not all of `tui`).
func isSelected(_ prefix: String) -> Bool {
    guard let only else { return true }
    if prefix.hasPrefix(only) { return true }
    guard only.hasPrefix(prefix) else { return false }
    return !groups.contains { $0.prefix.count > prefix.count && only.hasPrefix($0.prefix) }
}

for group in groups where isSelected(group.prefix) {
    do {
        for figure in try group.run() where only.map({ figure.name.hasPrefix($0) }) ?? true {
            reporter.report(figure)
        }
    } catch {
        FileHandle.standardError.write(Data("portal-bench: \(group.prefix): \(error)\n".utf8))
        exit(1)
    }
}
