import PortalPredicate

/// The entities of a database, with their attributes, keys, relationships and indexes,
/// under the names users type (the man page, DESCRIPTION), and how each maps to the tables and
/// columns that store it. A `Catalog` reads it; for a plain SQLite file every name is its
/// table's or column's own, while a Core Data store maps `Note.title` to `ZNOTE.ZTITLE`.
///
/// Keys, relationship columns and index columns name *storage* columns; attributes carry both
/// their name and their column.
public struct Schema: Sendable, Hashable {
    /// Every table and view, in the order SQLite lists them.
    public var entities: [EntityDescription]
    /// What the catalog that read the schema keeps with it for its store's writes (a Core Data
    /// store's model), read with the schema, so once per schema version; nil for a plain database.
    package var storeModel: StoreModel?

    /// A schema of these entities.
    public init(entities: [EntityDescription]) { self.entities = entities }

    /// The entity with this name: exact match first, then case-insensitive when unambiguous;
    /// then `schema.table` for an entity in a schema (`public.film` is `film` when `public` is
    /// on the search path).
    public func entity(named name: String) -> EntityDescription? {
        if let found = entities.first(where: { $0.name == name }) ?? uniqueCaseInsensitive(entities, name, \.name) {
            return found
        }
        guard let dot = name.firstIndex(of: ".") else { return nil }
        let (namespace, table) = (String(name[..<dot]), String(name[name.index(after: dot)...]))
        let inSchema = entities.filter { $0.namespace == namespace }
        return inSchema.first { $0.table == table } ?? uniqueCaseInsensitive(inSchema, table, \.table)
            ?? uniqueCaseInsensitive(entities.filter { $0.namespace?.lowercased() == namespace.lowercased() }, table, \.table)
    }
}

/// A value a catalog keeps with the schema it read, opaque to the engine: the catalog's own
/// code reads it back by its type.
package struct StoreModel: Hashable, @unchecked Sendable {
    // Unchecked: only `Sendable` values go in (the initialiser requires it).
    private let value: AnyHashable

    package init(_ value: some Hashable & Sendable) { self.value = AnyHashable(value) }

    /// The value kept, when it is a `T`.
    package func value<T>(as type: T.Type) -> T? { value.base as? T }
}

/// A table or a view.
public struct EntityDescription: Sendable, Hashable {
    /// Whether the entity is a table or a (read-only) view.
    public enum Kind: String, Sendable, Hashable { case table, view }

    /// The name users type: the table's or view's own, or the model's entity name.
    public var name: String
    /// See `Kind`.
    public var kind: Kind
    /// The table or view that stores the entity's rows (its name, unless a catalog maps it).
    public var table: String
    /// The schema that holds `table`, when the database has several (PostgreSQL): SQL then
    /// names the table in it, whatever the connection's `search_path` says.
    public var namespace: String?
    /// Which of the table's rows are this entity's, when the table holds several entities (a
    /// Core Data hierarchy shares its root's table, told apart by `Z_ENT`); nil: every row.
    public var discriminator: Discriminator?
    /// The columns, in declaration order.
    public var attributes: [AttributeDescription]
    /// The declared primary key's columns in key order; empty when the entity has none
    /// (it is then identified by its rowid, or, for a view, not at all).
    public var primaryKey: [String]
    /// False for `WITHOUT ROWID` tables and for views.
    public var hasRowid: Bool
    /// To-one relationships (from this entity's foreign keys) and to-many ones (the inverses).
    public var relationships: [RelationshipDescription]
    /// The entity's indexes, including the ones SQLite makes for UNIQUE and PRIMARY KEY.
    public var indexes: [IndexDescription]
    /// The SQL that defines the entity, as SQLite keeps it: its CREATE statement, then those of
    /// its indexes and triggers (indexes SQLite makes itself have none).
    public var definitions: [SchemaDefinition]
    /// The CHECK constraints of the CREATE statement, each as written (`CHECK (Price >= 0)`).
    public var checks: [String]

