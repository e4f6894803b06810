import PortalEngine

/// Parses one command (as cut by `InputSplitter`) into a `Command`. Predicates are not parsed
/// here: their text is handed verbatim to the predicate compiler, with its offset for carets.
public struct CommandParser {
    private let characters: [Character]
    private let tokens: [Token]
    private var index = 0

    /// Parses `line`; nil when it holds no command.
    public static func parse(_ line: String) throws(CommandError) -> Command? {
        var parser = try CommandParser(line)
        guard !parser.tokens.isEmpty else { return nil }
        let command = try parser.command()
        if let extra = parser.peek { throw CommandError("unexpected '\(extra.text)'", extra.range) }
        return command
    }

    init(_ line: String) throws(CommandError) {
        characters = Array(line)
        tokens = try Lexer.tokens(characters)
    }

    private var peek: Token? { index < tokens.count ? tokens[index] : nil }
    private var endRange: Range<Int> { characters.count..<(characters.count + 1) }

    private mutating func next() -> Token? {
        defer { index += 1 }
        return peek
    }

    private mutating func accept(_ keyword: String) -> Bool {
        guard let token = peek, token.isKeyword(keyword) else { return false }
        index += 1
        return true
    }

    private mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard let token = peek, token.isSymbol(symbol) else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ keyword: String, after what: String) throws(CommandError) {
        guard accept(keyword) else {
            throw CommandError("expected '\(keyword)' after \(what)", peek?.range ?? endRange)
        }
    }

    private mutating func command() throws(CommandError) -> Command {
        guard let first = next() else { throw CommandError("empty command") }
        var word = first.text.lowercased()
        // sqlite3 habits: `.mode csv`, `.schema`, `.quit`.
        if first.isSymbol("."), let name = peek, name.kind == .word, name.range.lowerBound == first.range.upperBound {
            index += 1
            word = name.text.lowercased()
        } else if first.kind != .word {
            throw CommandError("expected a command, found '\(first.text)' (try 'help')", first.range)
        }
        switch word {
        case "find": return .find(try query(allowWindow: true))
        case "first": return .first(try query(allowWindow: false))
        case "count": return try count()
        case "get": return try get()
        case "explain":
            guard peek != nil else { throw CommandError("explain needs a command: explain find Track where …", endRange) }
            return .explain(try command())
        case "entities", "tables": return .entities
        case "schema": return try schema()
        case "create": return try create(upsert: false)
        case "upsert": return try create(upsert: true)
        case "update": return try update()
        case "delete": return try delete()
        case "import": return try importCommand()
        case "export": return try export()
        case "begin":
            _ = accept("transaction")
            return .begin
        case "commit", "end":
            _ = accept("transaction")
            return .commit
        case "rollback":
            _ = accept("transaction")
            return .rollback
        case "let": return try letCommand()
        case "vars": return .variables
        case "mode": return .mode(try format())
        case "headers", "header": return .headers(try onOff())
        case "timer": return .timer(try onOff())
        case "notify": return .notify(try onOff())
        case "null", "nullvalue": return .null(try rest(what: "the text to show for NULL", allowEmpty: true))
        case "output", "once":
            let path = try path("a file path or 'stdout'")
            return .output(path == "stdout" || path == "-" ? nil : path)
        case "read": return .read(try path("a file path"))
        case "open": return .open(try path("a database path"))
        case "browse": return .browse(peek == nil ? nil : try query(allowWindow: false))
        case "generate":
            guard accept("swift") else { throw CommandError("expected 'swift' after generate", peek?.range ?? endRange) }
            var entities: [Located<String>] = []
            while peek != nil {
                entities.append(try name("an entity name"))
                _ = acceptSymbol(",")
            }
            return .generateSwift(entities)
        case "sql": return .sql(try rest(what: "an SQL statement", allowEmpty: false))
        case "relate":
            guard peek != nil else { return .relations }
            let from = try name("ENTITY.attribute")
            guard acceptSymbol("->") else {
                throw CommandError("expected '->' after \(from.value): relate ENTITY.attribute -> ENTITY", peek?.range ?? endRange)
            }
            return .relate(from, try name("the related entity"))
        case "unrelate": return .unrelate(try name("ENTITY.attribute"))
        case "help":
            guard let topic = next() else { return .help(nil) }
            return .help(topic.text.lowercased())
        case "quit", "exit", "q": return .quit
        default:
            if !first.isSymbol("."), Self.sqlStatementWords.contains(word) {
                // Not run as SQL: `update`, `delete` and `create` are commands of their own, so
                // which words would be SQL could not be told from the first word alone.
                // An INSERT most likely means to add a row, which `create` does.
                let adding = ["insert", "replace"].contains(word) ? "to add an entity write 'create ENTITY set key = value, …'; " : ""
                throw CommandError("unknown command '\(word)': \(adding)for SQL write 'sql \(first.text) …'",
                                   first.range)
            }
            let suggestion = closestName(to: word, among: commandNames).map { " (did you mean '\($0)'?)" } ?? " (try 'help')"
            throw CommandError("unknown command '\(first.isSymbol(".") ? "." + word : word)'\(suggestion)",
                               first.range.lowerBound..<(tokens[index - 1].range.upperBound))
        }
    }

    /// First words of SQL statements that are not commands here: `SELECT …` at the prompt
    /// suggests `sql SELECT …`.
    static let sqlStatementWords: Set<String> = [
        "select", "insert", "replace", "with", "pragma", "vacuum", "attach", "detach", "drop", "alter",
        "analyze", "reindex", "savepoint", "release", "values",
    ]

    // MARK: Pieces

    private mutating func name(_ what: String) throws(CommandError) -> Located<String> {
        guard let token = peek else { throw CommandError("expected \(what)", endRange) }
        guard token.kind == .word || token.kind == .string else {
            throw CommandError("expected \(what), found '\(token.text)'", token.range)
        }
        index += 1
        return Located(token.text, token.range)
    }

    private mutating func query(allowWindow: Bool) throws(CommandError) -> Query {
        var query = Query(entity: try name("an entity name"))
        if accept("select") { query.selection = try selectionItems() }
        let grouping = query.selection != nil
        if accept("where") { query.predicate = try predicate(stopAtTo: true, stopAtGroup: grouping) }
        if grouping, accept("group") {
            try expect("by", after: "'group'")
            query.selection?.groupBy = try list(stopAtTo: true).map(\.expression)
        }
        if grouping, accept("having") { query.selection?.having = try predicate(stopAtTo: true, stopAtGroup: true) }
        try window(&query, allowOffset: allowWindow)
        return query
    }

    /// `[sort by KEY [asc|desc], …] [limit N] [offset N]` in any order.
    private mutating func window(_ query: inout Query, allowOffset: Bool) throws(CommandError) {
        while let token = peek {
            if token.isKeyword("sort") || token.isKeyword("order") {
                index += 1
                try expect("by", after: "'\(token.text)'")
                query.sort = try sortKeys()
            } else if token.isKeyword("limit") {
                index += 1
                query.limit = try rowCount("a row count")
            } else if token.isKeyword("offset") && allowOffset {
                index += 1
                query.offset = try rowCount("a row count")
            } else {
                break
            }
        }
    }

    /// `count E [where P] [group by KEY, …]`: with groups, the keys and each group's count,
    /// largest first — a `find … select KEY, …, count() as count … sort by count desc`.
    private mutating func count() throws(CommandError) -> Command {
        let entity = try name("an entity name")
        let predicate = accept("where") ? try self.predicate(stopAtGroup: true) : nil
        guard accept("group") else { return .count(entity, predicate) }
        try expect("by", after: "'group'")
        let keys = try list(stopAtTo: false).map(\.expression)
        var selection = SelectionClause(items: keys.map { (expression: $0, name: nil) })
        selection.items.append((PredicateText("count()", offset: keys.last?.offset ?? 0), "count"))
        selection.groupBy = keys
        var query = Query(entity: entity, selection: selection, predicate: predicate)
        try window(&query, allowOffset: true)
        if query.sort.isEmpty {
            query.sort = [Located(SortKey("count", ascending: false), entity.range)]
                + keys.map { Located(SortKey($0.text), $0.offset..<($0.offset + $0.text.count)) }
        }
        return .find(query)
    }

    /// `[distinct] ITEM [as NAME], …` up to `where`, `group by`, `having`, `sort by`, a window or the end.
    private mutating func selectionItems() throws(CommandError) -> SelectionClause {
        let distinct = accept("distinct")
        var clause = SelectionClause(items: try list(stopAtTo: true, selecting: true))
        clause.distinct = distinct
        return clause
    }

    /// Expressions separated by top-level commas, up to the next clause; in a selection each may
    /// end with `as NAME`.
    private mutating func list(stopAtTo: Bool, selecting: Bool = false)
        throws(CommandError) -> [(expression: PredicateText, name: String?)] {
        var items: [(expression: PredicateText, name: String?)] = []
        repeat {
            let expression = try predicate(stopAtTo: stopAtTo, stopAtGroup: true, listing: true, selecting: selecting,
                                           what: "an expression")
            items.append((expression, selecting && accept("as") ? try name("a column name after 'as'").value : nil))
        } while acceptSymbol(",")
        return items
    }

    private mutating func sortKeys() throws(CommandError) -> [Located<SortKey>] {
        var keys: [Located<SortKey>] = []
        repeat {
            let key = try name("an attribute to sort by")
            var ascending = true
            if accept("desc") || accept("descending") { ascending = false } else { _ = accept("asc") || accept("ascending") }
            keys.append(Located(SortKey(key.value, ascending: ascending), key.range))
        } while acceptSymbol(",")
        return keys
    }

    private mutating func rowCount(_ what: String) throws(CommandError) -> RowCount {
        if let token = peek, token.kind == .variable {
            index += 1
            return .variable(Located(token.text, token.range))
        }
        guard let token = peek, token.kind == .number, let value = Int(token.text), value >= 0 else {
            throw CommandError("expected \(what) (a number or a $variable)", peek?.range ?? endRange)
        }
        index += 1
        return .number(value)
    }

    /// The predicate text from here to the next top-level `sort by`, `limit N`, `offset N`,
    /// (`to` for export), with a selection `group by` and `having` (and, in a list, a comma or
    /// `where`), or the end.
    private mutating func predicate(stopAtTo: Bool = false, stopAtGroup: Bool = false, listing: Bool = false,
                                    selecting: Bool = false, what: String = "a predicate after 'where'")
        throws(CommandError) -> PredicateText {
        let start = index
        var depth = 0
        var end = tokens.count
        scan: while index < tokens.count {
            let token = tokens[index]
            if token.kind == .symbol {
                if listing && depth == 0 && token.text == "," {
                    end = index
                    break scan
                }
                if ["(", "[", "{"].contains(token.text) { depth += 1 }
                if [")", "]", "}"].contains(token.text) { depth -= 1 }
            } else if depth == 0 && token.kind == .word {
                let following = index + 1 < tokens.count ? tokens[index + 1] : nil
                let lowered = token.text.lowercased()
                if (lowered == "sort" || lowered == "order" || stopAtGroup && lowered == "group") && following?.isKeyword("by") == true
                    || stopAtGroup && lowered == "having" && index > start
                    || selecting && (lowered == "where" || lowered == "as" && following?.kind == .word) && index > start
                    || (lowered == "limit" || lowered == "offset") && (following?.kind == .number || following?.kind == .variable)
                    || stopAtTo && lowered == "to" && index > start {
                    end = index
                    break scan
                }
            }
            index += 1
        }
        guard end > start else {
            throw CommandError("expected \(what)", index < tokens.count ? tokens[index].range : endRange)
        }
        let from = tokens[start].range.lowerBound
        let to = tokens[end - 1].range.upperBound
        return PredicateText(String(characters[from..<to]), offset: from)
    }

    private mutating func get() throws(CommandError) -> Command {
        let entity = try name("an entity name")
        var ids: [Literal] = []
        repeat {
            ids.append(try literal("an id"))
        } while acceptSymbol(",")
        return .get(entity, ids)
    }

    private mutating func literal(_ what: String) throws(CommandError) -> Literal {
        guard let token = next() else { throw CommandError("expected \(what)", endRange) }
        switch token.kind {
        case .string: return .value(.text(token.text))
        case .variable: return .variable(token.text)
        case .number:
            if let i = Int64(token.text) { return .value(.integer(i)) }
            if let r = Double(token.text) { return .value(.real(r)) }
            throw CommandError("'\(token.text)' is not a number", token.range)
        case .word:
            switch token.text.lowercased() {
            case "null", "nil": return .value(.null)
            case "true", "yes": return .value(.integer(1))
            case "false", "no": return .value(.integer(0))
            default: throw CommandError("expected \(what), found '\(token.text)' (quote text: \"\(token.text)\")", token.range)
            }
        case .symbol:
            throw CommandError("expected \(what), found '\(token.text)'", token.range)
        }
    }

    private mutating func assignments(stopAtWhere: Bool) throws(CommandError) -> [Assignment] {
        try expect("set", after: "the entity name")
        var result: [Assignment] = []
        repeat {
            let key = try name("an attribute name")
            guard acceptSymbol("=") || acceptSymbol("==") else {
                throw CommandError("expected '=' after '\(key.value)'", peek?.range ?? endRange)
            }
            var expression: [Token] = []
            var depth = 0
            while let token = peek {
                if depth == 0 && (token.isSymbol(",") || (stopAtWhere && token.isKeyword("where"))) { break }
                if ["(", "{"].contains(where: token.isSymbol) { depth += 1 }   // `{1, 2}`: a to-many's ids
                if [")", "}"].contains(where: token.isSymbol) { depth -= 1 }
                expression.append(token)
                index += 1
            }
            guard let first = expression.first, let last = expression.last else {
                throw CommandError("expected a value for '\(key.value)'", peek?.range ?? endRange)
            }
            let text = String(characters[first.range.lowerBound..<last.range.upperBound])
            result.append(Assignment(key: key, value: PredicateText(text, offset: first.range.lowerBound)))
        } while acceptSymbol(",")
        return result
    }

    private mutating func create(upsert: Bool) throws(CommandError) -> Command {
        let entity = try name("an entity name")
        let values = try assignments(stopAtWhere: false)
        return upsert ? .upsert(entity, values) : .create(entity, values)
    }

    private mutating func update() throws(CommandError) -> Command {
        let entity = try name("an entity name")
        let values = try assignments(stopAtWhere: true)
        guard accept("where") else {
            throw CommandError("update needs 'where' (write 'where TRUEPREDICATE' to update every \(entity.value))",
                               peek?.range ?? endRange)
        }
        return .update(entity, values, try predicate())
    }

    private mutating func delete() throws(CommandError) -> Command {
        _ = accept("from")
        let entity = try name("an entity name")
        guard accept("where") else {
            throw CommandError("delete needs 'where' (write 'where TRUEPREDICATE' to delete every \(entity.value))",
                               peek?.range ?? endRange)
        }
        return .delete(entity, try predicate())
    }

    /// `schema [entity] [sql | --sql]`; a bare `schema sql` is every entity's SQL (an entity
    /// named `sql` is written quoted: `schema "sql"`).
    private mutating func schema() throws(CommandError) -> Command {
        if acceptSQLView() { return .schema(peek == nil ? nil : try name("an entity name"), sql: true) }
        let entity = peek == nil ? nil : try name("an entity name")
        return .schema(entity, sql: acceptSQLView())
    }

    /// `sql` or `--sql`.
    private mutating func acceptSQLView() -> Bool {
        if let token = peek, token.kind == .word, token.text.lowercased() == "sql" {
            index += 1
            return true
        }
        guard index + 2 < tokens.count, tokens[index].isSymbol("-"), tokens[index + 1].isSymbol("-"),
              tokens[index + 2].isKeyword("sql") else { return false }
        index += 3
        return true
    }

    private mutating func importCommand() throws(CommandError) -> Command {
        let entity = try name("an entity name")
        try expect("from", after: "the entity name")
        let file = try path("a file path")
        return .importData(entity, path: file, try dataFormat())
    }

    private mutating func export() throws(CommandError) -> Command {
        let query = try query(allowWindow: true)
        try expect("to", after: "the query")
        let file = try path("a file path")
        return .export(query, path: file, try dataFormat())
    }

    private mutating func dataFormat() throws(CommandError) -> DataFormat? {
        guard accept("as") else { return nil }
        guard let token = next(), let format = DataFormat(rawValue: token.text.lowercased()) else {
            throw CommandError("expected csv, tsv, json or ndjson after 'as'", tokens[index - 1].range)
        }
        return format
    }

    private mutating func letCommand() throws(CommandError) -> Command {
        guard let token = next(), token.kind == .variable || token.kind == .word else {
            throw CommandError("expected a variable: let $name = value", tokens.last?.range ?? endRange)
        }
        guard acceptSymbol("=") else { throw CommandError("expected '=' after $\(token.text)", peek?.range ?? endRange) }
        return .setVariable(token.text, try literal("a value"))
    }

    private mutating func format() throws(CommandError) -> OutputFormat {
        guard let token = next() else { throw CommandError("expected a format: \(formatList)", endRange) }
        let name = token.text.lowercased()
        let aliases = ["list": "tsv", "box": "table", "column": "table", "tabs": "tsv", "jsonl": "ndjson", "md": "markdown"]
        guard let format = OutputFormat(rawValue: aliases[name] ?? name) else {
            throw CommandError("unknown format '\(token.text)' (expected \(formatList))", token.range)
        }
        return format
    }

    private var formatList: String { OutputFormat.allCases.map(\.rawValue).joined(separator: ", ") }

    private mutating func onOff() throws(CommandError) -> Bool {
        guard let token = next() else { throw CommandError("expected 'on' or 'off'", endRange) }
        switch token.text.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw CommandError("expected 'on' or 'off', found '\(token.text)'", token.range)
        }
    }

    /// A path: a quoted string, or the characters up to the next whitespace.
    private mutating func path(_ what: String) throws(CommandError) -> String {
        guard let token = peek else { throw CommandError("expected \(what)", endRange) }
        if token.kind == .string {
            index += 1
            return token.text
        }
        var end = token.range.lowerBound
        while end < characters.count && !characters[end].isWhitespace { end += 1 }
        while index < tokens.count && tokens[index].range.lowerBound < end { index += 1 }
        return String(characters[token.range.lowerBound..<end])
    }

    /// Everything after the command word, verbatim (a quoted string is unquoted).
    private mutating func rest(what: String, allowEmpty: Bool) throws(CommandError) -> String {
        guard let token = peek else {
            if allowEmpty { return "" }
            throw CommandError("expected \(what)", endRange)
        }
        index = tokens.count
        if token.kind == .string && token.range.upperBound == characters.count { return token.text }
        return String(characters[token.range.lowerBound...]).trimmingWhitespace()
    }
}
