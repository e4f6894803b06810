import PortalEngine

/// What Tab offers at a place in a command line, from the live schema: commands, entity names,
/// attribute and relationship names (those of the related entity after a `.`), keywords and
/// `$variables`. Pure, so tests call it without a terminal.
enum Completion {
    static let predicateKeywords = [
        "where", "sort", "by", "asc", "desc", "limit", "offset", "set", "to", "from", "as", "AND", "OR", "NOT",
        "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN", "ANY", "ALL", "NONE", "SOME",
        "SUBQUERY", "nil", "TRUEPREDICATE", "FALSEPREDICATE", "@count", "@sum", "@avg", "@min", "@max",
        "select", "distinct", "group", "having", "count", "sum", "average", "avg", "min", "max",
    ]
    /// The words an entity's name follows: such commands, and `generate swift`.
    static let entityCommands: Set<String> = Set(CommandParser.specs.filter(\.takesEntity).flatMap(\.names) + ["swift"])

    /// The candidates for the word `word` that starts at character `start` of `line`, written
    /// as they must be typed: names by the one quoting rule (`#"full name"`, `KeyName`). A
    /// candidate matches when its written form or its bare name starts with `word`, ignoring case.
    static func candidates(line: String, start: Int, word: String, schema: Schema, variables: [String]) -> [String] {
        let before = String(line.prefix(start))
        let command = before.split(separator: ";", omittingEmptySubsequences: false).last.map(String.init) ?? before
        let previous = words(command)
        let all: [(name: String, written: String)]
        if previous.isEmpty {
            all = (commandNames + commandNames.map { "." + $0 }).map { ($0, $0) }
        } else if word.hasPrefix("$") {
            all = variables.map { ("$" + $0, "$" + $0) }
        } else {
            let verb = previous[0].lowercased().trimmingPrefix(".")
            let last = previous.last?.lowercased() ?? ""
            if previous.count == 1 && verb == "mode" {
                all = OutputFormat.allCases.map { ($0.rawValue, $0.rawValue) }
            } else if previous.count == 1 && ["headers", "timer", "notify"].contains(verb) {
                all = ["on", "off"].map { ($0, $0) }
            } else if previous.count == 1 && verb == "help" {
                all = commandNames.map { ($0, $0) }
            } else if previous.count == 1 && verb == "generate" {
                all = [("swift", "swift")]
            } else if entityCommands.contains(last) || (previous.count == 1 && entityCommands.contains(verb)) {
                all = schema.entities.map { ($0.name, KeyName.written($0.name)) }
            } else if let entity = previous.count > 1 ? schema.entity(named: previous[1]) : nil {
                all = predicateWords(word, entity: entity, schema: schema, variables: variables)
            } else {
                all = predicateKeywords.map { ($0, $0) }
            }
        }
        return matching(all, word)
    }

    /// The candidates that begin with `word`, each once.
    static func matching(_ all: [(name: String, written: String)], _ word: String) -> [String] {
        let lowered = word.lowercased()
        var seen = Set<String>()
        return all.filter {
            ($0.written.lowercased().hasPrefix(lowered) || $0.name.lowercased().hasPrefix(lowered)) && seen.insert($0.written).inserted
        }.map(\.written)
    }

    /// What may come next in a predicate on `entity`: key paths, keywords, `$variables`.
    static func predicateWords(_ word: String, entity: EntityDescription, schema: Schema,
                               variables: [String]) -> [(name: String, written: String)] {
        keyPaths(word, entity: entity, schema: schema) + (predicateKeywords + variables.map { "$" + $0 }).map { ($0, $0) }
    }

    /// The characters that end the word being completed (libedit's word breaks at the prompt).
    /// Quotes are not among them: `#"full na` is one name being completed.
    static let wordBreakCharacters = " \t\n(),;=<>!"

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

    /// The words of the command typed so far, names unescaped (`#"Ünïcödé Tâble"` is one word);
    /// split at whitespace when it does not lex (an open quote).
    private static func words(_ text: String) -> [String] {
        if let tokens = try? Lexer.tokens(Array(text)) { return tokens.map(\.text) }
        return text.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// What replaces the typed `word`: the one match; else `word` followed by what all matches
    /// have in common after it. Never shorter than `word`, so Tab never removes typed text
    /// (libedit's own common prefix is case-sensitive: `Al` with `ALL` and `Album` gave `A`).
    static func replacement(for word: String, matches: [String]) -> String {
        if matches.count == 1, let only = matches.first { return only }
        guard var common = matches.first.map(Array.init) else { return word }
        for match in matches.dropFirst() {
            common = Array(zip(common, match).prefix { $0 == $1 }.map(\.0))
        }
        let prefix = String(common)
        let bare = prefix.hasPrefix("#\"") ? String(prefix.dropFirst(2)) : prefix
        let typed = word.lowercased()
        let keepsTyped = prefix.lowercased().hasPrefix(typed) || bare.lowercased().hasPrefix(typed)
        return keepsTyped && prefix.count >= word.count ? prefix : word
    }

    private static func lastDotOutsideQuotes(_ word: String) -> String.Index? {
        var quote: Character?
        var found: String.Index?
        for index in word.indices {
            let c = word[index]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "." {
                found = index
            }
        }
        return found
    }

    /// Attribute and relationship names (bare and written); after `Album.` those of the related
    /// entity, to-one or to-many, prefixed.
    static func keyPaths(_ word: String, entity: EntityDescription, schema: Schema) -> [(name: String, written: String)] {
        var parts: [String] = []
        if let dot = lastDotOutsideQuotes(word) {
            guard let path = (try? Lexer.tokens(Array(word[..<dot])))?.first, path.kind == .word else { return [] }
            parts = path.text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
        var current = entity
        for part in parts {
            // A to-one may also be named by its column (`ReportsTo.` for `ReportsToRef`).
            guard let relationship = current.relationship(named: part) ?? current.toOneRelationship(traversing: part),
                  let destination = schema.entity(named: relationship.destination) else { return [] }
            current = destination
        }
        let prefix = parts.map { $0 + "." }.joined()
        let writtenPrefix = parts.map { KeyName.written($0) + "." }.joined()
        return (current.attributes.map(\.name) + current.relationships.map(\.name)).map {
            (prefix + $0, writtenPrefix + KeyName.written($0))
        }
    }
}

extension String {
    func trimmingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
