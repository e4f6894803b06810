/// One command of the shell's language, declared once (`CommandParser.specs`): the names that
/// call it, how it is written and what it does (`help`, checked against the man page), whether
/// an entity's name follows it (completion), and how the words after its name are parsed.
struct CommandSpec: Sendable {
    /// The names `help` and completion offer; the first is the command's own.
    var names: [String]
    /// Other spellings accepted without being offered (sqlite3's habits: `.tables`, `.once`).
    var aliases: [String]
    /// Each way of writing it, with what it does.
    var usages: [(usage: String, summary: String)]
    /// True when an entity's name comes next (completion offers the entities there).
    var takesEntity: Bool
    /// Parses what follows the command's name (throwing `ShellError` only: the parser's own
    /// steps throw nothing else).
    var parse: @Sendable (inout CommandParser) throws -> Command

    init(_ names: [String], aliases: [String] = [], entity: Bool = false, usages: [(usage: String, summary: String)],
         parse: @escaping @Sendable (inout CommandParser) throws -> Command) {
        (self.names, self.aliases, self.usages, self.takesEntity, self.parse) = (names, aliases, usages, entity, parse)
    }

    var name: String { names[0] }

    /// The command called `word` (lower-cased), by a name or an alias.
    static func named(_ word: String) -> CommandSpec? {
        CommandParser.specs.first { $0.names.contains(word) || $0.aliases.contains(word) }
    }
}

/// The command words, for `help` and completion.
public let commandNames: [String] = CommandParser.specs.flatMap(\.names)
