import PortalEngine

/// Parses one command (as cut by `InputSplitter`) into a `Command`. Predicates are not parsed
/// here: their text is handed verbatim to the predicate compiler, with its offset for carets.
public struct CommandParser {
    private let characters: [Character]
    private let tokens: [Token]
    private var index = 0

    /// Parses `line`; nil when it holds no command.
    public static func parse(_ line: String) throws(ShellError) -> Command? {
        var parser = try CommandParser(line)
        guard !parser.tokens.isEmpty else { return nil }
        let command = try parser.command()
        if let extra = parser.peek { throw ShellError("unexpected '\(extra.text)'", extra.range) }
        return command
    }

    init(_ line: String) throws(ShellError) {
        characters = Array(line)
        guard let body = Self.sqlStatementStart(characters) else {
            tokens = try Lexer.tokens(characters)
            return
        }
        // Raw SQL keeps the database's own quoting (`'a\'`, `E'it\'s'`, `$$…$$`), which the
        // command language's strings would misread: the statement is one token, as written
        // (unquoted when it is one quoted string: `sql "SELECT 1"`).
        let statement = Array(characters[body...])
        var tokens = try Lexer.tokens(Array(characters[..<body]))
        if let only = try? Lexer.tokens(statement), only.count == 1, only[0].kind == .string,
           only[0].range.upperBound == statement.count {
            tokens.append(Token(kind: .string, text: only[0].text, range: (body + only[0].range.lowerBound)..<characters.count))
        } else if let start = statement.firstIndex(where: { !$0.isWhitespace }) {
            tokens.append(Token(kind: .word, text: String(statement[start...]), range: (body + start)..<characters.count))
        }
        self.tokens = tokens
    }

