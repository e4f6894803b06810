import PortalEngine

/// Opens a Core Data store by its model's names: reads `Z_PRIMARYKEY`, the model (the one
/// given, else the store's cache) and the tables, and matches them. Reads only.
public struct CoreDataCatalog: Sendable, Hashable {
    /// Where the model came from, for the banner.
    public enum ModelSource: Sendable, Hashable {
        /// The store's `Z_MODELCACHE`.
        case cache
        /// A model file (`--model`).
        case file(String)
        /// No model: names from `Z_PRIMARYKEY` and the columns.
        case none
    }

    /// The store's own account of its entities.
    public var info: CoreDataStoreInfo
    /// The model used.
    public var model: CoreDataModel
    /// Where it came from.
    public var source: ModelSource
    /// The model matched to the tables.
    public var mapping: CoreDataMapping

    /// Reads the Core Data store on `connection`, whose tables are `raw` (as the database lists
    /// them); `modelPath` (a `--model` argument) takes the place of the store's cached model.
    public init(_ connection: any DatabaseConnection, raw: Schema, modelPath: String? = nil) throws {
        info = try CoreDataStoreInfo(connection, readingModelCache: modelPath == nil)
        let tables = Dictionary(raw.entities.map { ($0.name, $0.attributes.map(\.name)) }, uniquingKeysWith: { first, _ in first })
        if let modelPath {
            model = try ModelFile.read(modelPath)
            source = .file(modelPath)
        } else if let cached = info.cachedModel {
            model = cached
            source = .cache
        } else {
            model = Self.modelFromNames(info, tables: tables)
            source = .none
        }
        mapping = try CoreDataMapping.build(model: model, numbers: info.entityNumbers, tables: tables)
        try checkColumnTypes(raw: raw)
    }

    /// A model file that contradicts the store's column types is refused (it is another
    /// version of the model, or another app's); the store's own cache, which Core Data itself
    /// trusts, is only noted.
    private mutating func checkColumnTypes(raw: Schema) throws {
        let contradictions = mapping.typeContradictions(raw: raw)
        guard let first = contradictions.first else { return }
        if case .file = source {
            let more = contradictions.count > 1 ? " (and \(contradictions.count - 1) more)" : ""
            throw PortalError(.coreDataModel, "the model does not match the store: " + first.message + more,
                              entity: first.entity, attribute: first.attribute)
        }
        mapping.notes += contradictions.map(\.message)
    }

    /// A model without a model file: each entity of `Z_PRIMARYKEY` whose table exists, its root
    /// table's columns as attributes named by the column (`ZTITLE1` → `title1`), no
    /// relationships and no types.
    static func modelFromNames(_ info: CoreDataStoreInfo, tables: [String: [String]]) -> CoreDataModel {
        let byNumber = Dictionary(info.entityNumbers.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [CoreDataEntity] = []
        for entry in info.entityNumbers {
            let parent = entry.parent == 0 ? nil : byNumber[entry.parent]?.name
            var root = entry
            var seen: Set<Int> = []
            while root.parent != 0, seen.insert(root.number).inserted, let next = byNumber[root.parent] { root = next }
            guard let columns = tables["Z" + root.name.uppercased()] else { continue }
            let attributes = parent != nil ? [] : columns
                .filter { $0.hasPrefix("Z") && $0.dropFirst().first.map { $0 != "_" && !$0.isNumber } == true }
                .map { CoreDataAttribute(name: String($0.dropFirst()).lowercased(), type: .unknown(0)) }
            entities.append(CoreDataEntity(name: entry.name, parent: parent, attributes: attributes))
        }
        return CoreDataModel(entities: entities, ignored: [])
    }
}
