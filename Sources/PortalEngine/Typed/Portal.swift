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
            let encoder = EntityEncoder()
            defer { encoder.finish() }
            for entity in entities {
                try encode(entity, with: encoder)
                try ctx.insert(Entity.entityName, columns: encoder.columns, values: encoder.values)
            }
        }
    }

    /// Saves the entities over the stored ones with the same id; returns how many were found.
    /// Throws `.rowNotFound` (and changes nothing) when one of them is not stored.
    @discardableResult
    public func update(_ entities: [Entity]) throws -> Int {
        try store.write { ctx in
            var updated = 0
            let encoder = EntityEncoder()
            defer { encoder.finish() }
            for entity in entities {
                try encode(entity, with: encoder)
                let (columns, values) = (encoder.columns, encoder.values)
                let key = Entity.idAttributes
                var keyValues: [Value] = []
                for part in key {
                    guard let index = columns.firstIndex(of: part) else {
                        throw PortalError(.conversion, "\(Entity.self) encodes no '\(part)'",
                                          entity: Entity.entityName, attribute: part)
                    }
                    keyValues.append(values[index])
                }
                var set: [String] = []
                var bindings: [Value] = []
                for (column, value) in zip(columns, values) where !key.contains(column) {
                    set.append("\(SQLText.quoted(column)) = ?")
                    bindings.append(value)
                }
                guard !set.isEmpty else { continue }
                let sql = "UPDATE \(SQLText.quoted(Entity.entityName)) SET \(set.joined(separator: ", "))"
                    + " WHERE " + key.map { "\(SQLText.quoted($0)) = ?" }.joined(separator: " AND ")
                try ctx.runWrite(Entity.entityName, sql, bindings + keyValues, returning: false)
                guard ctx.changes > 0 else {
                    let shown = keyValues.map { "\($0)" }.joined(separator: ", ")
                    throw PortalError(.rowNotFound, "no \(Entity.entityName) with \(key.joined(separator: ", ")) \(shown)",
                                      entity: Entity.entityName, attribute: key.first)
                }
                updated += 1
            }
            return updated
        }
    }

    /// Inserts each entity, or updates the stored one with the same id.
    public func upsert(_ entities: [Entity]) throws {
        try store.write { ctx in
            let encoder = EntityEncoder()
            defer { encoder.finish() }
            for entity in entities {
                try encode(entity, with: encoder)
                let (columns, values) = (encoder.columns, encoder.values)
                try ctx.upsert(Entity.entityName, key: Entity.idAttributes, columns: columns, values: values, returning: false)
            }
        }
    }

    /// Deletes the entities matching the predicate (all when nil); returns how many.
    @discardableResult
    public func deleteAll(where predicate: String? = nil, _ arguments: [any ArgumentConvertible] = []) throws -> Int {
        let arguments = arguments.map(\.predicateArgument)
        return try store.write { ctx in try ctx.delete(Entity.entityName, where: predicate, arguments) }
    }

    private func encode(_ entity: Entity, with encoder: EntityEncoder) throws {
        do {
            try encoder.encode(entity)
        } catch let error as EncodingError {
            throw PortalError.conversion(error, entity: Entity.entityName)
        }
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
        let fragment = try select(T.entityName, .rows(includeRowid: T.idAttributes == ["rowid"]), predicate, arguments,
                                  sortedBy, limit, offset)
        return try withContext(T.entityName) {
            let statement = try connection.prepare(fragment.sql)
            defer { statement.reset() }
            try statement.bind(fragment.bindings)
            let source = ColumnSource(statement: statement)
            defer { source.finish() }
            return try decodeRows(T.self, of: statement, from: source)
        }
    }

    /// Decodes every remaining row of `statement`. The entities go to a buffer grown by hand and
    /// are moved into the array once at the end: `Array.append` in this unspecialized generic
    /// code would look up `Array<T>`'s metadata for every row.
    private func decodeRows<T: PortalEntity>(_ type: T.Type, of statement: Statement, from source: ColumnSource) throws -> [T] {
        // One decoder for every row: it only points at the source, which reads the current row.
        let decoder: any Decoder = RowDecoder(source: source)
        var capacity = 64
        var buffer = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        var count = 0
        defer {
            buffer.deinitialize(count: count)
            buffer.deallocate()
        }
        while try statement.step() {
            source.next = 0
            let entity: T
            do {
                entity = try T(from: decoder)
            } catch let error as DecodingError {
                throw PortalError.conversion(error, entity: T.entityName)
            }
            if count == capacity {
                let grown = UnsafeMutablePointer<T>.allocate(capacity: capacity * 2)
                grown.moveInitialize(from: buffer, count: count)
                buffer.deallocate()
                buffer = grown
                capacity *= 2
            }
            (buffer + count).initialize(to: entity)
            count += 1
        }
        let result = [T](unsafeUninitializedCapacity: count) { destination, initialized in
            guard let base = destination.baseAddress else { return }
            base.moveInitialize(from: buffer, count: count)
            initialized = count
        }
        // Moved out: nothing left for the deferred deinitialize.
        count = 0
        return result
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
