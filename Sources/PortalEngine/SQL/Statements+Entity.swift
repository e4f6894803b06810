import PortalPredicate

// Statements over an entity rather than a table: the catalog's mapping applied in one place.
// Callers name attributes as users type them; these find the table, the columns and, for a
// table several entities share, the condition that keeps to the entity's own rows.

extension EntityDescription {
    /// `condition` restricted to this entity's rows of a shared table (unchanged otherwise).
    public func restricting(_ condition: SQLFragment?, alias: String, dialect: some SQLSpelling) -> SQLFragment? {
        Self.restricting(condition, to: discriminator, alias: alias, dialect: dialect)
    }

    static func restricting(_ condition: SQLFragment?, to discriminator: Discriminator?, alias: String,
                            dialect: some SQLSpelling) -> SQLFragment? {
        guard let discriminator else { return condition }
        let own = SQLFragment(discriminator.condition(alias: alias, dialect))
        guard let condition else { return own }
        return own + " AND (" + condition + ")"
    }

    /// Every attribute, as `alias."COLUMN" AS "name"` where the two differ (no alias: unqualified,
    /// as `RETURNING` names them), a value kept by a storage convention in the engine's form
    /// (Core Data's dates as date text, or as Unix seconds with `datesAsSeconds`, UUID blobs as
    /// UUID text, archived values decoded).
    public func attributeColumns(alias: String?, dialect: some SQLDialect, datesAsSeconds: Bool = false) -> [SQLFragment] {
        attributes.map { attribute in
            let source = alias.map { PortalEngine.column($0, attribute.column, dialect) } ?? dialect.quoted(attribute.column)
            let value = switch attribute.storage {
            case .natural: source
            case .secondsSinceReferenceDate where datesAsSeconds: attribute.storage.languageValue(of: source)
            case .secondsSinceReferenceDate:
                dialect.dateText(unixSeconds: attribute.storage.languageValue(of: source))
            case .uuidBlob: dialect.uuidText(source)
            case .archivedValue: attribute.storage.languageValue(of: source)
            }
            let renamed = attribute.storage != .natural || attribute.column != attribute.name
            return SQLFragment(renamed ? value + " AS " + dialect.quoted(attribute.name) : value)
        }
    }
}

extension Select {
    /// A select of `entity`'s rows (see `init(_:alias:columns:…)` for the parts): from its table,
    /// its attributes under their names, only its own rows of a shared table.
    public init(_ entity: EntityDescription, alias: String = "t0", columns: Columns = .all(withRowid: false),
                condition: SQLFragment? = nil, order: SQLFragment? = nil, limit: Int? = nil, offset: Int? = nil) {
        var columns = columns
        if case .all(let withRowid) = columns, !entity.isStoredByName {
            columns = .attributes(of: entity, withRowid: withRowid && entity.hasRowid)
        }
        self.init(entity.table, alias: alias, columns: columns, condition: condition, order: order, limit: limit, offset: offset)
        namespace = entity.namespace
        ownRows = entity.discriminator
    }
}

extension Update {
    /// An update of `entity`'s rows: `assignments` name attributes, written to their columns.
    public init(_ entity: EntityDescription, alias: String = "t0", set assignments: [(column: String, value: SQLFragment)],
                where condition: SQLFragment? = nil) {
        self.init(entity.table, alias: alias, set: assignments.map { (entity.column(for: $0.column), $0.value) },
                  where: condition)
        namespace = entity.namespace
        ownRows = entity.discriminator
    }
}

extension Delete {
    /// A delete of `entity`'s rows (only its own, in a shared table).
    public init(_ entity: EntityDescription, alias: String = "t0", where condition: SQLFragment? = nil) {
        self.init(entity.table, alias: alias, where: condition)
        namespace = entity.namespace
        ownRows = entity.discriminator
    }
}

extension Insert {
    /// An insert into `entity`'s table: `columns` name attributes, written to their columns.
    public init(_ entity: EntityDescription, columns: [String], values: [SQLFragment]? = nil,
                returning: Returning = .nothing) {
        self.init(entity.table, columns: columns.map(entity.column(for:)), values: values,
                  returning: returning.naming(entity))
        namespace = entity.namespace
    }
}

extension Upsert {
    /// An upsert into `entity`'s table on `key` (storage columns); `columns` name attributes.
    public init(_ entity: EntityDescription, key: [String], columns: [String], values: [SQLFragment]? = nil,
                returning: Returning = .all) {
        self.init(entity.table, key: key.map(entity.column(for:)), columns: columns.map(entity.column(for:)), values: values,
                  returning: returning.naming(entity))
        insert.namespace = entity.namespace
    }
}

extension Returning {
    /// `RETURNING *` of a mapped entity returns its attributes under their names.
    func naming(_ entity: EntityDescription) -> Returning {
        if case .all = self, !entity.isStoredByName { return .attributes(of: entity) }
        return self
    }
}
