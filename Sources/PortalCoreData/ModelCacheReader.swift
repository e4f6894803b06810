import Foundation
import PortalEngine

/// Reads a compiled Core Data model out of a keyed archive: the store's `Z_MODELCACHE` (after
/// inflating) or a `.mom` file. The archive's objects are walked by hand (see `KeyedArchive`).
enum ModelArchiveReader {
    /// The model in the keyed archive `data`; `source` names it in errors.
    static func model(archive data: Data, source: String) throws -> CoreDataModel {
        let archive = try KeyedArchive(data: data, source: source)
        guard archive.className(of: archive.root) == "NSManagedObjectModel" else {
            throw PortalError(.coreDataModel, "\(source) holds no NSManagedObjectModel")
        }
        var ignored: [String] = []
        let entityIndexes = collection(archive, archive.fields(of: archive.root)["NSEntities"])
            .compactMap { archive.index($0) }
            .filter { archive.className(of: $0) == "NSEntityDescription" }
        guard !entityIndexes.isEmpty else { throw PortalError(.coreDataModel, "\(source) holds no entities") }
        var entities = entityIndexes.map { entity(archive, at: $0, ignored: &ignored) }
        // Some framework versions archive every inherited property again on each sub-entity:
        // a property is the entity's own when its parent does not list it.
        let listed = Dictionary(entities.map { ($0.name, Set($0.attributes.map(\.name) + $0.relationships.map(\.name))) },
                                uniquingKeysWith: { first, _ in first })
        for i in entities.indices {
            guard let parent = entities[i].parent, let inherited = listed[parent] else { continue }
            entities[i].attributes.removeAll { inherited.contains($0.name) }
            entities[i].relationships.removeAll { inherited.contains($0.name) }
        }
        entities.sort { $0.name < $1.name }
        return CoreDataModel(entities: entities, ignored: ignored)
    }

    /// The elements of an archived collection: an NSKnownKeysDictionary (`values`), an
    /// NSDictionary (`NS.keys`/`NS.objects`'s values) or an NSArray/NSSet.
    private static func collection(_ archive: KeyedArchive, _ value: ArchiveValue?) -> [ArchiveValue] {
        guard case .dictionary(let fields)? = archive.resolve(value) else { return [] }
        if let values = fields["values"] { return archive.arrayElements(values) }
        if case .array(let items)? = fields["NS.objects"] { return items }
        return []
    }

    private static func entity(_ archive: KeyedArchive, at index: Int, ignored: inout [String]) -> CoreDataEntity {
        let fields = archive.fields(of: index)
        let name = archive.string(fields["NSEntityName"]) ?? "entity\(index)"
        let parent = archive.index(fields["NSSuperentity"]).flatMap { archive.string(archive.fields(of: $0)["NSEntityName"]) }
        var result = CoreDataEntity(name: name, parent: parent, isAbstract: archive.resolve(fields["NSIsAbstract"])?.bool ?? false)
        for value in collection(archive, fields["NSProperties"]) {
            guard let property = archive.index(value) else { continue }
            let propertyFields = archive.fields(of: property)
            // Inherited properties are proxies, or point at the entity that declares them.
            guard archive.className(of: property) != "_NSPropertyDescriptionProxy",
                  archive.index(propertyFields["NSEntity"]).map({ $0 == index }) ?? true else { continue }
            let propertyName = archive.string(propertyFields["NSPropertyName"]) ?? "property\(property)"
            let transient = archive.resolve(propertyFields["NSIsTransient"])?.bool ?? false
            switch archive.className(of: property) {
            case "NSAttributeDescription", "NSDerivedAttributeDescription":
                let code = archive.resolve(propertyFields["NSAttributeType"])?.integer ?? -1
                if case .unknown = CoreDataAttribute.AttributeType(code: code), !transient {
                    ignored.append("the type of \(name).\(propertyName) (attribute type \(code): shown as stored)")
                }
                result.attributes.append(CoreDataAttribute(
                    name: propertyName, type: .init(code: code), isTransient: transient,
                    isDerived: archive.className(of: property) == "NSDerivedAttributeDescription"))
            case "NSRelationshipDescription":
                result.relationships.append(relationship(archive, propertyFields, name: propertyName, transient: transient))
            case let other:
                ignored.append("\(name).\(propertyName) (\(other ?? "an unknown kind of property"))")
            }
        }
        result.attributes.sort { $0.name < $1.name }
        result.relationships.sort { $0.name < $1.name }
        return result
    }

    private static func relationship(_ archive: KeyedArchive, _ fields: [String: ArchiveValue], name: String,
                                     transient: Bool) -> CoreDataRelationship {
        let destination = archive.string(fields["_NSDestinationEntityName"])
            ?? archive.index(fields["NSDestinationEntity"]).flatMap { archive.string(archive.fields(of: $0)["NSEntityName"]) }
            ?? ""
        let inverse = archive.string(fields["_NSInverseRelationshipName"])
            ?? archive.index(fields["NSInverseRelationship"]).flatMap { archive.string(archive.fields(of: $0)["NSPropertyName"]) }
        let maxCount = archive.resolve(fields["NSMaxCount"])?.integer ?? 0
        return CoreDataRelationship(name: name, destination: destination, inverse: inverse, isToMany: maxCount != 1,
                                    isOrdered: archive.resolve(fields["NSIsOrdered"])?.bool ?? false,
                                    isTransient: transient,
                                    deleteRule: .init(code: archive.resolve(fields["NSDeleteRule"])?.integer ?? 1))
    }
}
