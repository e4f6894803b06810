// Writes to a Core Data store keep its bookkeeping: a new row takes the root entity's Z_MAX + 1
// as Z_PK (and Z_MAX is bumped in the same transaction), the concrete entity's Z_ENT and
// Z_OPT = 1; an update increments Z_OPT; relationships are written by their storage
// (CoreDataLinks) and deletes follow the model's delete rules (CoreDataDeletes). What cannot be
// kept faithfully is refused with the reason, and the transaction leaves nothing written: bulk
// inserts and upserts, abstract entities, and tables whose triggers call Core Data's own SQL
// functions (derived attributes).

/// What a write to a Core Data store reads once: the model matched to the tables, and the
/// tables whose triggers call Core Data's own SQL functions.
struct CoreDataStoreModel: Sendable, Hashable {
    var catalog: CoreDataCatalog
    /// The first such trigger of each table, by upper-cased table name.
    var coreDataTriggers: [String: String]

    /// The model matched to the tables, with the triggers of `raw` (the tables as SQLite lists them).
    init(catalog: CoreDataCatalog, raw: Schema) {
        self.catalog = catalog
        var triggers: [String: String] = [:]
        for entity in raw.entities {
            if let trigger = entity.triggers.first(where: { $0.sql.contains("NSCoreData") }) {
                triggers[entity.name.uppercased()] = trigger.name
            }
        }
        coreDataTriggers = triggers
    }

    var mapping: CoreDataMapping { catalog.mapping }

    /// The entity whose rows carry `Z_ENT` `number`.
    func entity(number: Int) -> CoreDataMapping.Entity? { mapping.entities.first { $0.number == number } }

    /// The relationship `relationship` names as its inverse, on its destination.
    func inverse(of relationship: CoreDataMapping.Relationship) -> CoreDataMapping.Relationship? {
        guard let inverse = relationship.inverse else { return nil }
        return mapping.entity(named: relationship.destination)?.relationships.first { $0.name == inverse }
    }

    /// Refuses a write to `table` (for `entity`) when its triggers call Core Data's functions.
    func refuseTriggers(on table: String, writing entity: String) throws {
        if let trigger = coreDataTriggers[table.uppercased()] {
            throw coreDataRefusal(entity, "the trigger \(trigger) keeps a derived attribute with Core Data's own SQL functions, "
                                  + "which only Core Data has")
        }
    }
}

/// The error of a write refused on a Core Data store (the transaction writes nothing).
func coreDataRefusal(_ entity: String, _ reason: String) -> PortalError {
    PortalError(.readOnly, "cannot write \(entity): \(reason); nothing was written", entity: entity)
}

/// How a write to one entity of a Core Data store is made.
struct CoreDataWritePlan {
    /// The entity's `Z_ENT`.
    var number: Int
    /// The root entity's `Z_ENT`: its `Z_PRIMARYKEY` row keeps `Z_MAX`.
    var rootNumber: Int
    /// The table.
    var table: String
}

extension WriteContext {
    /// The plan for writing `entity` (`creating` a row, or changing rows) when the store is
    /// opened by a Core Data model, nil for a plain database; throws when the entity cannot be
    /// written safely.
    func coreDataPlan(for entity: String, creating: Bool) throws -> CoreDataWritePlan? {
        guard let model = try coreDataStoreModel() else { return nil }
        let name = try self.entity(named: entity).name
        guard let mapped = model.mapping.entity(named: name), let root = model.catalog.model.root(of: name),
              let rootNumber = model.catalog.info.number(of: root.name) else {
            throw refusal(name, "it is not an entity of the store's model")
        }
        if creating, model.catalog.model.entity(named: name)?.isAbstract == true {
            let concrete = model.catalog.model.hierarchy(from: name).filter { !$0.isAbstract }.map(\.name)
            throw refusal(name, "it is abstract: Core Data makes only its sub-entities' rows (\(concrete.joined(separator: ", ")))")
        }
        try model.refuseTriggers(on: mapped.table, writing: name)
        return CoreDataWritePlan(number: mapped.number, rootNumber: rootNumber, table: mapped.table)
    }

