import Foundation
import PortalEngine

// What a write to a Core Data store needs to know (CoreDataWritePolicy makes the writes): the
// model, the entity's plan, a new Z_PK. Refused with the reason, the transaction leaving nothing
// written: bulk inserts and upserts, abstract entities, and tables whose triggers call Core
// Data's own SQL functions (derived attributes).

/// A trigger that calls Core Data's own SQL functions, and the statements that fire it.
struct CoreDataTrigger: Sendable, Hashable {
    enum Event: Sendable, Hashable {
        case insert, delete
        /// An update of any of these columns (upper-cased); of any column when nil.
        case update(Set<String>?)
    }

    var name: String
    var event: Event

    /// The trigger of `sql` named `name`, nil when its event cannot be read (then it is taken
    /// to fire on every write).
    init(name: String, sql: String) {
        self.name = name
        let upper = sql.uppercased()
        let head = upper.range(of: " ON ").map { String(upper[..<$0.lowerBound]) } ?? upper
        // What follows the timing word names the event (the trigger's own name comes before it).
        let timing = [" AFTER ", " BEFORE ", " INSTEAD OF "].compactMap { head.range(of: $0, options: .backwards) }
            .max { $0.lowerBound < $1.lowerBound }
        let event = timing.map { String(head[$0.upperBound...]) } ?? head
        if event.hasPrefix("INSERT") {
            self.event = .insert
        } else if event.hasPrefix("DELETE") {
            self.event = .delete
        } else if let of = event.range(of: "UPDATE OF ") {
            let columns = event[of.upperBound...].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
            }
            self.event = .update(Set(columns))
        } else {
            self.event = .update(nil)
        }
    }

    /// True when a statement of `event` fires it.
    func fires(on event: Event) -> Bool {
        switch (self.event, event) {
        case (.insert, .insert), (.delete, .delete): return true
        case (.update(let mine?), .update(let written?)): return !mine.isDisjoint(with: written)
        case (.update, .update): return true
        default: return false
        }
    }
}

/// What a write to a Core Data store reads once: the model matched to the tables, and the
/// tables' triggers that call Core Data's own SQL functions.
struct CoreDataStoreModel: Sendable, Hashable {
    var catalog: CoreDataCatalog
    /// Such triggers, by upper-cased table name.
    var coreDataTriggers: [String: [CoreDataTrigger]]

