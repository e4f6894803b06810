import Foundation
import PortalEngine
import Synchronization

/// The browser's data source over a portal-engine `Store`.
///
/// Pages are keyset queries: the entity's filter (compiled by the engine's predicate compiler)
/// AND a condition on (sort value, primary id) relative to the window's edge row, ordered by
/// the same key, with a LIMIT — never OFFSET. They run on the store's read contexts; every write
/// is one transaction on its write context.
public final class EngineDataSource: BrowserDataSource, @unchecked Sendable {
    public let store: Store
    /// What this data source's writes left: how many there were, and what its deletes removed.
    /// A `Mutex`, not a lock object: a data source is made for every browser, and this costs
    /// nothing to make or free.
    private let writes = Mutex(Writes())
    /// The filters and page statements compiled on this store, by any of its data sources.
    private let compiledPages: CompiledPages
    /// A bounded count stops here and reports `≥ N`; the exact count then runs in the background.
    public var countLimit = 100_000

    public init(store: Store) {
        self.store = store
        compiledPages = CompiledPages.of(store)
    }

    // MARK: Entities

    /// The entities, made once per schema version for every data source on the store.
    public func entities() throws -> [BrowserEntity] {
        try read { context in
            let version = try context.schemaVersion
            if let known = compiledPages.entities(version: version) { return known }
            let entities = try context.schema.entities.map { browserEntity($0) }
            compiledPages.keep(entities, version: version)
            return entities
        }
    }

    func browserEntity(_ entity: EntityDescription) -> BrowserEntity {
        let columns = entity.attributes.map { attribute in
            let reference = entity.relationships.first {
                $0.kind == .toOne && $0.sourceColumns == [attribute.name] && $0.destinationColumns.count == 1
            }.map { BrowserReference(entity: $0.destination, column: $0.destinationColumns[0]) }
            return BrowserColumn(name: attribute.name, declaredType: attribute.declaredType,
                                 isKey: attribute.primaryKeyPosition != nil, reference: reference,
                                 isGenerated: !attribute.isWritable)
        }
        let key = Self.keyColumns(entity)
        let relationships = entity.relationships.map {
            BrowserRelationship(name: $0.name, isToMany: $0.kind == .toMany, destination: $0.destination,
                                sourceColumns: $0.sourceColumns, destinationColumns: $0.destinationColumns,
                                inverse: inverse(of: $0, from: entity))
        }
        return BrowserEntity(name: entity.name, columns: columns,
                             isReadOnly: entity.kind == .view || store.isReadOnly || entity.identifyingColumns.isEmpty,
                             idColumns: key, relationships: relationships)
    }

    /// For a relationship that cannot be followed by its columns (they are no attributes: a
    /// catalog maps the names, or a join table pairs the rows), the destination's relationship
    /// that joins the same columns the other way round.
    func inverse(of relationship: RelationshipDescription, from entity: EntityDescription) -> (name: String, isToMany: Bool)? {
        guard let destination = try? store.schema.entity(named: relationship.destination),
              relationship.joinTable != nil || !entity.isStoredByName || !destination.isStoredByName else { return nil }
        let back = destination.relationships.first { candidate in
            guard candidate.sourceColumns == relationship.destinationColumns,
                  candidate.destinationColumns == relationship.sourceColumns else { return false }
            guard let join = relationship.joinTable else { return candidate.joinTable == nil }
            return candidate.joinTable?.table == join.table && candidate.joinTable?.sourceColumns == join.destinationColumns
        }
        return back.map { ($0.name, $0.kind == .toMany) }
    }

    /// What identifies a row for paging: a key never NULL (`rowKey`: the declared one, else
    /// rowid); a view has neither, so all its columns together serve (rows that are equal in
    /// every column page as one).
    static func keyColumns(_ entity: EntityDescription) -> [String] {
        let id = entity.rowKey
        return id.isEmpty ? entity.attributes.map(\.column) : id
    }