    /// Where the statement of an `sql` (or `.sql`) command starts: just after the command word.
    private static func sqlStatementStart(_ characters: [Character]) -> Int? {
        var i = characters.firstIndex { !$0.isWhitespace } ?? characters.count
        if i < characters.count, characters[i] == "." { i += 1 }
        guard i + 3 <= characters.count, String(characters[i..<(i + 3)]).lowercased() == "sql" else { return nil }
        i += 3
        guard i == characters.count || characters[i].isWhitespace else { return nil }
        return i
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

    private mutating func expect(_ keyword: String, after what: String) throws(ShellError) {
        guard accept(keyword) else {
            throw ShellError("expected '\(keyword)' after \(what)", peek?.range ?? endRange)
        }
    }

    private mutating func command() throws(ShellError) -> Command {
        guard let first = next() else { throw ShellError("empty command") }
        var word = first.text.lowercased()
        // sqlite3 habits: `.mode csv`, `.schema`, `.quit`.
        if first.isSymbol("."), let name = peek, name.kind == .word, name.range.lowerBound == first.range.upperBound {
            index += 1
            word = name.text.lowercased()
        } else if first.kind != .word {
            throw ShellError("expected a command, found '\(first.text)' (try 'help')", first.range)
        }
        if let spec = CommandSpec.named(word) {
            do { return try spec.parse(&self) } catch let error as ShellError { throw error } catch {
                throw ShellError("\(error)", first.range)
            }
        }
        if !first.isSymbol("."), Self.sqlStatementWords.contains(word) {
            // Not run as SQL: `update`, `delete` and `create` are commands of their own, so
            // which words would be SQL could not be told from the first word alone.
            // An INSERT most likely means to add a row, which `create` does.
            let adding = ["insert", "replace"].contains(word) ? "to add an entity write 'create ENTITY set key = value, …'; " : ""
            throw ShellError("unknown command '\(word)': \(adding)for SQL write 'sql \(first.text) …'", first.range)
        }
        let suggestion = closestName(to: word, among: commandNames).map { " (did you mean '\($0)'?)" } ?? " (try 'help')"
        throw ShellError("unknown command '\(first.isSymbol(".") ? "." + word : word)'\(suggestion)",
                         first.range.lowerBound..<(tokens[index - 1].range.upperBound))
    }

    /// Every command: its names, help and the parse of what follows its name. `help`,
    /// completion, the list of command names and the man page's check all read this table.
    static let specs: [CommandSpec] = [
        CommandSpec(["find"], entity: true, usages: [
            ("find E [where P] [sort by KEY [asc|desc], …] [limit N] [offset N]", "the matching entities, all attributes"),
            ("find E select [distinct] ITEM [as NAME], … [where P] [group by KEY, …] [having P] [sort by …] [limit N] [offset N]",
             "chosen columns: attributes, key paths, expressions, aggregates (count(), count([distinct] X), sum, average, "
                 + "min, max); one row per entity, or per group"),
        ]) { .find(try $0.query(allowWindow: true)) },
        CommandSpec(["first"], entity: true, usages: [
            ("first E [select …] [where P] [group by …] [having P] [sort by …]", "at most one entity (or group)"),
        ]) { .first(try $0.query(allowWindow: false)) },
        CommandSpec(["count"], entity: true, usages: [
            ("count E [where P] [group by KEY, … [sort by …] [limit N] [offset N]]",
             "how many entities match; with group by, each group's keys and count, largest first"),
        ]) { try $0.count() },
        CommandSpec(["get"], entity: true, usages: [
            ("get E ID [, ID…]", "one entity by its primary id (every part of a composite id, in key order)"),
        ]) { try $0.get() },
        CommandSpec(["explain"], usages: [
            ("explain COMMAND", "the SQL a command compiles to, its bound values and the database's query plan"),
        ]) { parser in
            guard parser.peek != nil else { throw ShellError("explain needs a command: explain find Track where …", parser.endRange) }
            return .explain(try parser.command())
        },
        CommandSpec(["entities"], aliases: ["tables"], usages: [
            ("entities", "each entity: name, kind, row count, attribute count"),
        ]) { _ in .entities },
        CommandSpec(["schemas"], usages: [
            ("schemas", "each schema (SQLite: each attached database): owner, entities, place in the search for names"),
        ]) { _ in .schemas },
        CommandSpec(["databases"], usages: [
            ("databases", "the server's databases (SQLite: the connection's files, as sqlite3's .databases)"),
        ]) { _ in .databases },
        CommandSpec(["describe"], entity: true, usages: [
            ("describe E", "an entity as psql's \\d shows it: columns, indexes, constraints, what refers to it, triggers"),
        ]) { .describe(try $0.name("an entity name")) },
        CommandSpec(["schema"], entity: true, usages: [
            ("schema [E] [sql]", "attributes, relationships, indexes, checks and triggers; with sql, the CREATE statements"),
        ]) { try $0.schema() },
        CommandSpec(["create"], entity: true, usages: [
            ("create E set KEY = VALUE [, …]", "insert one entity and print it (Core Data: RELATIONSHIP = ID, {ID, …} or nil)"),
        ]) { try $0.create(upsert: false) },
        CommandSpec(["update"], entity: true, usages: [
            ("update E set KEY = EXPR [, …] where P", "update the matching entities (where TRUEPREDICATE: all)"),
        ]) { try $0.update() },
        CommandSpec(["upsert"], entity: true, usages: [
            ("upsert E set KEY = VALUE [, …]", "insert, or update the entity with the same primary id"),
        ]) { try $0.create(upsert: true) },
        CommandSpec(["delete"], entity: true, usages: [
            ("delete E where P", "delete the matching entities (where TRUEPREDICATE: all; Core Data: by the model's delete rules)"),
        ]) { try $0.delete() },
        CommandSpec(["import"], entity: true, usages: [
            ("import E from PATH [as csv|tsv|json|ndjson]", "insert records from a file, all or nothing"),
        ]) { try $0.importCommand() },
        CommandSpec(["export"], entity: true, usages: [
            ("export E [select …] [where P] [group by …] [sort by …] to PATH [as csv|tsv|json|ndjson]",
             "write entities (or a selection) to a file (to -: the output)"),
        ]) { try $0.export() },
        CommandSpec(["begin"], usages: [("begin", "group the following writes into one transaction")]) {
            _ = $0.accept("transaction")
            return .begin
        },
        CommandSpec(["commit"], aliases: ["end"], usages: [("commit", "make the transaction's writes permanent")]) {
            _ = $0.accept("transaction")
            return .commit
        },
        CommandSpec(["rollback"], usages: [("rollback", "undo the transaction's writes")]) {
            _ = $0.accept("transaction")
            return .rollback
        },
        CommandSpec(["let"], usages: [("let $NAME = VALUE", "define a variable for predicates")]) { try $0.letCommand() },
        CommandSpec(["vars"], usages: [("vars", "list the variables")]) { _ in .variables },
        CommandSpec(["mode"], usages: [("mode table|csv|tsv|json|ndjson|line|markdown", "the output format")]) {
            .mode(try $0.format())
        },
        CommandSpec(["headers"], aliases: ["header"], usages: [("headers on|off", "show the header row")]) {
            .headers(try $0.onOff())
        },
        CommandSpec(["null"], aliases: ["nullvalue"], usages: [("null TEXT", "how NULL is shown")]) {
            .null(try $0.rest(what: "the text to show for NULL", allowEmpty: true))
        },
        CommandSpec(["timer"], usages: [("timer on|off", "print each command's time on standard error")]) { .timer(try $0.onOff()) },
        CommandSpec(["output"], aliases: ["once"], usages: [
            ("output PATH | output stdout", "send results to a file, or back to standard output"),
        ]) { parser in
            let path = try parser.path("a file path or 'stdout'")
            return .output(path == "stdout" || path == "-" ? nil : path)
        },
        CommandSpec(["read"], usages: [("read PATH", "run the commands in a file")]) { .read(try $0.path("a file path")) },
        CommandSpec(["open"], usages: [("open PATH", "switch to another database")]) { .open(try $0.path("a database path")) },
        CommandSpec(["browse"], entity: true, usages: [("browse [E] [where P] [sort by …]", "the full-screen browser")]) {
            .browse($0.peek == nil ? nil : try $0.query(allowWindow: false))
        },
        CommandSpec(["generate"], usages: [("generate swift [E …]", "Swift entity types for the engine's typed portal")]) { parser in
            guard parser.accept("swift") else { throw ShellError("expected 'swift' after generate", parser.peek?.range ?? parser.endRange) }
            var entities: [Located<String>] = []
            while parser.peek != nil {
                entities.append(try parser.name("an entity name"))
                _ = parser.acceptSymbol(",")
            }
            return .generateSwift(entities)
        },
        CommandSpec(["sql"], usages: [("sql STATEMENT", "raw SQL (writes go through a write transaction)")]) {
            .sql(try $0.rest(what: "an SQL statement", allowEmpty: false))
        },
        CommandSpec(["notify"], usages: [
            ("notify on|off", "PostgreSQL: add (or drop) a trigger on each table that notifies other sessions "
                 + "of its changes, for their browsers and observers to refresh at once"),
        ]) { .notify(try $0.onOff()) },
        CommandSpec(["relate"], usages: [
            ("relate [E.ATTRIBUTE -> F]", "a relationship the database does not declare, saved for it; alone: list them"),
        ]) { parser in
            guard parser.peek != nil else { return .relations }
            let from = try parser.name("ENTITY.attribute")
            guard parser.acceptSymbol("->") else {
                throw ShellError("expected '->' after \(from.value): relate ENTITY.attribute -> ENTITY", parser.peek?.range ?? parser.endRange)
            }
            return .relate(from, try parser.name("the related entity"))
        },
        CommandSpec(["unrelate"], usages: [("unrelate E.ATTRIBUTE", "forget a relationship made with relate")]) {
            .unrelate(try $0.name("ENTITY.attribute"))
        },
        CommandSpec(["help"], usages: [("help [COMMAND]", "this text, or one command's")]) { parser in
            guard let topic = parser.next() else { return .help(nil) }
            return .help(topic.text.lowercased())
        },
        CommandSpec(["quit", "exit"], aliases: ["q"], usages: [("quit | exit", "leave (end of input does too)")]) { _ in .quit },
    ]

    /// First words of SQL statements that are not commands here: `SELECT …` at the prompt
    /// suggests `sql SELECT …`.
    static let sqlStatementWords: Set<String> = [
        "select", "insert", "replace", "with", "pragma", "vacuum", "attach", "detach", "drop", "alter",
        "analyze", "reindex", "savepoint", "release", "values",
    ]

    // MARK: Pieces

    /// A name: a word or a quoted string; parts joined by dots with nothing between, each
    /// quoted or not, make one name (`sales."OrderLines"`, `"sales"."OrderLines"`: an entity in
    /// a schema, as psql writes it).
    private mutating func name(_ what: String) throws(ShellError) -> Located<String> {
        guard let token = peek else { throw ShellError("expected \(what)", endRange) }
        guard token.kind == .word || token.kind == .string else {
            throw ShellError("expected \(what), found '\(token.text)'", token.range)
        }
        index += 1
        var (text, range) = (token.text, token.range)
        while index + 1 < tokens.count, tokens[index].isSymbol("."), tokens[index].range.lowerBound == range.upperBound,
              tokens[index + 1].kind == .word || tokens[index + 1].kind == .string,
              tokens[index + 1].range.lowerBound == tokens[index].range.upperBound {
            text += "." + tokens[index + 1].text
            range = range.lowerBound..<tokens[index + 1].range.upperBound
            index += 2
        }
        return Located(text, range)
    }

    private mutating func query(allowWindow: Bool) throws(ShellError) -> Query {
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
    private mutating func window(_ query: inout Query, allowOffset: Bool) throws(ShellError) {
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
    private mutating func count() throws(ShellError) -> Command {
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
    private mutating func selectionItems() throws(ShellError) -> SelectionClause {
        let distinct = accept("distinct")
        var clause = SelectionClause(items: try list(stopAtTo: true, selecting: true))
        clause.distinct = distinct
        return clause
    }

    /// Expressions separated by top-level commas, up to the next clause; in a selection each may
    /// end with `as NAME`.
    private mutating func list(stopAtTo: Bool, selecting: Bool = false)
        throws(ShellError) -> [(expression: PredicateText, name: String?)] {
        var items: [(expression: PredicateText, name: String?)] = []
        repeat {
            let expression = try predicate(stopAtTo: stopAtTo, stopAtGroup: true, listing: true, selecting: selecting,
                                           what: "an expression")
            items.append((expression, selecting && accept("as") ? try name("a column name after 'as'").value : nil))
        } while acceptSymbol(",")
        return items
    }

    private mutating func sortKeys() throws(ShellError) -> [Located<SortKey>] {
        var keys: [Located<SortKey>] = []
        repeat {
            let key = try name("an attribute to sort by")
            var ascending = true
            if accept("desc") || accept("descending") { ascending = false } else { _ = accept("asc") || accept("ascending") }
            keys.append(Located(SortKey(key.value, ascending: ascending), key.range))
        } while acceptSymbol(",")
        return keys
    }

    private mutating func rowCount(_ what: String) throws(ShellError) -> RowCount {
        if let token = peek, token.kind == .variable {
            index += 1
            return .variable(Located(token.text, token.range))
        }
        guard let token = peek, token.kind == .number, let value = Int(token.text), value >= 0 else {
            throw ShellError("expected \(what) (a number or a $variable)", peek?.range ?? endRange)
        }
        index += 1
        return .number(value)
    }

    /// The predicate text from here to the next top-level `sort by`, `limit N`, `offset N`,
    /// (`to` for export), with a selection `group by` and `having` (and, in a list, a comma or
    /// `where`), or the end.
    private mutating func predicate(stopAtTo: Bool = false, stopAtGroup: Bool = false, listing: Bool = false,
                                    selecting: Bool = false, what: String = "a predicate after 'where'")
        throws(ShellError) -> PredicateText {
        let start = index
        var depth = 0
        var end = tokens.count
        let interruption = PredicateInterruption.requested
        scan: while index < tokens.count {
            try ShellError.poll(index - start &+ 1, interruption)
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
            throw ShellError("expected \(what)", index < tokens.count ? tokens[index].range : endRange)
        }
        let from = tokens[start].range.lowerBound
        let to = tokens[end - 1].range.upperBound
        return PredicateText(String(characters[from..<to]), offset: from)
    }

    private mutating func get() throws(ShellError) -> Command {
        let entity = try name("an entity name")
        var ids: [Literal] = []
        repeat {
            ids.append(try literal("an id"))
        } while acceptSymbol(",")
        return .get(entity, ids)
    }

    private mutating func literal(_ what: String) throws(ShellError) -> Literal {
        guard let token = next() else { throw ShellError("expected \(what)", endRange) }
        switch token.kind {
        case .string: return .value(.text(token.text))
        case .variable: return .variable(token.text)
        case .number:
            if let i = Int64(token.text) { return .value(.integer(i)) }
            if let d = ExactDecimal.literal(token.text) { return .value(.decimal(d)) }
            if let r = Double(token.text) { return .value(.real(r)) }
            throw ShellError("'\(token.text)' is not a number", token.range)
        case .word:
            switch token.text.lowercased() {
            case "null", "nil": return .value(.null)
            case "true", "yes": return .value(.integer(1))
            case "false", "no": return .value(.integer(0))
            default: throw ShellError("expected \(what), found '\(token.text)' (quote text: \"\(token.text)\")", token.range)
            }
        case .symbol:
            throw ShellError("expected \(what), found '\(token.text)'", token.range)
        }
    }

    private mutating func assignments(stopAtWhere: Bool) throws(ShellError) -> [Assignment] {
        try expect("set", after: "the entity name")
        var result: [Assignment] = []
        repeat {
            let key = try name("an attribute name")
            guard acceptSymbol("=") || acceptSymbol("==") else {
                throw ShellError("expected '=' after '\(key.value)'", peek?.range ?? endRange)
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
                throw ShellError("expected a value for '\(key.value)'", peek?.range ?? endRange)
            }
            let text = String(characters[first.range.lowerBound..<last.range.upperBound])
            result.append(Assignment(key: key, value: PredicateText(text, offset: first.range.lowerBound)))
        } while acceptSymbol(",")
        return result
    }

    private mutating func create(upsert: Bool) throws(ShellError) -> Command {
        let entity = try name("an entity name")
        let values = try assignments(stopAtWhere: false)
        return upsert ? .upsert(entity, values) : .create(entity, values)
    }

    private mutating func update() throws(ShellError) -> Command {
        let entity = try name("an entity name")
        let values = try assignments(stopAtWhere: true)
        guard accept("where") else {
            throw ShellError("update needs 'where' (write 'where TRUEPREDICATE' to update every \(entity.value))",
                             peek?.range ?? endRange)
        }
        return .update(entity, values, try predicate())
    }

    private mutating func delete() throws(ShellError) -> Command {
        _ = accept("from")
        let entity = try name("an entity name")
        guard accept("where") else {
            throw ShellError("delete needs 'where' (write 'where TRUEPREDICATE' to delete every \(entity.value))",
                             peek?.range ?? endRange)
        }
        return .delete(entity, try predicate())
    }

    /// `schema [entity] [sql | --sql]`; a bare `schema sql` is every entity's SQL (an entity
    /// named `sql` is written quoted: `schema "sql"`).
    private mutating func schema() throws(ShellError) -> Command {
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

    private mutating func importCommand() throws(ShellError) -> Command {
        let entity = try name("an entity name")
        try expect("from", after: "the entity name")
        let file = try path("a file path")
        return .importData(entity, path: file, try dataFormat())
    }

    private mutating func export() throws(ShellError) -> Command {
        let query = try query(allowWindow: true)
        try expect("to", after: "the query")
        let file = try path("a file path")
        return .export(query, path: file, try dataFormat())
    }

    private mutating func dataFormat() throws(ShellError) -> DataFormat? {
        guard accept("as") else { return nil }
        guard let token = next(), let format = DataFormat(rawValue: token.text.lowercased()) else {
            throw ShellError("expected csv, tsv, json or ndjson after 'as'", tokens[index - 1].range)
        }
        return format
    }

    private mutating func letCommand() throws(ShellError) -> Command {
        guard let token = next(), token.kind == .variable || token.kind == .word else {
            throw ShellError("expected a variable: let $name = value", tokens.last?.range ?? endRange)
        }
        guard acceptSymbol("=") else { throw ShellError("expected '=' after $\(token.text)", peek?.range ?? endRange) }
        return .setVariable(token.text, try literal("a value"))
    }

    private mutating func format() throws(ShellError) -> OutputFormat {
        guard let token = next() else { throw ShellError("expected a format: \(formatList)", endRange) }
        let name = token.text.lowercased()
        let aliases = ["list": "tsv", "box": "table", "column": "table", "tabs": "tsv", "jsonl": "ndjson", "md": "markdown"]
        guard let format = OutputFormat(rawValue: aliases[name] ?? name) else {
            throw ShellError("unknown format '\(token.text)' (expected \(formatList))", token.range)
        }
        return format
    }

    private var formatList: String { OutputFormat.allCases.map(\.rawValue).joined(separator: ", ") }

    private mutating func onOff() throws(ShellError) -> Bool {
        guard let token = next() else { throw ShellError("expected 'on' or 'off'", endRange) }
        switch token.text.lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw ShellError("expected 'on' or 'off', found '\(token.text)'", token.range)
        }
    }

    /// A path: a quoted string, or the characters up to the next whitespace.
    private mutating func path(_ what: String) throws(ShellError) -> String {
        guard let token = peek else { throw ShellError("expected \(what)", endRange) }
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
    private mutating func rest(what: String, allowEmpty: Bool) throws(ShellError) -> String {
        guard let token = peek else {
            if allowEmpty { return "" }
            throw ShellError("expected \(what)", endRange)
        }
        index = tokens.count
        if token.kind == .string && token.range.upperBound == characters.count { return token.text }
        return String(characters[token.range.lowerBound...]).trimmingWhitespace()
    }
}
