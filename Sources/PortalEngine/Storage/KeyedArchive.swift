import Foundation

/// An NSKeyedArchiver archive read by hand: `$objects` is a flat table and objects point at each
/// other by UID. (NSKeyedUnarchiver cannot rebuild an NSManagedObjectModel outside Apple's
/// platforms, so the model reader walks the table itself.)
package struct KeyedArchive {
    /// `$objects`, with UIDs turned into `.reference` indexes.
    package let objects: [ArchiveValue]
    /// The index of `$top.root`.
    package let root: Int

    /// The archive in the property list `data` (binary or XML); `source` names it in errors.
    package init(data: Data, source: String) throws {
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw PortalError(.coreDataModel, "\(source) is not a property list")
        }
        guard let top = plist as? [String: Any], let objects = top["$objects"] as? [Any],
              let tops = top["$top"] as? [String: Any], let rootValue = tops["root"] else {
            throw PortalError(.coreDataModel, "\(source) is not a keyed archive (no $objects or $top)")
        }
        self.objects = objects.map(ArchiveValue.init)
        guard case .reference(let root) = ArchiveValue(rootValue), self.objects.indices.contains(root) else {
            throw PortalError(.coreDataModel, "\(source): the archive's root is not an object")
        }
        self.root = root
    }

    /// The object `value` points to (or `value` itself when it is not a reference); `nil` for
    /// the archive's `$null` and for references outside the table.
    package func resolve(_ value: ArchiveValue?) -> ArchiveValue? {
        guard let value else { return nil }
        guard case .reference(let index) = value else { return value }
        guard objects.indices.contains(index), index != 0 else { return nil }
        return objects[index]
    }

    /// The index an object field points to.
    package func index(_ value: ArchiveValue?) -> Int? {
        if case .reference(let index)? = value, objects.indices.contains(index), index != 0 { return index }
        return nil
    }

    /// The class name of the object at `index` (`NSEntityDescription`).
    package func className(of index: Int) -> String? {
        guard case .dictionary(let fields) = objects[index],
              case .dictionary(let classInfo)? = resolve(fields["$class"]) else { return nil }
        return resolve(classInfo["$classname"])?.string
    }

    /// The fields of the object at `index`.
    package func fields(of index: Int) -> [String: ArchiveValue] {
        if case .dictionary(let fields) = objects[index] { return fields }
        return [:]
    }

    /// The string a field holds (directly or by reference).
    package func string(_ value: ArchiveValue?) -> String? { resolve(value)?.string }

    /// The element indexes of an archived NSArray/NSSet (`NS.objects`).
    package func arrayElements(_ value: ArchiveValue?) -> [ArchiveValue] {
        guard case .dictionary(let fields)? = resolve(value), case .array(let items)? = fields["NS.objects"] else {
            return []
        }
        return items
    }

    /// The key/value pairs of an archived NSDictionary (`NS.keys`/`NS.objects`), in order.
    package func dictionaryPairs(_ value: ArchiveValue?) -> [(key: String, value: ArchiveValue)] {
        guard case .dictionary(let fields)? = resolve(value), case .array(let keys)? = fields["NS.keys"],
              case .array(let values)? = fields["NS.objects"], keys.count == values.count else { return [] }
        return zip(keys, values).compactMap { key, value in string(key).map { ($0, value) } }
    }
}

/// One value of a keyed archive.
package enum ArchiveValue: Sendable, Hashable {
    case reference(Int)
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case data([UInt8])
    case array([ArchiveValue])
    case dictionary([String: ArchiveValue])
    case other

    package init(_ value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let bool as Bool where type(of: value) == Bool.self: self = .bool(bool)
        case let number as NSNumber: self = Self.number(number)
        case let data as Data: self = .data([UInt8](data))
        case let array as [Any]: self = .array(array.map(ArchiveValue.init))
        case let dictionary as [String: Any]: self = .dictionary(dictionary.mapValues(ArchiveValue.init))
        default: self = Self.uid(value).map { .reference($0) } ?? .other
        }
    }

    private static func number(_ number: NSNumber) -> ArchiveValue {
        let double = number.doubleValue
        if double == double.rounded(), abs(double) < 9e15 { return .integer(number.intValue) }
        return .real(double)
    }

    /// The index an archive UID holds. Foundation reads UIDs into an internal class
    /// (`_NSKeyedArchiverUID`) whose only public trace is its stored `value`.
    private static func uid(_ value: Any) -> Int? {
        guard String(describing: type(of: value)).contains("KeyedArchiverUID") else { return nil }
        for child in Mirror(reflecting: value).children where child.label == "value" {
            if let number = child.value as? UInt32 { return Int(number) }
            if let number = child.value as? Int { return number }
            if let number = child.value as? UInt64 { return Int(exactly: number) }
        }
        return nil
    }

    package var string: String? { if case .string(let s) = self { s } else { nil } }
    package var integer: Int? {
        switch self {
        case .integer(let i): i
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }
    package var bool: Bool? {
        switch self {
        case .bool(let b): b
        case .integer(let i): i != 0
        default: nil
        }
    }
}