    /// The attribute positions of the key columns, or nil when the key is the rowid, which is
    /// no attribute (the page query then selects it before the attributes).
    static func idPositions(_ entity: EntityDescription, key: [String]? = nil) -> [Int]? {
        var positions: [Int] = []
        for column in key ?? keyColumns(entity) {
            // The key names the column as the schema spells it: the exact match is the usual one.
            guard let i = entity.attributes.firstIndex(where: { $0.column == column })
                ?? entity.attributes.firstIndex(where: { $0.column.lowercased() == column.lowercased() }) else { return nil }
            positions.append(i)
        }
        return positions
    }

    // MARK: Pages

    public func page(_ request: PageRequest) throws -> [BrowserRow] {
        try read { context in
            let (entity, filter, version) = try compiled(context, request.entity, request.filter)
            // The key, worked out once for the statement, the keyset and the rows.
            let key = Self.keyColumns(entity)
            let positions = Self.idPositions(entity, key: key)
            let keyParts = try sortParts(entity, request.sort, key: key)
            var keyset: SQLFragment?
            var shape = PageShape.first
            switch request.anchor {
            case .first: break
            case .last: shape = .last
            case .after(let row): (shape, keyset) = (.after, Keyset.condition(keyParts, values(row, entity, request.sort), .after))
            case .atOrAfter(let row):
                (shape, keyset) = (.atOrAfter, Keyset.condition(keyParts, values(row, entity, request.sort), .atOrAfter))
            case .before(let row):
                (shape, keyset) = (.before, Keyset.condition(keyParts, values(row, entity, request.sort), .before))
            }
            let statement = pageStatement(entity, filter, keyParts, keyset, shape, request, version: version,
                                          key: key, positions: positions)
            // This page's filter and keyset values, then the limit's as the dialect renders it
            // (bound on SQLite, written in on PostgreSQL), in the order `Select` renders them.
            var bindings = (filter?.bindings ?? []) + (keyset?.bindings ?? [])
            bindings += statement.bindings.dropFirst(bindings.count)
            // The same SQL text for every page of one (entity, filter, sort, direction, size): the
            // connection prepares it once and then only re-binds the edge row's key. The rows
            // share one storage; the rowid, when it identifies them, comes first (it is no column).
            let found = try context.rows(cached: statement.sql, bindings)
            let rows = found.map { row in
                positions.map { BrowserRow(row: row, idPositions: $0) } ?? BrowserRow(row: row, leading: key.count)
            }
            return shape == .last || shape == .before ? rows.reversed() : rows
        }
    }

    /// A page query, rendered once per key while the schema stays the same (the bindings are
    /// those of the first page rendered: `page` binds each page's own).
    private func pageStatement(_ entity: EntityDescription, _ filter: SQLFragment?, _ keyParts: [Keyset.Part],
                               _ keyset: SQLFragment?, _ shape: PageShape, _ request: PageRequest, version: Value,
                               key: [String], positions: [Int]?) -> SQLFragment {
        let cacheKey = CompiledPages.PageKey(version: version, entity: entity.name, filter: request.filter, sort: request.sort,
                                             shape: shape, keyset: keyset?.sql ?? "", limit: request.limit)
        if let known = compiledPages.statement(cacheKey) { return known }
        let backward = shape == .last || shape == .before
        let statement = rowSelect(entity, where: [filter, keyset].compactMap { $0 },
                                       order: SQLFragment(keyParts.map { $0.ordering(reversed: backward, in: store.dialect) }.joined(separator: ", ")),
                                       limit: request.limit, key: key, positions: positions).rendered(in: store.dialect)
        compiledPages.keep(statement, for: cacheKey)
        return statement
    }

    /// A select of rows as pages return them: the key columns first when the rowid identifies
    /// the rows (it is no column), then every column.
    private func rowSelect(_ entity: EntityDescription, where conditions: [SQLFragment], order: SQLFragment? = nil,
                           limit: Int? = nil, key: [String], positions: [Int]?) -> Select {
        let columns: Select.Columns = positions == nil ? keyThenAllColumns(entity, key: key) : .all(withRowid: false)
        let condition = conditions.isEmpty ? nil : SQLFragment.joined(conditions.map(\.parenthesized), separator: " AND ")
        return Select(entity, columns: columns, condition: condition, order: order, limit: limit)
    }

