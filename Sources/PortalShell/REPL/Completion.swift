import PortalEngine

/// What Tab offers at a place in a command line, from the live schema: commands, entity names,
/// attribute and relationship names (those of the related entity after a `.`), keywords and
/// `$variables`. Pure, so tests call it without a terminal.
enum Completion {
    static let predicateKeywords = [
        "where", "sort", "by", "asc", "desc", "limit", "offset", "set", "to", "from", "as", "AND", "OR", "NOT",
        "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN", "ANY", "ALL", "NONE", "SOME",
        "SUBQUERY", "nil", "TRUEPREDICATE", "FALSEPREDICATE", "@count", "@sum", "@avg", "@min", "@max",
    ]
    static let entityCommands: Set<String> = [
        "find", "first", "count", "get", "schema", "create", "update", "upsert", "delete", "import", "export",
        "browse", "swift",
    ]

    /// The candidates for the word `word` that starts at character `start` of `line`.
    static func candidates(line: String, start: Int, word: String, schema: Schema, variables: [String]) -> [String] {
        let before = String(line.prefix(start))
        let previous = before.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).map(String.init)
        let all: [String]
        if previous.isEmpty || before.last == ";" {
            all = commandNames + commandNames.map { "." + $0 }
        } else if word.hasPrefix("$") {
            all = variables.map { "$" + $0 }
        } else {
            let command = previous[0].lowercased().trimmingPrefix(".")
            let last = previous.last?.lowercased() ?? ""
            if previous.count == 1 && command == "mode" {
                all = OutputFormat.allCases.map(\.rawValue)
            } else if previous.count == 1 && ["headers", "timer"].contains(command) {
                all = ["on", "off"]
            } else if previous.count == 1 && command == "help" {
                all = commandNames
            } else if previous.count == 1 && command == "generate" {
                all = ["swift"]
            } else if entityCommands.contains(last) || (previous.count == 1 && entityCommands.contains(command)) {
                all = schema.entities.map(\.name)
            } else if let entity = previous.count > 1 ? schema.entity(named: previous[1]) : nil {
                all = predicateWords(word, entity: entity, schema: schema, variables: variables)
            } else {
                all = predicateKeywords
            }
        }
        return matching(all, word)
    }

    /// The candidates that begin with `word`, each once.
    static func matching(_ all: [String], _ word: String) -> [String] {
        let lowered = word.lowercased()
        var seen = Set<String>()
        return all.filter { $0.lowercased().hasPrefix(lowered) && seen.insert($0).inserted }
    }

    /// What may come next in a predicate on `entity`: key paths, keywords, `$variables`.
    static func predicateWords(_ word: String, entity: EntityDescription, schema: Schema, variables: [String]) -> [String] {
        keyPaths(word, entity: entity, schema: schema) + predicateKeywords + variables.map { "$" + $0 }
    }

    /// The characters that end the word being completed (libedit's word breaks at the prompt).
    static let wordBreakCharacters = " \t\n\"'(),;=<>!"

    /// Completion in a filter of `entity` (the browser's `/`), as at the prompt after `where`:
    /// where the word before the caret starts (in characters) and its candidates.
    static func filterCandidates(_ textBeforeCaret: String, entity: String, schema: Schema,
                                 variables: [String]) -> (start: Int, candidates: [String]) {
        let characters = Array(textBeforeCaret)
        let start = (characters.lastIndex { wordBreakCharacters.contains($0) }).map { $0 + 1 } ?? 0
        guard let entity = schema.entity(named: entity) else { return (start, []) }
        let word = String(characters[start...])
        return (start, matching(predicateWords(word, entity: entity, schema: schema, variables: variables), word))
    }

    /// Attribute and relationship names; after `Album.` those of the related entity, prefixed.
    static func keyPaths(_ word: String, entity: EntityDescription, schema: Schema) -> [String] {
        var parts = word.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()
        var current = entity
        for part in parts {
            guard let relationship = current.relationship(named: part),
                  let destination = schema.entity(named: relationship.destination) else { return [] }
            current = destination
        }
        let prefix = parts.isEmpty ? "" : parts.joined(separator: ".") + "."
        return (current.attributes.map(\.name) + current.relationships.map(\.name)).map { prefix + $0 }
    }
}

extension String {
    func trimmingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
