import PortalPredicate

/// The text of `help` and `help COMMAND`.
enum Help {
    /// Each usage of each command, from the one table of commands.
    static let entries: [(name: String, usage: String, summary: String)] = CommandParser.specs.flatMap { spec in
        spec.usages.map { (spec.name, $0.usage, $0.summary) }
    }

    /// The widest usage the listing aligns summaries after.
    static let usageColumn = 70

    static func text(for topic: String?) -> String {
        if let topic {
            let name = topic.hasPrefix(".") ? String(topic.dropFirst()) : topic
            let called = CommandSpec.named(name)?.name
            let matching = entries.filter { $0.name == called }
            guard !matching.isEmpty else {
                let suggestion = closestName(to: name, among: entries.map(\.name)).map { " Did you mean '\($0)'?" } ?? ""
                return "No command '\(name)'.\(suggestion) Type 'help' for the list.\n"
            }
            return matching.map { "\($0.usage)\n  \($0.summary)\n" }.joined()
        }
        // Summaries line up after the usual usages; a longer usage has its summary on the next line.
        let width = entries.map { DisplayWidth.of($0.usage) }.filter { $0 <= Self.usageColumn }.max() ?? 0
        var text = "Commands (end with a newline or ';'; a leading '.' is accepted: .mode csv):\n"
        for entry in entries {
            let usage = DisplayWidth.of(entry.usage)
            let gap = usage <= width ? String(repeating: " ", count: width - usage + 2)
                : "\n" + String(repeating: " ", count: width + 4)
            text += "  " + entry.usage + gap + entry.summary + "\n"
        }
        text += "Predicates: Attribute == \"x\", Album.Title BEGINSWITH[c] \"a\", tracks.@count > 10, $variable, … (see `man portal-shell`, PREDICATES)\n"
        return text
    }
}