    /// An entity described field by field (the schema reader makes these).
    public init(name: String, kind: Kind, attributes: [AttributeDescription], primaryKey: [String],
                hasRowid: Bool, relationships: [RelationshipDescription], indexes: [IndexDescription],
                definitions: [SchemaDefinition] = [], checks: [String] = [], table: String? = nil,
                namespace: String? = nil, discriminator: Discriminator? = nil) {
        self.name = name
        self.kind = kind
        self.table = table ?? name
        self.namespace = namespace
        self.discriminator = discriminator
        self.attributes = attributes
        self.primaryKey = primaryKey
        self.hasRowid = hasRowid
        self.relationships = relationships
        self.indexes = indexes
        self.definitions = definitions
        self.checks = checks
    }

    /// False for a server's table that the connection's search path does not find (named with
    /// its schema, `sales.OrderLines`).
    public var isOnSearchPath: Bool { namespace == nil || name == table }

    /// The entity's triggers.
    public var triggers: [SchemaDefinition] { definitions.filter { $0.type == .trigger } }

    /// True for a virtual table (`CREATE VIRTUAL TABLE … USING fts5(…)`): a module, not SQLite's
    /// storage, answers for its rows.
    public var isVirtual: Bool {
        guard kind == .table, let create = definitions.first(where: { $0.type == .table })?.sql else { return false }
        let words = create.split(whereSeparator: \.isWhitespace).prefix(3).map { $0.uppercased() }
        return words == ["CREATE", "VIRTUAL", "TABLE"]
    }

    /// What the entity is, as the shell lists it: `table`, `virtual table` or `view`.
    public var kindLabel: String { isVirtual ? "virtual table" : kind.rawValue }

    /// The columns that identify one entity: the declared key, else `rowid`.
    public var identifyingColumns: [String] { primaryKey.isEmpty && hasRowid ? ["rowid"] : primaryKey }

    /// The columns that tell every row apart, never NULL, for paging and for finding a row
    /// again: the declared key when no row can hold NULL in it (an INTEGER PRIMARY KEY, the
    /// key of a WITHOUT ROWID table, key columns declared NOT NULL), else the rowid. SQLite
    /// lets another declared key hold NULL (in every row, in files made by other programs), and
    /// NULL equals nothing, so such a key finds no row and cannot order ties. Empty when the
    /// entity has neither (a view).
    public var rowKey: [String] {
        guard hasRowid, !primaryKey.isEmpty else { return identifyingColumns }
        let keyColumns = primaryKey.compactMap { column in attributes.first { $0.column == column } }
        // A key that is no attribute (Core Data's Z_PK, which its catalog maps) is the store's
        // own INTEGER PRIMARY KEY.
        let isRowidAlias = primaryKey.count == 1 && (keyColumns.isEmpty || keyColumns[0].declaredType.uppercased() == "INTEGER")
        return isRowidAlias || keyColumns.allSatisfy({ !$0.isNullable }) ? primaryKey : ["rowid"]
    }

    /// The attribute with this name: exact match first, then case-insensitive when unambiguous.
    public func attribute(named name: String) -> AttributeDescription? {
        attributes.first { $0.name == name } ?? uniqueCaseInsensitive(attributes, name, \.name)
    }

