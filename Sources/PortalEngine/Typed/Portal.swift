
/// The typed repository of one entity type: fetches decode rows into `Entity` values, writes
/// encode them. Each call is its own read or write (a savepoint when called inside a write).
public struct Portal<Entity: PortalEntity>: Sendable {
    /// The store the entities live in.
    public let store: Store

    /// A portal to the entities of type `Entity` in `store`.
    public init(_ store: Store) { self.store = store }

    /// How many entities match `predicate` (all when nil); `%@` placeholders take `arguments` in order.
    public func count(where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        try store.read { ctx in try ctx.count(Entity.entityName, where: predicate, arguments) }
    }

    /// The entities matching `predicate` (all when nil), sorted by `sortedBy` and at most `limit` of them.
    public func findAll(where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                        sortedBy: [SortKey] = [], limit: Int? = nil) throws -> [Entity] {
        let arguments = arguments.map(\.predicateArgument)
        return try store.read { ctx in
            try ctx.fetch(Entity.self, where: predicate, arguments: arguments, sortedBy: sortedBy, limit: limit)
        }
    }

    /// The first entity matching `predicate` in the order of `sortedBy`, or nil when none does.
    public func findFirst(where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = [],
                          sortedBy: [SortKey] = []) throws -> Entity? {
        let arguments = arguments.map(\.predicateArgument)
        return try store.read { ctx in
            try ctx.fetch(Entity.self, where: predicate, arguments: arguments, sortedBy: sortedBy, limit: 1).first
        }
    }

    /// Inserts the entities, all in one write.
    public func create(_ entities: [Entity]) throws {
        try store.write { ctx in
            try EntityEncoding.each(entities, entity: Entity.entityName, dates: DateForm(ctx)) { columns, values in
                let (columns, values) = WriteContext.withoutNilId(columns, values, id: Entity.idAttribute)
                try ctx.insertEncoded(Entity.entityName, columns: columns, values: values, returning: false)
            }
        }
    }

    /// Saves the entities over the stored ones with the same id; returns how many were found.
    /// Throws `.rowNotFound` (and changes nothing) when one of them is not stored.
    @discardableResult
    public func update(_ entities: [Entity]) throws -> Int {
        try store.write { ctx in
            for entity in entities { try ctx.update(entity) }
            return entities.count
        }
    }

    /// Inserts each entity, or updates the stored one with the same id.
    public func upsert(_ entities: [Entity]) throws {
        try store.write { ctx in
            let described = try ctx.entity(named: Entity.entityName)
            try EntityEncoding.each(entities, entity: Entity.entityName) { columns, values in
                try ctx.upsert(described, key: Entity.idAttributes, columns: columns, values: values, returning: false)
            }
        }
    }

    /// Deletes the entities matching the predicate (all when nil); returns how many.
    @discardableResult
    public func deleteAll(where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        let arguments = arguments.map(\.predicateArgument)
        return try store.write { ctx in try ctx.delete(Entity.entityName, where: predicate, arguments) }
    }
}

extension ReadContext {
    /// Rows of `T.entityName` decoded as `T`, straight from the statement (no intermediate rows).
    public func fetch<T: PortalEntity>(_ type: T.Type, where predicate: String? = nil,
                                      _ arguments: [any ArgumentConvertible] = [],
                                      sortedBy: [SortKey] = [], limit: Int? = nil, offset: Int? = nil) throws -> [T] {
        try fetch(type, where: predicate, arguments: arguments.map(\.predicateArgument), sortedBy: sortedBy,
                  limit: limit, offset: offset)
    }

    func fetch<T: PortalEntity>(_ type: T.Type, where predicate: String?, arguments: [Argument],
                                sortedBy: [SortKey], limit: Int?, offset: Int? = nil) throws -> [T] {
        // A type identified by the rowid reads it too (`t0.rowid AS rowid`).
        let fragment = try select(T.entityName, .typed(T.self), predicate, arguments,
                                  sortedBy, limit, offset)
        return try fetch(T.self, fragment)
    }

    /// The entities a compiled SELECT returns.
    func fetch<T: PortalEntity>(_ type: T.Type, _ fragment: SQLFragment) throws -> [T] {
        try withContext(T.entityName) {
            let statement = try connection.prepare(fragment.sql)
            defer { statement.reset() }
            try statement.bind(fragment.bindings)
            let source = ColumnSource(statement: statement)
            defer { source.finish() }
            return try decodeRows(T.self, named: T.entityName, of: statement, from: source)
        }
    }