    /// The model matched to the tables, with the triggers of `raw` (the tables as SQLite lists them).
    init(catalog: CoreDataCatalog, raw: Schema) {
        self.catalog = catalog
        var triggers: [String: [CoreDataTrigger]] = [:]
        for entity in raw.entities {
            let own = entity.triggers.filter { $0.sql.contains("NSCoreData") }.map { CoreDataTrigger(name: $0.name, sql: $0.sql) }
            if !own.isEmpty { triggers[entity.name.uppercased()] = own }
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

    /// The first trigger of `table` that calls Core Data's functions and that `event` fires.
    func trigger(on table: String, firedBy event: CoreDataTrigger.Event) -> CoreDataTrigger? {
        coreDataTriggers[table.uppercased()]?.first { $0.fires(on: event) }
    }

    /// Refuses a write to `table` (for `entity`) that would fire a trigger calling Core Data's
    /// functions, which only Core Data has.
    func refuseTriggers(on table: String, writing entity: String, _ event: CoreDataTrigger.Event) throws {
        if let trigger = trigger(on: table, firedBy: event) {
            throw coreDataRefusal(entity, "the trigger \(trigger.name) keeps a derived attribute with Core Data's own SQL functions, "
                                  + "which only Core Data has")
        }
    }
}

/// The columns an update writes, upper-cased, with `Z_OPT` (every update of a Core Data row raises it).
func updatedColumns(_ columns: [String?]) -> CoreDataTrigger.Event {
    .update(Set((columns.compactMap { $0 } + ["Z_OPT"]).map { $0.uppercased() }))
}

/// The error of a write refused on a Core Data store (the transaction writes nothing).
func coreDataRefusal(_ entity: String, _ reason: String) -> PortalError {
    PortalError(.notWritable, "cannot write \(entity): \(reason); nothing was written", entity: entity)
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
    /// The plan for writing `entity` (`creating` a row, or updating `columns` of rows) when the
    /// store is opened by a Core Data model, nil for a plain database; throws when the entity
    /// cannot be written safely.
    func coreDataPlan(for entity: String, creating: Bool, columns: [String] = []) throws -> CoreDataWritePlan? {
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
        try model.refuseTriggers(on: mapped.table, writing: name, creating ? .insert : updatedColumns(columns))
        return CoreDataWritePlan(number: mapped.number, rootNumber: rootNumber, table: mapped.table)
    }

    /// The store's model and triggers when it is opened by a Core Data model, nil otherwise:
    /// read with the schema, so once per schema version, not once per write.
    func coreDataStoreModel() throws -> CoreDataStoreModel? {
        guard let model = try schema.coreDataModel else {
            throw PortalError(.database, "the store's Core Data model was not read with its schema")
        }
        return model
    }

    /// A new `Z_PK` for the plan's root table: past both `Z_MAX` and the largest key in use;
    /// `Z_MAX` is set to it (in the caller's transaction).
    func allocateKey(_ plan: CoreDataWritePlan) throws -> Int64 {
        let entity = equals("Z_ENT", Int64(plan.rootNumber))
        let max = try integer(Select("Z_PRIMARYKEY", columns: .expressions([SQLFragment("Z_MAX")]), condition: entity))
        let top = try integer(Select(plan.table, columns: .expressions([SQLFragment("max(Z_PK)")])))
        let key = Swift.max(max, top) + 1
        let update = Update("Z_PRIMARYKEY", set: [("Z_MAX", .bound(.integer(key)))], where: entity).rendered(in: store.dialect)
        try connection.run(update.sql, update.bindings)
        return key
    }

    /// The assignment that marks a Core Data row changed: `Z_OPT = Z_OPT + 1`.
    static var coreDataVersionBump: (column: String, value: SQLFragment) {
        (column: "Z_OPT", value: SQLFragment("coalesce(Z_OPT, 0) + 1"))
    }

    /// The integer a select of one value returns, 0 for none.
    func integer(_ select: Select) throws -> Int64 {
        let rendered = select.rendered(in: store.dialect)
        if case .integer(let n)? = try connection.scalar(rendered.sql, rendered.bindings) { return n }
        return 0
    }

    /// `"column" = ?`, bound to `key`.
    func equals(_ column: String, _ key: Int64) -> SQLFragment { store.dialect.quoted(column) + " = " + .bound(.integer(key)) }

    /// `Z_PK = ?`: the row whose key is `key`.
    func keyIs(_ key: Int64) -> SQLFragment { equals("Z_PK", key) }

    /// Runs a statement value of a write to `entity`.
    func run(_ update: Update, _ entity: String) throws {
        try keepRows(before: update, of: entity, keyColumn: "Z_PK")
        let rendered = update.rendered(in: store.dialect)
        try runWrite(entity, rendered.sql, rendered.bindings, returning: false)
    }

    /// Runs a statement value of a delete from `entity`'s rows.
    func run(_ delete: Delete, _ entity: String) throws {
        try keepRows(before: delete, of: entity)
        let rendered = delete.rendered(in: store.dialect)
        try runWrite(entity, rendered.sql, rendered.bindings, returning: false)
    }

    /// Runs a statement value of an insert of a row of `entity`.
    func run(_ insert: Insert, _ entity: String) throws {
        let rendered = insert.rendered(in: store.dialect)
        try runWrite(entity, rendered.sql, rendered.bindings, returning: false)
    }

    func refusal(_ entity: String, _ reason: String) -> PortalError { coreDataRefusal(entity, reason) }
}