    /// The key columns, then every column (the rowid is no column, so it must be named).
    private func keyThenAllColumns(_ entity: EntityDescription, key: [String]) -> Select.Columns {
        .expressions(key.map { SQLFragment("t0." + store.dialect.quoted($0)) }
                     + (entity.isStoredByName ? [SQLFragment("t0.*")] : entity.attributeColumns(alias: "t0", dialect: store.dialect)))
    }

    /// The sort column (if any) then the key columns, each with its direction.
    private func sortParts(_ entity: EntityDescription, _ sort: BrowserSort?, key: [String]) throws -> [Keyset.Part] {
        var parts: [Keyset.Part] = []
        if let sort {
            guard let attribute = entity.attribute(named: sort.column) else {
                throw BrowserError("no attribute '\(sort.column)' on \(entity.name)")
            }
            parts.append(Keyset.Part(expression: "t0." + store.dialect.quoted(attribute.column), ascending: sort.direction == .ascending,
                                     nullable: true))
        }
        let nullable = entity.rowKey.isEmpty
        for column in key {
            parts.append(Keyset.Part(expression: "t0." + store.dialect.quoted(column), ascending: true, nullable: nullable))
        }
        return parts
    }

    /// A row's key values in the order of `sortParts`.
    private func values(_ row: BrowserRow, _ entity: EntityDescription, _ sort: BrowserSort?) -> [Value] {
        var values: [Value] = []
        if let sort, let i = entity.attributes.firstIndex(where: { $0.name.lowercased() == sort.column.lowercased() }) {
            values.append(row.value(at: i) ?? .null)
        }
        return values + row.id
    }

    /// The entity and its compiled filter (nil when the filter is empty), compiled once per
    /// (entity, filter) while `PRAGMA schema_version` stays the same: validating as you type,
    /// applying with Enter, counting and every page then share one compilation.
    func compiled(_ context: ReadContext, _ name: String, _ filter: String) throws
        -> (entity: EntityDescription, filter: SQLFragment?, version: Value) {
        let version = try context.schemaVersion
        let key = CompiledPages.FilterKey(entity: name, filter: filter)
        if let known = compiledPages.filter(key, version: version) { return (known.0, known.1, version) }
        let entity = try context.entity(named: name)
        var result: (EntityDescription, SQLFragment?) = (entity, nil)
        if !filter.trimmingSpaces.isEmpty {
            let schema = try context.schema
            let compiled = try PredicateCompiler.compile(filter, entity: entity, schema: schema, alias: "t0",
                                                         dialect: store.dialect)
            try Self.refuseSortAndLimit(compiled, in: filter)
            result.1 = compiled.condition
        }
        compiledPages.keep(result, for: key, version: version)
        return (result.0, result.1, version)
    }

    /// The grid pages through every match in its own order, so a filter's Realm `SORT(…)` or
    /// `LIMIT(…)` would be ignored: it is refused, pointing at the clause, rather than silently dropped.
    static func refuseSortAndLimit(_ compiled: CompiledFilter, in filter: String) throws {
        guard !compiled.sort.isEmpty || compiled.limit != nil else { return }
        let characters = Array(filter)
        // The clauses end the text, so the last occurrence of their keyword is theirs.
        func lastOccurrence(of keyword: String) -> Int? {
            let word = Array(keyword)
            guard characters.count >= word.count else { return nil }
            return (0...(characters.count - word.count)).last { i in
                word.indices.allSatisfy { characters[i + $0].uppercased() == String(word[$0]) }
            }
        }
        let starts = [compiled.sort.isEmpty ? nil : lastOccurrence(of: "SORT"),
                      compiled.limit == nil ? nil : lastOccurrence(of: "LIMIT")].compactMap { $0 }
        let start = starts.min() ?? 0
        throw PortalPredicateError(.unsupported, "SORT and LIMIT have no place in the browser's filter: "
                             + "press s or S on a column to sort, and the grid pages through every match",
                             range: start..<filter.count)
    }

    // MARK: Counting and checking

