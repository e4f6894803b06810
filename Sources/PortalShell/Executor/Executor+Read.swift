import PortalEngine
import PortalSQLite
import PortalPostgres
import PortalTUI

/// The SQL a query compiles to, with what it binds.
struct CompiledQuery {
    var sql: String
    var bindings: [Value]

    /// A statement of the engine, rendered by the session's dialect.
    init(_ fragment: SQLFragment) {
        sql = fragment.sql
        bindings = fragment.bindings
    }

    init(sql: String, bindings: [Value]) {
        self.sql = sql
        self.bindings = bindings
    }
}

extension Executor {
    static let alias = "t0"

    func entity(_ name: Located<String>) throws -> EntityDescription {
        let schema = try requireDatabase().schema
        if let entity = schema.entity(named: name.value) { return entity }
        let names = schema.entities.map(\.name)
        let suggestion = closestName(to: name.value, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        let matches = names.filter { $0.lowercased() == name.value.lowercased() }
        if matches.count > 1 {
            throw ShellError("entity name '\(name.value)' is ambiguous: \(matches.joined(separator: ", "))", name.range)
        }
        throw ShellError("unknown entity '\(name.value)'\(suggestion)", name.range)
    }

    /// The variables predicates see: `--param` values and `let`.
    var predicateVariables: [String: Argument] {
        variables.mapValues { .value($0) }
    }

    /// The WHERE condition and the Realm SORT/LIMIT of a predicate, positions shifted to the command.
    func filter(_ predicate: PredicateText?, entity: EntityDescription) throws -> CompiledFilter? {
        guard let predicate else { return nil }
        let schema = try requireDatabase().schema
        do {
            let compiled = try PredicateCompiler.compile(predicate.text, variables: predicateVariables, entity: entity,
                                                         schema: schema, alias: Self.alias,
                                                         dialect: requireDatabase().store.dialect)
            for warning in compiled.warnings
            where !predicateWarnings.contains(warning) {
                predicateWarnings.append(warning)
                report("warning: " + warning)
            }
            if let equivalent = compiled.equivalent { predicateEquivalents.append(equivalent) }
            return compiled
        } catch let error as PortalPredicateError {
            throw ShellError.from(PortalError(wrapping: error), in: predicate.text, offset: predicate.offset)
        } catch let error as PortalError {
            throw ShellError.from(error, in: predicate.text, offset: predicate.offset)
        }
    }

    /// Checks that a sort key's first name is an attribute or relationship, for an error with a caret.
    func checkKeyPath(_ key: Located<SortKey>, entity: EntityDescription) throws {
        let first = String(key.value.keyPath.split(separator: ".").first ?? "")
        if entity.attribute(named: first) != nil || entity.relationship(named: first) != nil { return }
        let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        let suggestion = closestName(to: first, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw ShellError("unknown attribute '\(first)' on \(entity.name)\(suggestion)",
                         key.range.lowerBound..<(key.range.lowerBound + first.count))
    }

    func compile(_ query: Query, limitOne: Bool) throws -> (CompiledQuery, EntityDescription) {
        let entity = try entity(query.entity)
        if let clause = query.selection { return (try compile(query, clause, entity: entity, limitOne: limitOne), entity) }
        let compiled = try filter(query.predicate, entity: entity)
        for key in query.sort { try checkKeyPath(key, entity: entity) }
        let limit = limitOne ? 1 : try query.limit.map(count)
        return (try findQuery(entity, columns: attributeColumns(entity), filter: compiled, sortedBy: query.sort.map(\.value),
                              limit: limit, offset: try query.offset.map(count)), entity)
    }

    /// The engine's select of a find or count (`Select.find`), over the session's schema (with
    /// its declared relationships), in its dialect.
    private func findQuery(_ entity: EntityDescription, columns: Select.Columns, filter: CompiledFilter? = nil,
                           sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil) throws -> CompiledQuery {
        let database = try requireDatabase()
        let select = try Select.find(entity, in: database.schema, dialect: database.store.dialect, alias: Self.alias,
                                     columns: columns, filter: filter, sortedBy: sortedBy, limit: limit, offset: offset)
        return CompiledQuery(select.rendered(in: database.store.dialect))
    }

    /// Every attribute of `entity`, by name, in the schema's order: the columns `schema` shows
    /// (Core Data's dates and UUIDs shown as dates and UUID text).
    private func attributeColumns(_ entity: EntityDescription) -> Select.Columns {
        .attributes(of: entity, withRowid: false)
    }

    /// A `limit`/`offset` count; a variable must hold a whole number that is not negative.
    func count(_ count: RowCount) throws -> Int {
        switch count {
        case .number(let n): return n
        case .variable(let name):
            let value = try value(of: .variable(name.value), range: name.range)
            // `--param n=2` gives text: a number written as text counts too.
            let number: Int64? = switch value {
            case .integer(let n): n
            case .text(let t): Int64(t.trimmingWhitespace())
            default: nil
            }
            guard let n = number, n >= 0, let result = Int(exactly: n) else {
                throw ShellError("$\(name.value) is \(Self.literalText(value)): a row count must be a whole number, 0 or more",
                                 name.range)
            }
            return result
        }
    }

    func find(_ query: Query, limitOne: Bool) throws {
        let (compiled, _) = try compile(query, limitOne: limitOne)
        try render(compiled, to: output, options: options)
    }

    /// Streams the rows of `compiled` through the renderer for `options`.
    /// With `named`, parameters are bound by name (`sql`), not `compiled.bindings`.
    func render(_ compiled: CompiledQuery, named: [String: Value]? = nil, to stream: OutputStream,
                options: OutputOptions) throws {
        let renderer = makeRenderer(options, stream: stream)
        // Once a write has failed (the reader closed the pipe, the disk is full) the rest of
        // the rows would go nowhere: the query stops, and the command fails with the write's
        // error when its output is flushed.
        func stopIfOutputFailed() throws {
            if stream.writeError != nil { throw OutputFailed() }
        }
        do {
            // The fast renderers read SQLite's statement in place; a server's rows come as values.
            if let fast = renderer as? StatementRowRenderer, try requireDatabase().store.server == nil {
                try requireDatabase().queryStatement(compiled.sql, compiled.bindings, named: named,
                                                     columns: { fast.begin(columns: $0) },
                                                     row: { fast.row(statement: $0, columnCount: $1); try stopIfOutputFailed() })
            } else {
                try requireDatabase().query(compiled.sql, compiled.bindings, named: named, columns: { renderer.begin(columns: $0) },
                                            row: { renderer.row($0); try stopIfOutputFailed() })
            }
        } catch is OutputFailed {
            return
        }
        renderer.end()
    }

    /// Ends a query whose output can no longer be written.
    private struct OutputFailed: Error {}

    func countQuery(_ entityName: Located<String>, _ predicate: PredicateText?) throws -> CompiledQuery {
        let entity = try entity(entityName)
        return try findQuery(entity, columns: .count, filter: try filter(predicate, entity: entity))
    }

    func count(_ entity: Located<String>, _ predicate: PredicateText?) throws {
        let n = try countRows(countQuery(entity, predicate))
        output.write(String(n))
        output.write(10)
    }

    func countRows(_ query: CompiledQuery) throws -> Int64 {
        var n: Int64 = 0
        try requireDatabase().query(query.sql, query.bindings, columns: { _ in }, row: { values in
            if case .integer(let i) = values[0] { n = i }
        })
        return n
    }

    func getQuery(_ entityName: Located<String>, _ ids: [Literal]) throws -> CompiledQuery {
        let entity = try entity(entityName)
        let key = entity.identifyingColumns
        guard !key.isEmpty else {
            let why = entity.kind == .view ? "is a view: it has no primary id to get by"
                                           : "has no primary key to get by (find \(entity.name) where … reads it)"
            throw ShellError("\(entity.name) \(why)", entityName.range)
        }
        guard ids.count == key.count else {
            throw ShellError("\(entity.name)'s id has \(key.count) part\(key.count == 1 ? "" : "s") (\(key.joined(separator: ", "))), "
                             + "\(ids.count) given", entityName.range)
        }
        let dialect = try requireDatabase().store.dialect
        let id = Keyset.equals(key, alias: Self.alias, try ids.map { try value(of: $0, range: entityName.range) }, dialect: dialect)
        return try findQuery(entity, columns: attributeColumns(entity), filter: CompiledFilter(condition: id))
    }

    func get(_ entityName: Located<String>, _ ids: [Literal]) throws {
        let query = try getQuery(entityName, ids)
        let renderer = makeRenderer(options, stream: output)
        var found = false
        var columns: [String] = []
        try requireDatabase().query(query.sql, query.bindings, columns: { columns = $0 }, row: { values in
            if !found { renderer.begin(columns: columns) }
            found = true
            renderer.row(values)
        })
        guard found else {
            let entity = try entity(entityName)
            let shown = query.bindings.map { ValueText.plain($0, null: "NULL") }.joined(separator: ", ")
            throw ShellError("no \(entity.name) with \(entity.identifyingColumns.joined(separator: ", ")) = \(shown)", entityName.range)
        }
        renderer.end()
    }

    /// Text written to standard output outside a row renderer (headlines, SQL): escaped in
    /// the formats meant for a terminal, as the renderers escape values there.
    func displayed(_ text: String) -> String {
        switch options.format {
        case .table, .line, .markdown: return TerminalText.escaped(text)
        case .csv, .tsv, .json, .ndjson: return text
        }
    }

    // MARK: explain

    func explain(_ command: Command) throws {
        predicateWarnings = []
        predicateEquivalents = []
        let query: CompiledQuery
        switch command {
        case .find(let q): query = try compile(q, limitOne: false).0
        case .first(let q): query = try compile(q, limitOne: true).0
        case .count(let entity, let predicate): query = try countQuery(entity, predicate)
        case .get(let entity, let ids): query = try getQuery(entity, ids)
        case .update(let entity, let values, let predicate): query = try updateQuery(entity, values, predicate)
        case .delete(let entity, let predicate): query = try deleteQuery(entity, predicate)
        case .export(let q, _, _): query = try compile(q, limitOne: false).0
        default: throw ShellError("explain works on find, first, count, get, update, delete and export")
        }
        var plan: [String] = []
        var depthOfId: [Int64: Int] = [0: 0]
        let database = try requireDatabase()
        try database.query(database.store.dialect.queryPlanPrefix + query.sql, query.bindings, columns: { _ in }, row: { values in
            // A server's plan: a line per row, indented by the server.
            if values.count == 1, case .text(let line) = values[0] { return plan.append("  " + line) }
            guard case .integer(let id) = values[0], case .integer(let parent) = values[1], case .text(let detail) = values[3] else { return }
            let depth = (depthOfId[parent] ?? 0) + 1
            depthOfId[id] = depth
            plan.append(String(repeating: "  ", count: depth) + detail)
        })
        let bindings = query.bindings.map(Self.literalText).joined(separator: ", ")
        let warnings = predicateWarnings.map { "warning: " + $0 }
        switch options.format {
        case .table, .line, .markdown:
            // A Swift closure's meaning, as the NSPredicate text that says the same.
            for equivalent in predicateEquivalents { output.write("predicate: \(displayed(equivalent))\n") }
            output.write("sql: \(displayed(query.sql))\nbindings: [\(displayed(bindings))]\n")
            for warning in warnings { output.write(displayed(warning) + "\n") }
            output.write("plan:\n")
            for line in plan { output.write(displayed(line) + "\n") }
        case .csv, .tsv, .json, .ndjson:
            // One row, so that the output parses as the format it claims to be; a Swift
            // closure's NSPredicate text leads it, as in the other formats.
            let renderer = makeRenderer(options, stream: output)
            let equivalent: [String] = predicateEquivalents.isEmpty ? [] : ["predicate"]
            renderer.begin(columns: equivalent + ["sql", "bindings", "plan", "warnings"])
            renderer.row((predicateEquivalents.isEmpty ? [] : [.text(predicateEquivalents.joined(separator: "\n"))])
                         + [.text(query.sql), .text("[" + bindings + "]"), .text(plan.joined(separator: "\n")),
                            .text(warnings.joined(separator: "\n"))])
            renderer.end()
        }
    }

    static func literalText(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .text(let t): return JSONText.string(t)
        case .blob(let b): return TerminalText.blobSummary(b.count)
        default: return ValueText.plain(value, null: "NULL")
        }
    }

    // MARK: entities, schema

    func entities() throws {
        let database = try requireDatabase()
        let renderer = makeRenderer(options, stream: output)
        renderer.begin(columns: ["entity", "kind", "rows", "attributes"])
        // An entity that cannot be counted (a table the role may not read, a materialized view
        // never populated) is listed with no count, and why is said under the list.
        var uncounted: [String] = []
        for entity in database.schema.entities {
            var rows = Value.null
            do {
                rows = .integer(try countRows(findQuery(entity, columns: .count)))
            } catch let error as PortalError where error.kind != .interrupted && !database.inUserTransaction {
                uncounted.append("\(entity.name): \(error.description)")
            }
            renderer.row([.text(entity.name), .text(entity.kindLabel), rows, .integer(Int64(entity.attributes.count))])
        }
        renderer.end()
        for reason in uncounted { report("note: rows not counted: " + reason) }
    }

    // MARK: notify

    /// Installs or removes PostgreSQL's change notifications (`ChangeNotifications`), in one
    /// write: all tables or none.
    func notify(_ on: Bool) throws {
        let database = try requireDatabase()
        guard database.store.server is PostgresServer else {
            throw ShellError("notify is for PostgreSQL: other connections see an SQLite file's changes in the file itself")
        }
        let tables = try database.write { context in
            try on ? ChangeNotifications.install(in: context) : ChangeNotifications.remove(in: context)
        }
        try database.refreshSchema()
        report(on ? "ok (\(tables) table\(tables == 1 ? "" : "s") given a trigger that notifies its changes)"
                  : "ok (\(tables) table\(tables == 1 ? "" : "s") no longer notif\(tables == 1 ? "ies" : "y"))")
    }

    // MARK: sql

    /// Runs raw SQL statement by statement (cut by SQLite's own rule, so nothing is dropped),
    /// with the session's variables bound by name (`$n`, `:n`, `@n`).
    func sql(_ text: String) throws {
        let database = try requireDatabase()
        let statements = SQLStatements.split(text)
        guard !statements.isEmpty else { throw ShellError("no SQL statement in: \(text)") }
        for statement in statements { try runSQL(statement, on: database) }
    }

    private func runSQL(_ statement: String, on database: ShellDatabase) throws {
        if Self.runsOutsideTransaction(statement) { return try runOutsideTransaction(statement, on: database) }
        // Attached databases are on the writer only: there, even reads run on it.
        if try !database.hasAttachments && !database.hasTemporaryObjects && database.isReadOnly(statement) && !Self.setsConnectionState(statement, database) {
            try render(CompiledQuery(sql: statement, bindings: []), named: variables, to: output, options: options)
            return
        }
        var readOnly = false
        let changes = try database.write { context in
            readOnly = try database.isReadOnly(statement) && !Self.setsConnectionState(statement, database)
            let before = context.totalChanges
            let renderer = makeRenderer(options, stream: output)
            var hasColumns = false
            try database.query(statement, [], named: variables, columns: { columns in
                hasColumns = !columns.isEmpty
                if hasColumns { renderer.begin(columns: columns) }
            }, row: { renderer.row($0) })
            if hasColumns { renderer.end() }
            return context.totalChanges - before
        }
        if readOnly { return }
        if Self.createsTemporaryObject(statement) { database.hasTemporaryObjects = true }
        try database.refreshSchema()
        report("ok (\(changes) row\(changes == 1 ? "" : "s") changed)")
    }

    /// `VACUUM`, `ATTACH`, `DETACH` and `PRAGMA journal_mode`, which SQLite refuses inside a
    /// transaction, run on the writer outside one; `ATTACH` and `DETACH` say what they did.
    private func runOutsideTransaction(_ statement: String, on database: ShellDatabase) throws {
        let (before, after) = try database.writeOutsideTransaction { context in
            let before = try Self.databaseList(context)
            let renderer = makeRenderer(options, stream: output)
            var hasColumns = false
            try context.forEachRow(statement, [], named: variables, columns: { columns in
                hasColumns = !columns.isEmpty
                if hasColumns { renderer.begin(columns: columns) }
            }, { row in renderer.row((0..<row.columnCount).map { row.value(at: Int32($0)) }) })
            if hasColumns { renderer.end() }
            return (before, try Self.databaseList(context))
        }
        database.hasAttachments = after.contains { $0.name != "main" && $0.name != "temp" }
        try database.refreshSchema()
        var said = false
        for attached in after where !before.contains(where: { $0.name == attached.name }) {
            let file = attached.file.isEmpty ? "a new in-memory database" : "'\(attached.file)'"
            report("attached \(file) as \(attached.name): 'sql' statements reach its tables as \(attached.name).TABLE")
            said = true
        }
        for detached in before where !after.contains(where: { $0.name == detached.name }) {
            report("detached \(detached.name)\(detached.file.isEmpty ? "" : " ('\(detached.file)')")")
            said = true
        }
        if !said { report("ok") }
    }

    private static func databaseList(_ context: ReadContext) throws -> [(name: String, file: String)] {
        var list: [(name: String, file: String)] = []
        try context.forEachRow("PRAGMA database_list", [], columns: { _ in }) { row in
            guard case .text(let name) = row.value(at: 1) else { return }
            if case .text(let file) = row.value(at: 2) { list.append((name, file)) } else { list.append((name, "")) }
        }
        return list
    }

    /// `CREATE TEMP TABLE …`, `CREATE OR REPLACE TEMPORARY VIEW …`: an object only the
    /// connection that made it sees.
    private static func createsTemporaryObject(_ statement: String) -> Bool {
        let words = statement.uppercased().split(whereSeparator: { !$0.isLetter && $0 != "_" }).prefix(5)
        return words.first == "CREATE" && (words.contains("TEMP") || words.contains("TEMPORARY"))
    }

    private static func runsOutsideTransaction(_ statement: String) -> Bool {
        let words = statement.uppercased().split(whereSeparator: { !$0.isLetter && $0 != "_" })
        guard let first = words.first else { return false }
        return ["VACUUM", "ATTACH", "DETACH"].contains(first) || first == "PRAGMA" && words.contains("JOURNAL_MODE")
    }

    /// A PRAGMA that sets something (`PRAGMA max_page_count = 1`) changes the connection that
    /// writes, although SQLite calls it read-only: in a writable session it runs on the write
    /// context, so that the session's later writes obey it.
    private static func setsConnectionState(_ statement: String, _ database: ShellDatabase) -> Bool {
        guard !database.isReadOnly else { return false }
        let text = statement.drop { $0.isWhitespace }
        return text.prefix(6).uppercased() == "PRAGMA" && text.contains("=")
    }
}
