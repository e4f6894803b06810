import PortalEngine
import PortalTUI

/// `generate swift`: one `PortalEntity` value type per entity, for the engine's typed portal.
enum SwiftGenerator {
    static func source(for entities: [EntityDescription]) -> String {
        var text = "import PortalEngine\n"
        for entity in entities {
            text += "\n" + source(for: entity)
        }
        return text
    }

    static func source(for entity: EntityDescription) -> String {
        let typeName = typeIdentifier(entity.name)
        // Names in comments as the shell's commands write them (`#"Order ID"`).
        var text = "/// The \(entity.kind.rawValue) \(TerminalText.escaped(KeyName.written(entity.name))).\n"
        text += "public struct \(typeName): PortalEntity, Codable, Sendable, Hashable {\n"
        text += "    public static let entityName = \(stringLiteral(entity.name))\n"
        if entity.primaryKey.count == 1, let key = entity.primaryKey.first {
            text += "    public static let idAttribute = \(stringLiteral(key))\n"
        }
        var names: [String] = []
        for attribute in entity.attributes {
            var name = propertyIdentifier(attribute.name)
            while names.contains(name) { name += "_" }
            names.append(name)
            let optional = attribute.isNullable && attribute.primaryKeyPosition == nil || entity.kind == .view
            if name != attribute.name {
                text += "    /// The attribute \(TerminalText.escaped(KeyName.written(attribute.name))).\n"
            }
            text += "    public var \(name): \(swiftType(attribute.declaredType))\(optional ? "?" : "")\n"
        }
        text += "\n    public enum CodingKeys: String, CodingKey {\n"
        for (attribute, name) in zip(entity.attributes, names) {
            text += "        case \(name) = \(stringLiteral(attribute.name))\n"
        }
        text += "    }\n}\n"
        return text
    }

    /// SQLite's affinity rules (section 3.1 of its datatype page) mapped to Swift types.
    static func swiftType(_ declared: String) -> String {
        let type = declared.uppercased()
        if type.contains("INT") { return "Int64" }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return "String" }
        if type.contains("BLOB") || type.isEmpty { return type.isEmpty ? "String" : "[UInt8]" }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return "Double" }
        if type.contains("BOOL") { return "Bool" }
        if type.contains("DATE") || type.contains("TIME") { return "String" }
        return "Double"
    }

    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "protocol", "public", "static", "struct", "subscript",
        "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough", "for",
        "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "Any", "catch", "false", "is",
        "nil", "rethrows", "super", "self", "Self", "throw", "throws", "true", "try", "Type", "Protocol",
    ]

    /// `Track` → `Track`, `invoice items` → `InvoiceItems`, `2fa` → `_2fa`.
    static func typeIdentifier(_ name: String) -> String {
        let words = identifierWords(name)
        var result = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if result.isEmpty { result = "Entity" }
        if let first = result.first, first.isNumber { result = "_" + result }
        return keywords.contains(result) ? "`\(result)`" : result
    }

    /// `TrackId` → `trackId`, `first name` → `firstName`, `ID` → `id`.
    static func propertyIdentifier(_ name: String) -> String {
        let words = identifierWords(name)
        guard let first = words.first else { return "_" }
        let head = first == first.uppercased() ? first.lowercased() : first.prefix(1).lowercased() + first.dropFirst()
        var result = head + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if let c = result.first, c.isNumber { result = "_" + result }
        return keywords.contains(result) ? "`\(result)`" : result
    }

    private static func identifierWords(_ name: String) -> [String] {
        name.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init)
    }

    static func stringLiteral(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                // Controls and invisible characters as \u{…}: the source stays safe to print.
                if TerminalText.mayNeedEscape(scalar) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension Executor {
    func generateSwift(_ names: [Located<String>]) throws {
        let entities = try names.isEmpty ? requireDatabase().schema.entities : names.map { try entity($0) }
        output.write(SwiftGenerator.source(for: entities))
    }
}