    public func count(entity name: String, filter: String, budget: Duration?) throws -> RowCount {
        try read { context in
            let (entity, condition, _) = try compiled(context, name, filter)
            // With a budget, counting stops at `countLimit` rows (the status line then says ≥ N).
            let count = Select(entity, columns: .count, condition: condition, limit: budget == nil ? nil : countLimit)
                .rendered(in: store.dialect)
            let result = try context.query(count.sql, count.bindings)
            guard case .integer(let n)? = result.rows.first?.values.first else { return .exact(0) }
            if budget != nil, n >= countLimit { return .atLeast(Int(n)) }
            return .exact(Int(n))
        }
    }

    public func validate(entity name: String, filter: String) -> BrowserError? {
        do {
            _ = try read { try compiled($0, name, filter) }
            return nil
        } catch let error as PortalPredicate.PortalPredicateError {
            return Self.filterError(PortalError(wrapping: error), in: filter)
        } catch let error as PortalError {
            return Self.filterError(error, in: filter)
        } catch {
            return BrowserError(String(describing: error))
        }
    }

    /// A filter that did not compile: the predicate's own words, where in the filter's text
    /// they point, and the engine's error kept.
    static func filterError(_ error: PortalError, in filter: String) -> BrowserError {
        BrowserError(error.predicateError?.description ?? error.description,
                     range: error.predicateError.flatMap { $0.range(in: filter) }, cause: error)
    }

    // MARK: Writes

    public func create(entity name: String, values: [(String, Value)]) throws -> BrowserRow {
        try write { context in
            let entity = try context.entity(named: name)
            let result = try context.insert(entity.name, values.map { .value($0.0, $0.1) }, returning: .all)
            // The new row's key as returned; a key that is no attribute (the rowid, a Core Data
            // row's Z_PK) is the id the insert reports.
            let key = Self.keyColumns(entity)
            let returned = result.rows.first.map { row in key.compactMap { row[$0] } } ?? []
            let id: [Value]
            if returned.count == key.count, !key.isEmpty {
                id = returned
            } else if key.count == 1, let rowid = result.insertedRowid {
                id = [.integer(rowid)]
            } else {
                throw BrowserError("the new \(entity.name) was not returned")
            }
            return try row(context, entity, id)
        }
    }

    public func update(entity name: String, id: [Value], column: String, value: Value) throws -> BrowserRow {
        try write { context in
            let entity = try context.entity(named: name)
            let key = Self.keyColumns(entity)
            let result = try context.update(entity.name, [.value(column, value)],
                                            where: .condition(Keyset.equals(key, alias: "t0", id, dialect: store.dialect)))
            guard result.matched == 1 else { throw BrowserError("this \(entity.name) no longer exists") }
            var newID = id
            for (i, part) in key.enumerated() where part.lowercased() == column.lowercased() { newID[i] = value }
            return try row(context, entity, newID)
        }
    }

    public func delete(entity name: String, id: [Value]) throws {
        try write { context in
            let entity = try context.entity(named: name)
            let filter = RowFilter.condition(Keyset.equals(Self.keyColumns(entity), alias: "t0", id, dialect: store.dialect))
            // What the delete removed (on a Core Data store, with what its delete rules did), kept
            // for an undo.
            let deleted = try context.deleteKeepingRows(entity.name, where: filter)
            guard deleted.matched == 1 else { throw BrowserError("this \(entity.name) no longer exists") }
            keepDeleted(entity.name, id, deleted)
        }
    }

    public func restore(entity name: String, id: [Value], values: [(String, Value)]) throws -> BrowserRow {
        try write { context in
            let entity = try context.entity(named: name)
            guard let deleted = takeDeleted(entity.name, id) else {
                throw BrowserError("cannot put back this \(entity.name): this browser did not delete it")
            }
            do {
                try context.restore(deleted)
            } catch {
                keepDeleted(entity.name, id, deleted)   // the undo is put back on the log: it may be tried again
                throw error
            }
            return try row(context, entity, id)
        }
    }

    private struct Writes {
        /// How many writes this data source made (part of the change token).
        var count: UInt64 = 0
        /// What this browser's deletes removed, by entity and id.
        var deleted: [DeletedKey: DeletedRows] = [:]
    }

    private struct DeletedKey: Hashable {
        var entity: String
        var id: [Value]
    }

