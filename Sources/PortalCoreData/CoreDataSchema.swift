import PortalEngine

/// A Core Data store's catalog: entities, attributes and relationships under the model's names,
/// each mapped to the table, rows (`Z_ENT`) and columns that store it.
public struct CoreDataStoreCatalog: WritePolicyCatalog {
    /// A model file to use instead of the store's cached model (`--model`).
    public var modelPath: String?

    /// The catalog of a store's own model, or of the model at `modelPath`.
    public init(modelPath: String? = nil) { self.modelPath = modelPath }

    /// The model matched to the store's tables (see `CoreDataCatalog`), as a schema.
    /// The model is read here only, and kept with the schema for the store's writes.
    public func schema(of connection: any DatabaseConnection, tables raw: Schema) throws -> Schema {
        let catalog = try CoreDataCatalog(connection, raw: raw, modelPath: modelPath)
        var schema = catalog.schema(raw: raw)
        schema.storeModel = StoreModel(CoreDataStoreModel(catalog: catalog, raw: raw))
        return schema
    }

    /// A Core Data store's writes keep its bookkeeping.
    package var writePolicy: any WritePolicy { CoreDataWritePolicy() }
}

extension Schema {
    /// The Core Data model matched to the store's tables (its source, mapping and what it left
    /// out), on a schema read by `CoreDataStoreCatalog`; nil otherwise.
    public var coreDataCatalog: CoreDataCatalog? { coreDataModel?.catalog }

    /// What a Core Data store's writes need of its model, read with the schema.
    var coreDataModel: CoreDataStoreModel? { storeModel?.value(as: CoreDataStoreModel.self) }
}

extension CoreDataCatalog {
    /// The schema of the mapped model; `raw` (the tables as SQLite lists them) gives declared
    /// types, indexes and definitions.
    public func schema(raw: Schema) -> Schema {
        Schema(entities: mapping.entities.map { entity in
            let table = raw.entity(named: entity.table)
            let attributes = entity.attributes.map { attribute in
                let column = table?.attributes.first { $0.name.uppercased() == attribute.column.uppercased() }
                return AttributeDescription(
                    name: attribute.name, declaredType: column?.declaredType ?? "", isNullable: column?.isNullable ?? true,
                    defaultValue: column?.defaultValue, primaryKeyPosition: nil, column: column?.name ?? attribute.column,
                    storage: Self.storage(of: attribute.type, declaredType: column?.declaredType),
                    modelType: Self.modelType(attribute.type))
            }
            return EntityDescription(
                name: entity.name, kind: .table, attributes: attributes, primaryKey: ["Z_PK"], hasRowid: true,
                relationships: entity.relationships.map(Self.relationship), indexes: table?.indexes ?? [],
                definitions: table?.definitions ?? [], table: entity.table,
                discriminator: entity.coversTable ? nil : .init(column: "Z_ENT", values: entity.numbers.map { Int64($0) }))
        })
    }

    /// How a column keeps its values: by the model's type, else (a store read without a model)
    /// by the column's declared type — Core Data declares every date column `TIMESTAMP` and keeps
    /// seconds since 2001 in it, whatever the store's age.
    static func storage(of type: CoreDataAttribute.AttributeType, declaredType: String?) -> StorageConvention {
        switch type {
        case .date: .secondsSinceReferenceDate
        case .uuid: .uuidBlob
        case .transformable, .binary: .archivedValue
        case .unknown where declaredType?.uppercased() == "TIMESTAMP": .secondsSinceReferenceDate
        default: .natural
        }
    }

    /// The type's name in Xcode (`Boolean`), nil when the model gave none (names only).
    static func modelType(_ type: CoreDataAttribute.AttributeType) -> String? {
        if case .unknown = type { return nil }
        return type.displayName
    }

    static func relationship(_ relationship: CoreDataMapping.Relationship) -> RelationshipDescription {
        let kind: RelationshipDescription.Kind = relationship.isToMany ? .toMany : .toOne
        switch relationship.storage {
        case .foreignKey(let column, _):
            return RelationshipDescription(name: relationship.name, kind: kind, destination: relationship.destination,
                                           sourceColumns: [column], destinationColumns: ["Z_PK"])
        case .inverseForeignKey(let column, _):
            return RelationshipDescription(name: relationship.name, kind: kind, destination: relationship.destination,
                                           sourceColumns: ["Z_PK"], destinationColumns: [column])
        case .joinTable(let table, let source, let destination, _):
            return RelationshipDescription(
                name: relationship.name, kind: kind, destination: relationship.destination, sourceColumns: ["Z_PK"],
                destinationColumns: ["Z_PK"],
                joinTable: .init(table: table, sourceColumns: [source], destinationColumns: [destination]))
        }
    }
}