    /// The relationship with this name: exact match first, then case-insensitive when unambiguous.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationships.first { $0.name == name } ?? uniqueCaseInsensitive(relationships, name, \.name)
    }

    /// The relationship a write sets by `name` (a Core Data store's `set folder = 4`): one of
    /// that name when no attribute has it (an attribute of the name is what the write sets).
    public func settableRelationship(named name: String) -> RelationshipDescription? {
        attribute(named: name) == nil ? relationship(named: name) : nil
    }

    /// The attribute stored in this column, if one is.
    public func attribute(column: String) -> AttributeDescription? {
        attributes.first { $0.column == column } ?? uniqueCaseInsensitive(attributes, column, \.column)
    }

    /// The storage column of the attribute `name`; `name` itself when no attribute has it (a key
    /// column such as `rowid`, or a column the catalog does not map).
    public func column(for name: String) -> String { attribute(named: name)?.column ?? name }

    /// True when every attribute is stored under its own name in a table of the entity's name (in
    /// its schema, for `sales.OrderLines`) and
    /// the table holds only this entity: statements may then use `*` and names as they are.
    public var isStoredByName: Bool {
        unqualifiedName == table && discriminator == nil && attributes.allSatisfy { $0.column == $0.name }
    }

    /// The rows of a shared table that belong to one entity: `column IN (values)`.
    public struct Discriminator: Sendable, Hashable {
        /// The column that tells the entities apart (`Z_ENT`).
        public var column: String
        /// The values of this entity and of its sub-entities.
        public var values: [Int64]
        /// Rows whose `column` holds one of `values`.
        public init(column: String, values: [Int64]) {
            self.column = column
            self.values = values
        }

        /// `Z_ENT IN (11, 12)`, as `schema` shows where an entity's rows are.
        public var description: String { "\(column) IN (\(values.map(String.init).joined(separator: ", ")))" }
    }
}

/// An attribute: a column, under the name users type.
public struct AttributeDescription: Sendable, Hashable {
    /// The name users type: the column's own, or the model's attribute name.
    public var name: String
    /// The column that stores it (its name, unless a catalog maps it).
    public var column: String
    /// How values are kept in the column, when its declared type does not say (the value
    /// conversion and the compiler read and compare them by it).
    public var storage: StorageConvention
    /// The declared type as written (`NVARCHAR(200)`), empty when none.
    public var declaredType: String
    /// The type the app's model gives the attribute, where a model says more than the column's
    /// declared type (Core Data's `Boolean` in an `INTEGER` column); nil when none does.
    public var modelType: String?
    /// False when the column is declared NOT NULL.
    public var isNullable: Bool
    /// The default value's SQL text, as `PRAGMA table_info` gives it.
    public var defaultValue: String?
    /// 1-based position in the primary key, nil when not part of it.
    public var primaryKeyPosition: Int?
    /// How a generated column (`GENERATED ALWAYS AS (…)`) keeps its value; nil for a column
    /// that can be written.
    public var generated: Generated?

    /// How a generated column keeps its value.
    public enum Generated: String, Sendable, Hashable { case virtual, stored }

    /// An attribute described field by field.
    public init(name: String, declaredType: String, isNullable: Bool, defaultValue: String?,
                primaryKeyPosition: Int?, generated: Generated? = nil, column: String? = nil,
                storage: StorageConvention = .natural, modelType: String? = nil) {
        self.name = name
        self.column = column ?? name
        self.storage = storage
        self.declaredType = declaredType
        self.modelType = modelType
        self.isNullable = isNullable
        self.defaultValue = defaultValue
        self.primaryKeyPosition = primaryKeyPosition
        self.generated = generated
    }

    /// True when the attribute holds dates: its declared type names a date or a time
    /// (`DATE`, `DATETIME`, `TIMESTAMP`, `timestamp with time zone`), or its storage is Core
    /// Data's seconds since 2001.
    public var holdsDates: Bool {
        let type = declaredType.uppercased()
        return type.contains("DATE") || type.contains("TIME") || storage == .secondsSinceReferenceDate
    }

    /// False for a generated column: its value is computed, never written.
    public var isWritable: Bool { generated == nil }
    /// True for a generated column.
    public var isGenerated: Bool { generated != nil }
}

/// How an attribute's values are kept in its column.
public enum StorageConvention: String, Sendable, Hashable {
    /// `column`'s value as the language sees it: Core Data's dates (seconds since 2001) become
    /// Unix seconds, which date comparisons read as numbers and date text is made from.
    func languageValue(of column: String) -> String {
        switch self {
        case .natural, .uuidBlob: return column
        case .secondsSinceReferenceDate: return "(" + column + " + " + String(Int(DateSemantics.referenceDateOffset)) + ")"
        case .archivedValue: return "portal_archived(" + column + ")"
        }
    }

