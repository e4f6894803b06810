import PortalPredicate

/// The text of `help` and `help COMMAND`.
enum Help {
    static let entries: [(name: String, usage: String, summary: String)] = [
        ("find", "find E [where P] [sort by KEY [asc|desc], …] [limit N] [offset N]", "the matching entities, all attributes"),
        ("find", "find E select [distinct] ITEM [as NAME], … [where P] [group by KEY, …] [having P] [sort by …] [limit N] [offset N]",
         "chosen columns: attributes, key paths, expressions, aggregates (count(), count([distinct] X), sum, average, "
             + "min, max); one row per entity, or per group"),
        ("first", "first E [select …] [where P] [group by …] [having P] [sort by …]", "at most one entity (or group)"),
        ("count", "count E [where P] [group by KEY, … [sort by …] [limit N] [offset N]]", "how many entities match; with group by, each group's keys and count, largest first"),
        ("get", "get E ID [, ID…]", "one entity by its primary id (every part of a composite id, in key order)"),
        ("explain", "explain COMMAND", "the SQL a command compiles to, its bound values and the database's query plan"),
        ("entities", "entities", "each entity: name, kind, row count, attribute count"),
        ("schema", "schema [E] [sql]", "attributes, relationships, indexes, checks and triggers; with sql, the CREATE statements"),
        ("create", "create E set KEY = VALUE [, …]",
         "insert one entity and print it (Core Data: RELATIONSHIP = ID, {ID, …} or nil)"),
        ("update", "update E set KEY = EXPR [, …] where P", "update the matching entities (where TRUEPREDICATE: all)"),
        ("upsert", "upsert E set KEY = VALUE [, …]", "insert, or update the entity with the same primary id"),
        ("delete", "delete E where P",
         "delete the matching entities (where TRUEPREDICATE: all; Core Data: by the model's delete rules)"),
        ("import", "import E from PATH [as csv|tsv|json|ndjson]", "insert records from a file, all or nothing"),
        ("export", "export E [select …] [where P] [group by …] [sort by …] to PATH [as csv|tsv|json|ndjson]",
         "write entities (or a selection) to a file (to -: the output)"),
        ("begin", "begin", "group the following writes into one transaction"),
        ("commit", "commit", "make the transaction's writes permanent"),
        ("rollback", "rollback", "undo the transaction's writes"),
        ("let", "let $NAME = VALUE", "define a variable for predicates"),
        ("vars", "vars", "list the variables"),
        ("mode", "mode table|csv|tsv|json|ndjson|line|markdown", "the output format"),
        ("headers", "headers on|off", "show the header row"),
        ("null", "null TEXT", "how NULL is shown"),
        ("timer", "timer on|off", "print each command's time on standard error"),
        ("output", "output PATH | output stdout", "send results to a file, or back to standard output"),
        ("read", "read PATH", "run the commands in a file"),
        ("open", "open PATH", "switch to another database"),
        ("browse", "browse [E] [where P] [sort by …]", "the full-screen browser"),
        ("generate", "generate swift [E …]", "Swift entity types for the engine's typed portal"),
        ("sql", "sql STATEMENT", "raw SQL (writes go through a write transaction)"),
        ("notify", "notify on|off", "PostgreSQL: add (or drop) a trigger on each table that notifies other sessions "
             + "of its changes, for their browsers and observers to refresh at once"),
        ("relate", "relate [E.ATTRIBUTE -> F]", "a relationship the database does not declare, saved for it; alone: list them"),
        ("unrelate", "unrelate E.ATTRIBUTE", "forget a relationship made with relate"),
        ("help", "help [COMMAND]", "this text, or one command's"),
        ("quit", "quit | exit", "leave (end of input does too)"),
    ]

    /// The widest usage the listing aligns summaries after.
    static let usageColumn = 70

    static func text(for topic: String?) -> String {
        if let topic {
            let name = topic.hasPrefix(".") ? String(topic.dropFirst()) : topic
            let matching = entries.filter { $0.name == name || (name == "exit" && $0.name == "quit") }
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
