import PortalEngine

/// Reads the XML `contents` file of an Xcode `.xcdatamodel`.
enum XMLModelReader {
    /// The model described by `text`; `source` names the file in errors.
    static func model(xml text: String, source: String) throws -> CoreDataModel {
        let tags = try XMLElements.tags(in: text, source: source)
        guard tags.contains(where: { $0.name == "model" && !$0.isEnd }) else {
            throw PortalError(.coreDataModel, "\(source) is not an Xcode model file (no <model> element)")
        }
        var entities: [CoreDataEntity] = []
        var ignored: [String] = []
        var stack: [String] = []
        for tag in tags {
            if tag.isEnd {
                if stack.last == tag.name { stack.removeLast() }
                continue
            }
            read(tag, under: stack, into: &entities, ignored: &ignored, source: source)
            if !tag.isEmpty { stack.append(tag.name) }
        }
        guard !entities.isEmpty else { throw PortalError(.coreDataModel, "\(source) holds no entities") }
        return CoreDataModel(entities: entities, ignored: ignored)
    }

    private static func read(_ tag: XMLElements.Tag, under stack: [String], into entities: inout [CoreDataEntity],
                             ignored: inout [String], source: String) {
        let attributes = tag.attributes
        let yes = { (key: String) in attributes[key] == "YES" }
        switch (stack.last, tag.name) {
        case ("model", "entity"):
            entities.append(CoreDataEntity(name: attributes["name"] ?? "", parent: attributes["parentEntity"],
                                           isAbstract: yes("isAbstract")))
        case ("entity", "attribute") where !entities.isEmpty:
            let typeName = attributes["attributeType"] ?? ""
            let type = CoreDataAttribute.AttributeType(xcodeName: typeName)
            if case .unknown = type {
                ignored.append("\(entities.last?.name ?? "").\(attributes["name"] ?? "") (type \(typeName))")
            }
            entities[entities.count - 1].attributes.append(CoreDataAttribute(
                name: attributes["name"] ?? "", type: type, isTransient: yes("transient"), isDerived: yes("derived")))
        case ("entity", "relationship") where !entities.isEmpty:
            entities[entities.count - 1].relationships.append(CoreDataRelationship(
                name: attributes["name"] ?? "", destination: attributes["destinationEntity"] ?? "",
                inverse: attributes["inverseName"], isToMany: yes("toMany"), isOrdered: yes("ordered"),
                isTransient: yes("transient"), deleteRule: .init(xcodeName: attributes["deletionRule"] ?? "Nullify")))
        case ("entity", let other) where !knownEntityChildren.contains(other):
            ignored.append("\(entities.last?.name ?? "").\(attributes["name"] ?? other) (<\(other)>)")
        default:
            break
        }
    }

    /// What an entity element holds besides stored properties (nothing a store's columns show).
    private static let knownEntityChildren: Set<String> = [
        "fetchedProperty", "userInfo", "compoundIndexes", "uniquenessConstraints", "fetchIndex", "elements",
    ]
}