    /// The store's model and triggers when it is opened by a Core Data model, nil otherwise:
    /// read with the schema, so once per schema version, not once per write.
    func coreDataStoreModel() throws -> CoreDataStoreModel? {
        guard store.coreDataCatalog != nil else { return nil }
        guard let model = try schema.coreDataModel else {
            throw PortalError(.sqlite, "the store's Core Data model was not read with its schema")
        }
        return model
    }

    /// Refuses a kind of write this version does not make on Core Data stores.
    func refuseOnCoreDataStore(_ entity: String, _ write: String) throws {
        guard store.coreDataCatalog != nil else { return }
        throw refusal(entity, "\(write) on a Core Data store is not supported (only create, update and delete keep "
                      + "Z_PK, Z_MAX, Z_OPT and the relationships)")
    }

    /// Inserts a row of `entity` with its Core Data bookkeeping; returns it as stored.
    func createCoreData(_ entity: EntityDescription, _ plan: CoreDataWritePlan, _ pairs: [(key: String, value: Value)])
        throws -> Row {
        let bookkeeping = ["Z_PK", "Z_ENT", "Z_OPT"]
        if let reserved = pairs.first(where: { bookkeeping.contains($0.key.uppercased()) }) {
            throw refusal(entity.name, "\(reserved.key) is Core Data's own bookkeeping")
        }
        let key = try allocateKey(plan)
        let sql = Insert(entity, columns: bookkeeping + pairs.map(\.key), returning: .all).rendered(in: store.dialect).sql
        let row = try runWrite(entity.name, sql, [.integer(key), .integer(Int64(plan.number)), .integer(1)] + pairs.map(\.value),
                               returning: true)
        guard let row else { throw PortalError(.sqlite, "the insert returned no row", entity: entity.name) }
        return row
    }

    /// For a statement built by the caller (the shell's `create`): on a Core Data store, the
    /// bookkeeping columns of a new row of `entity` and their values — a new `Z_PK` (the root's
    /// `Z_MAX`, now bumped in this transaction), `Z_ENT`, `Z_OPT` = 1; nil on a plain database.
    /// Throws when the entity cannot be written safely.
    public func coreDataNewRow(_ entity: String) throws -> [(column: String, value: Value)]? {
        guard let plan = try coreDataPlan(for: entity, creating: true) else { return nil }
        let key = try allocateKey(plan)
        return [("Z_PK", .integer(key)), ("Z_ENT", .integer(Int64(plan.number))), ("Z_OPT", .integer(1))]
    }

    /// For an update built by the caller (the shell's `update`): on a Core Data store, the
    /// assignment that marks the rows changed (`Z_OPT = Z_OPT + 1`); nil on a plain database.
    /// Throws when the entity cannot be written safely.
    public func coreDataChange(_ entity: String) throws -> (column: String, value: SQLFragment)? {
        try coreDataPlan(for: entity, creating: false).map { _ in Self.coreDataVersionBump }
    }

    /// A new `Z_PK` for the plan's root table: past both `Z_MAX` and the largest key in use;
    /// `Z_MAX` is set to it (in the caller's transaction).
    private func allocateKey(_ plan: CoreDataWritePlan) throws -> Int64 {
        let max = try integer("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(plan.rootNumber))])
        let top = try integer("SELECT max(Z_PK) FROM " + quoted(plan.table), [])
        let key = Swift.max(max, top) + 1
        try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(key), .integer(Int64(plan.rootNumber))])
        return key
    }

    /// The assignment that marks a Core Data row changed: `Z_OPT = Z_OPT + 1`.
    static var coreDataVersionBump: (column: String, value: SQLFragment) {
        (column: "Z_OPT", value: SQLFragment("coalesce(" + quoted("Z_OPT") + ", 0) + 1"))
    }

    func integer(_ sql: String, _ bindings: [Value]) throws -> Int64 {
        if case .integer(let n)? = try connection.scalar(sql, bindings) { return n }
        return 0
    }

    func refusal(_ entity: String, _ reason: String) -> PortalError { coreDataRefusal(entity, reason) }
}

