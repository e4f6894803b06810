import Foundation
import PortalEngine

/// Whether a model's attribute types agree with the columns Core Data made for them: each type
/// has the column type Core Data declares for it (`Date` → `TIMESTAMP`, `String` → `VARCHAR`).
/// A model that contradicts its store (the wrong version of the app's model, say) would show
/// seconds as text or write text where the app reads dates.
extension CoreDataMapping {
    /// One attribute whose column was declared for another type.
    public struct TypeContradiction: Sendable, Hashable {
        public var entity: String
        public var attribute: String
        public var type: CoreDataAttribute.AttributeType
        public var table: String
        public var column: String
        public var declaredType: String

        /// In words, naming both sides: `Note.created is a String in the model, but ZNOTE.ZCREATED is TIMESTAMP`.
        public var message: String {
            "\(entity).\(attribute) is \(type.displayName) in the model, but its column \(table).\(column) is "
                + "declared \(declaredType) (Core Data declares \(Self.article(type)) \(type.displayName) column "
                + (CoreDataMapping.expectedColumnTypes(type).first ?? "") + ")"
        }

        private static func article(_ type: CoreDataAttribute.AttributeType) -> String {
            type.displayName.first.map { "AEIOU".contains($0) } == true ? "an" : "a"
        }
    }

    /// The attributes, each once (by the entity that declares it), whose column's declared type
    /// (from `raw`, the tables as SQLite lists them) is not the one Core Data gives their type.
    public func typeContradictions(raw: Schema) -> [TypeContradiction] {
        var seen: Set<String> = []
        var found: [TypeContradiction] = []
        for entity in entities {
            for attribute in entity.attributes where seen.insert(attribute.declaredBy + "." + attribute.name).inserted {
                let expected = Self.expectedColumnTypes(attribute.type)
                guard !expected.isEmpty,
                      let column = raw.entity(named: entity.table)?.attributes.first(where: {
                          $0.name.uppercased() == attribute.column.uppercased()
                      }) else { continue }
                // The type's name without a size (`VARCHAR(255)`).
                let declared = column.declaredType.uppercased().prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces)
                guard !declared.isEmpty, !expected.contains(declared) else { continue }
                found.append(TypeContradiction(entity: attribute.declaredBy, attribute: attribute.name, type: attribute.type,
                                               table: entity.table, column: column.name, declaredType: column.declaredType))
            }
        }
        return found
    }

    /// The column types Core Data declares for `type`, the usual one first; empty for types
    /// with no column of their own or none known here.
    static func expectedColumnTypes(_ type: CoreDataAttribute.AttributeType) -> [String] {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: ["INTEGER"]
        case .decimal: ["DECIMAL"]
        case .double, .float: ["FLOAT"]
        case .string: ["VARCHAR"]
        case .date: ["TIMESTAMP"]
        case .binary, .transformable, .uuid: ["BLOB"]
        case .uri: ["VARCHAR", "BLOB"]
        case .undefined, .objectID, .composite, .unknown: []
        }
    }
}