    private func keepDeleted(_ entity: String, _ id: [Value], _ deleted: DeletedRows) {
        writes.withLock { $0.deleted[DeletedKey(entity: entity, id: id)] = deleted }
    }

    private func takeDeleted(_ entity: String, _ id: [Value]) -> DeletedRows? {
        writes.withLock { $0.deleted.removeValue(forKey: DeletedKey(entity: entity, id: id)) }
    }

    /// One row by its id, as pages return it.
    private func row(_ context: ReadContext, _ entity: EntityDescription, _ id: [Value]) throws -> BrowserRow {
        let key = Self.keyColumns(entity)
        let select = Select(entity, columns: keyThenAllColumns(entity, key: key),
                            condition: Keyset.equals(key, alias: "t0", id, dialect: store.dialect)).rendered(in: store.dialect)
        guard let found = try context.query(select.sql, select.bindings).rows.first else {
            throw BrowserError("the \(entity.name) just written cannot be read back")
        }
        return BrowserRow(row: found, leading: key.count)
    }

    /// Reads run inside the session's open transaction when there is one (`begin` in the shell
    /// before `browse`: the browser shows its uncommitted rows), else in one committed state.
    func read<T>(_ body: (ReadContext) throws -> T) throws -> T {
        if let transaction = store.openTransaction { return try transaction.read(body) }
        return try store.read(body)
    }

    /// One write (a savepoint of the open transaction, if any); the change token moves on even
    /// when the file does not show it yet.
    private func write<T>(_ body: (WriteContext) throws -> T) throws -> T {
        let result = try store.openTransaction.map { try $0.write(body) } ?? store.write(body)
        writes.withLock { $0.count &+= 1 }
        return result
    }

    // MARK: Changes, cancelling

    /// Changes by this session bump a counter; changes by anyone (other processes included)
    /// touch the database's files, whose modification time and size are part of the token. In
    /// WAL mode every commit appends to the WAL file (the database file changes only when
    /// checkpoints copy committed pages into it), so while a WAL file exists it alone is looked at:
    /// one `stat` per look.
    public func changeToken() -> UInt64 {
        var token = writes.withLock { $0.count }
        guard !store.isInMemory else { return token }
        if let server = store.server {
            // A server's commits show in its change marker, not in a file: the count of its
            // notifications where every table notifies, else one small read.
            return with(token, server.notifiedChangeMarker() ?? snapshotChangeMarker())
        }
        var info = stat()
        guard stat(store.path + "-wal", &info) == 0 || stat(store.path, &info) == 0 else { return token }
        token = token &* 31 &+ UInt64(bitPattern: Int64(info.st_ino))
        token = token &* 31 &+ UInt64(bitPattern: Int64(info.st_mtim.tv_sec))
        token = token &* 31 &+ UInt64(bitPattern: Int64(info.st_mtim.tv_nsec))
        token = token &* 31 &+ UInt64(bitPattern: Int64(info.st_size))
        return token
    }

    /// The server's change marker as a read's snapshot sees it (nil if it cannot be read).
    private func snapshotChangeMarker() -> Value? { try? store.read { try $0.serverChangeMarker } }

    /// The token of this session's writes with a server's change marker.
    private func with(_ token: UInt64, _ marker: Value?) -> UInt64 {
        guard let marker else { return token }
        return token &* 31 &+ UInt64(bitPattern: Int64(marker.hashValue))
    }

    public func cancel() { store.interrupt() }

    /// One read transaction around `body`: the reads it makes on this thread are nested in it.
    /// A server's token is its change marker as the transaction's snapshot sees it, asked after
    /// `body` (it comes with the first statement's reply). A file's changes show in the file
    /// itself, and a server's notifications arrive whenever they do: those tokens are taken
    /// before the transaction reads anything (a change after them shows in the next token).
    public func consistently<T>(_ body: () throws -> T) throws -> (T, token: UInt64) {
        try read { _ in
            guard let server = store.server else {
                let token = changeToken()
                return (try body(), token)
            }
            let writes = self.writes.withLock { $0.count }
            if let notified = server.notifiedChangeMarker() { return (try body(), with(writes, notified)) }
            let result = try body()
            return (result, with(writes, snapshotChangeMarker()))
        }
    }
}