    /// Streams the entities of a fetch to `body` one at a time, decoded straight from the
    /// statement: memory stays bounded however many rows match (a typed cursor).
    public func forEach<T: PortalEntity>(_ type: T.Type, where predicate: String? = nil,
                                         _ arguments: [any ArgumentConvertible] = [], sortedBy: [SortKey] = [],
                                         limit: Int? = nil, _ body: (T) throws -> Void) throws {
        let fragment = try select(T.entityName, .typed(T.self), predicate,
                                  arguments.map(\.predicateArgument), sortedBy, limit, nil)
        try forEach(T.self, fragment, body)
    }

    /// Streams the entities a compiled SELECT returns to `body`.
    func forEach<T: PortalEntity>(_ type: T.Type, _ fragment: SQLFragment, _ body: (T) throws -> Void) throws {
        try withContext(T.entityName) {
            let statement = try connection.prepare(fragment.sql)
            defer { statement.reset() }
            try statement.bind(fragment.bindings)
            let source = ColumnSource(statement: statement)
            defer { source.finish() }
            try forEachDecoded(T.self, named: T.entityName, of: statement, from: source, body)
        }
    }

    /// The rows of raw SQL decoded as `T` (properties by column name), in one pass: no
    /// intermediate rows. In a read, a statement that would write is refused.
    public func fetch<T: Decodable>(_ type: T.Type, sql: String, arguments: [Value] = []) throws -> [T] {
        try checkValid()
        let statement = try connection.prepare(sql)
        defer { statement.reset() }
        if !allowsWrites && !statement.isReadOnly {
            throw PortalError(.writeInRead, "a read cannot change the database; use a write")
        }
        try statement.bind(arguments)
        let source = ColumnSource(statement: statement)
        defer { source.finish() }
        return try decodeRows(T.self, named: "\(T.self)", of: statement, from: source)
    }

    /// Decodes every remaining row of `statement`: by the `RowDecodable` type's own loop (inlined
    /// into its module, so specialized for it) when `T` conforms. Else by Codable, the entities
    /// decoded by `ColumnSource.decodeAll`.
    func decodeRows<T: Decodable>(_ type: T.Type, named name: String, of statement: any DatabaseStatement,
                                  from source: ColumnSource) throws -> [T] {
        if let decodable = T.self as? any RowDecodable.Type {
            return try decodable.allRows(as: T.self, RowReader(decodable, source: source, entity: name))
        }
        return try source.decodeAll(T.self, entity: name)
    }

    /// Steps `statement` to its end, decoding each row as `T` (by `RowDecodable` when `T`
    /// conforms) and handing it to `body`. One decoder serves every row: it only points at the
    /// source, which reads the current row.
    private func forEachDecoded<T: Decodable>(_ type: T.Type, named name: String, of statement: any DatabaseStatement,
                                              from source: ColumnSource, _ body: (T) throws -> Void) throws {
        if let decodable = T.self as? any RowDecodable.Type {
            return try decodable.forEachRow(as: T.self, RowReader(decodable, source: source, entity: name), body)
        }
        let decoder: any Decoder = RowDecoder(source: source)
        while try statement.step() {
            try body(source.decodeRow(T.self, with: decoder, entity: name))
        }
    }
}

extension PortalError {
    /// A Codable failure, naming the attribute it happened on.
    static func conversion(_ error: any Error, entity: String) -> PortalError {
        var attribute: String?
        var detail = "\(error)"
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
             DecodingError.dataCorrupted(let context):
            attribute = context.codingPath.last?.stringValue
            detail = context.debugDescription
        case DecodingError.keyNotFound(let key, let context):
            attribute = key.stringValue
            detail = context.debugDescription
        case EncodingError.invalidValue(_, let context):
            attribute = context.codingPath.last?.stringValue
            detail = context.debugDescription
        default: break
        }
        let place = attribute.map { "\(entity).\($0)" } ?? entity
        return PortalError(.conversion, "cannot convert \(place): \(detail)", entity: entity, attribute: attribute)
    }
}