    /// As the value conversion's defaults and the declared type say (dates as ISO-8601 text or
    /// Unix seconds, told apart per value).
    case natural
    /// Dates as seconds since 2001-01-01 00:00:00 UTC (Core Data's `TIMESTAMP` columns).
    case secondsSinceReferenceDate
    /// UUIDs as 16-byte blobs (Core Data's UUID attributes).
    case uuidBlob
    /// Values archived into bytes (Core Data's Transformable and Binary Data attributes: keyed
    /// archives, property lists, JSON), read decoded (`ArchivedValues`); SQLite stores only.
    case archivedValue
}

/// One statement of the schema as SQLite keeps it in `sqlite_schema`.
public struct SchemaDefinition: Sendable, Hashable {
    /// What the statement creates.
    public enum Kind: String, Sendable, Hashable { case table, view, index, trigger }

    /// See `Kind`.
    public var type: Kind
    /// The name of what it creates.
    public var name: String
    /// The CREATE statement, as written.
    public var sql: String

    /// A definition described field by field.
    public init(type: Kind, name: String, sql: String) {
        self.type = type
        self.name = name
        self.sql = sql
    }
}

/// A relationship derived from a foreign key.
public struct RelationshipDescription: Sendable, Hashable {
    /// To-one (from a foreign key) or to-many (its inverse).
    public enum Kind: String, Sendable, Hashable { case toOne = "to-one", toMany = "to-many" }

    /// The name users type (derived from the foreign key, as the man page says).
    public var name: String
    /// See `Kind`.
    public var kind: Kind
    /// The related entity's name.
    public var destination: String
    /// Columns of this entity that join (the foreign key columns for to-one; the referenced
    /// columns for to-many), pairwise with `destinationColumns`.
    public var sourceColumns: [String]
    /// The destination entity's columns, pairwise with `sourceColumns`.
    public var destinationColumns: [String]
    /// For a many-to-many relationship, the table of pairs between the two: `sourceColumns` and
    /// `destinationColumns` are then the two entities' keys, which the join table's columns match.
    public var joinTable: JoinTable?

    /// A relationship described field by field.
    public init(name: String, kind: Kind, destination: String, sourceColumns: [String],
                destinationColumns: [String], joinTable: JoinTable? = nil) {
        self.name = name
        self.kind = kind
        self.destination = destination
        self.sourceColumns = sourceColumns
        self.destinationColumns = destinationColumns
        self.joinTable = joinTable
    }

    /// The table that pairs the rows of a many-to-many relationship (Core Data's `Z_1TAGS`).
    public struct JoinTable: Sendable, Hashable {
        /// The table.
        public var table: String
        /// Its columns that hold the source's key, pairwise with the relationship's `sourceColumns`.
        public var sourceColumns: [String]
        /// Its columns that hold the destination's key, pairwise with `destinationColumns`.
        public var destinationColumns: [String]
        /// A join table described field by field.
        public init(table: String, sourceColumns: [String], destinationColumns: [String]) {
            self.table = table
            self.sourceColumns = sourceColumns
            self.destinationColumns = destinationColumns
        }
    }
}

/// An index of an entity.
public struct IndexDescription: Sendable, Hashable {
    /// The index's name, as SQLite knows it.
    public var name: String
    /// The indexed columns, in index order.
    public var columns: [String]
    /// True for a UNIQUE index.
    public var isUnique: Bool
    /// True for a partial index (`WHERE …`): it holds, and a unique one constrains, only some rows.
    public var isPartial: Bool

    /// An index described field by field.
    public init(name: String, columns: [String], isUnique: Bool, isPartial: Bool = false) {
        self.name = name
        self.columns = columns
        self.isUnique = isUnique
        self.isPartial = isPartial
    }
}

/// The one element whose name equals `name` ignoring case, if exactly one does.
func uniqueCaseInsensitive<T>(_ items: [T], _ name: String, _ key: KeyPath<T, String>) -> T? {
    let lowered = name.lowercased()
    let matches = items.filter { $0[keyPath: key].lowercased() == lowered }
    return matches.count == 1 ? matches[0] : nil
}
