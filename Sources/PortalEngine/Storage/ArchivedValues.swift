import Foundation
import PortalPredicate

/// The values an app keeps in a Transformable or Binary Data attribute, as the app reads them:
/// a keyed archive (`NSSecureUnarchiveFromData`, the default transformer), a property list
/// (binary or XML) or JSON (a Codable value). A string, number or date is shown as itself; an
/// array, set or dictionary as JSON text; an object of another class by its class name
/// (`<CLLocation>`). Bytes in none of these formats are left as they are. A value kept in an
/// external data file (an attribute that allows external storage) is the file's.
package enum ArchivedValues {
    /// The value `bytes` hold; nil when they hold none of the formats above.
    package static func decoded(_ bytes: [UInt8]) -> Value? {
        guard let node = node(bytes) else { return nil }
        switch node {
        case .text(let text): return .text(text)
        case .date(let seconds): return .text(Node.dateText(sinceReferenceDate: seconds))
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .null: return .null
        case .data: return nil
        case .object(let name): return .text("<\(name)>")
        default: return .text(node.json)
        }
    }

    /// A decoded value, before it is shown.
    indirect enum Node {
        case text(String), integer(Int64), real(Double), bool(Bool), date(Double), data(Int), null
        case array([Node]), dictionary([(key: String, value: Node)]), object(String)

        /// The node as JSON text: dates as date text, data by its size, objects by class name.
        var json: String {
            switch self {
            case .text(let text): Self.quoted(text)
            case .integer(let number): String(number)
            case .real(let number): number.isFinite ? String(number) : Self.quoted(String(number))
            case .bool(let value): value ? "true" : "false"
            case .date(let seconds): Self.quoted(Self.dateText(sinceReferenceDate: seconds))
            case .data(let count): Self.quoted("<\(count) byte\(count == 1 ? "" : "s")>")
            case .null: "null"
            case .array(let items): "[" + items.map(\.json).joined(separator: ",") + "]"
            case .dictionary(let pairs): "{" + pairs.map { Self.quoted($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
            case .object(let name): Self.quoted("<\(name)>")
            }
        }

        static func quoted(_ text: String) -> String {
            guard let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]),
                  let array = String(data: data, encoding: .utf8) else { return "\"\"" }
            return String(array.dropFirst().dropLast())
        }

        /// `yyyy-MM-dd HH:mm:ss[.SSS]` in UTC, as the store's dates are shown (`DateSemantics.text`:
        /// no formatter made per value, this runs for every row a filter reads).
        static func dateText(sinceReferenceDate seconds: Double) -> String {
            DateSemantics.text(seconds + DateSemantics.referenceDateOffset) ?? String(seconds)
        }
    }

    // MARK: External storage

    /// The largest external data file read into a value.
    static let externalFileLimit = 256 << 20

    /// The file name an external data reference names: Core Data keeps a Binary Data value of
    /// an attribute that allows external storage as 1 and the bytes, or as 2, the name of a file
    /// (a UUID) and a NUL; the file is in `.<store name>_SUPPORT/_EXTERNAL_DATA/` beside the store.
    /// `prefix` is the value's first bytes (40 at least), `count` its length.
    package static func externalReference(_ prefix: [UInt8], count: Int) -> String? {
        guard count == 38, prefix.count >= 38, prefix[0] == 2, prefix[37] == 0,
              let name = String(bytes: prefix[1..<37], encoding: .ascii), UUID(uuidString: name) != nil else { return nil }
        return name
    }

    /// The folder of a store's external data files.
    static func externalDataFolder(store: String) -> URL {
        let file = URL(fileURLWithPath: store)
        return file.deletingLastPathComponent()
            .appendingPathComponent("." + file.deletingPathExtension().lastPathComponent + "_SUPPORT")
            .appendingPathComponent("_EXTERNAL_DATA")
    }

    /// The value of the external data file `name` of the store at `store`: decoded as above, else
    /// its bytes; text that says so when the file is missing or too large to read.
    package static func externalValue(_ name: String, store: String) -> Value {
        let path = externalDataFolder(store: store).appendingPathComponent(name).path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.intValue else {
            return .text("<external data \(name): the file is missing>")
        }
        guard size <= externalFileLimit else { return .text("<external data \(name): \(size) bytes>") }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .text("<external data \(name): the file cannot be read>")
        }
        let bytes = [UInt8](data)
        return decoded(bytes) ?? .blob(bytes)
    }

    /// True when bytes that begin with `prefix` (their first 16 bytes, or all of them) may be in
    /// one of the formats: a cheap test before a large blob is copied.
    package static func mayHold(prefix: [UInt8]) -> Bool {
        if prefix.starts(with: Array("bplist".utf8)) { return true }
        guard let first = prefix.first(where: { ![0x20, 0x09, 0x0a, 0x0d].contains($0) }) else { return false }
        return [UInt8(ascii: "<"), UInt8(ascii: "{"), UInt8(ascii: "[")].contains(first)
    }

    static func node(_ bytes: [UInt8]) -> Node? {
        // Kept inline by an attribute that allows external storage: a 1 before the bytes.
        if bytes.first == 1, mayHold(prefix: Array(bytes.dropFirst().prefix(16))) { return node(Array(bytes.dropFirst())) }
        guard mayHold(prefix: Array(bytes.prefix(16))),
              let first = bytes.first(where: { ![0x20, 0x09, 0x0a, 0x0d].contains($0) }) else { return nil }
        let data = Data(bytes)
        if bytes.starts(with: Array("bplist".utf8)) || first == UInt8(ascii: "<") {
            // Binary and XML only: Foundation also reads the old text format, in which any word is a string.
            var format = PropertyListSerialization.PropertyListFormat.openStep
            guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: &format),
                  format != .openStep else { return nil }
            if let top = plist as? [String: Any], top["$objects"] != nil, top["$top"] != nil,
               let archive = try? KeyedArchive(data: data, source: "value") {
                var seen: Set<Int> = []
                return archived(archive, .reference(archive.root), seen: &seen, depth: 0)
            }
            return propertyList(plist, depth: 0)
        }
        if [UInt8(ascii: "{"), UInt8(ascii: "[")].contains(first),
           let json = try? JSONSerialization.jsonObject(with: data, options: []) {
            return propertyList(json, depth: 0)
        }
        return nil
    }

    /// How deep arrays and dictionaries are followed: a value nested deeper is shown as `…`, so
    /// that no file's nesting can exhaust the stack.
    static let depthLimit = 64

    /// A property list's (or JSON's) value.
    static func propertyList(_ value: Any, depth: Int) -> Node {
        guard depth < depthLimit else { return .text("…") }
        switch value {
        case let text as String: return .text(text)
        case let bool as Bool where type(of: value) == Bool.self: return .bool(bool)
        case let number as NSNumber:
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 9e15 ? .integer(number.int64Value) : .real(double)
        case let date as Date: return .date(date.timeIntervalSinceReferenceDate)
        case let data as Data: return .data(data.count)
        case let array as [Any]: return .array(array.map { propertyList($0, depth: depth + 1) })
        case let dictionary as [String: Any]:
            return .dictionary(dictionary.keys.sorted().map { ($0, propertyList(dictionary[$0] as Any, depth: depth + 1)) })
        case is NSNull: return .null
        default: return .object(String(describing: type(of: value)))
        }
    }

    /// The object `value` stands for in a keyed archive: Foundation's value classes by their
    /// fields, any other class by its name. `seen` stops an archive that points round in a cycle.
    static func archived(_ archive: KeyedArchive, _ value: ArchiveValue?, seen: inout Set<Int>, depth: Int) -> Node {
        guard let value else { return .null }
        guard depth < depthLimit else { return .text("…") }
        guard case .reference(let index) = value else { return plain(value) }
        guard let resolved = archive.resolve(value) else { return .null }
        guard case .dictionary(let fields) = resolved, let name = archive.className(of: index) else { return plain(resolved) }
        guard seen.insert(index).inserted else { return .object(name) }
        defer { seen.remove(index) }
        switch name {
        case "NSString", "NSMutableString":
            return archive.string(fields["NS.string"]).map(Node.text) ?? .text("")
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
            guard case .array(let items)? = fields["NS.objects"] else { return .array([]) }
            return .array(items.map { archived(archive, $0, seen: &seen, depth: depth + 1) })
        case "NSDictionary", "NSMutableDictionary":
            guard case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"] else {
                return .dictionary([])
            }
            return .dictionary(zip(keys, values).map { key, value in
                let shownKey = switch archived(archive, key, seen: &seen, depth: depth + 1) {
                case .text(let text): text
                case let other: other.json
                }
                return (shownKey, archived(archive, value, seen: &seen, depth: depth + 1))
            })
        case "NSDate":
            if case .real(let seconds)? = archive.resolve(fields["NS.time"]) { return .date(seconds) }
            if case .integer(let seconds)? = archive.resolve(fields["NS.time"]) { return .date(Double(seconds)) }
            return .object(name)
        case "NSURL":
            let relative = archive.string(fields["NS.relative"]) ?? ""
            guard case .text(let base) = archived(archive, fields["NS.base"], seen: &seen, depth: depth + 1), !base.isEmpty else {
                return .text(relative)
            }
            return .text(URL(string: relative, relativeTo: URL(string: base))?.absoluteString ?? relative)
        case "NSUUID":
            guard case .data(let bytes)? = archive.resolve(fields["NS.uuidbytes"]), bytes.count == 16 else { return .object(name) }
            return .text(UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                     bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
                .uuidString)
        case "NSData", "NSMutableData":
            if case .data(let bytes)? = archive.resolve(fields["NS.data"]) { return .data(bytes.count) }
            return .data(0)
        case "NSNull":
            return .null
        case "NSNumber", "NSDecimalNumber":
            return .object(name)
        default:
            return .object(name)
        }
    }

    /// A value the archive keeps inline (a number, a string, bytes).
    private static func plain(_ value: ArchiveValue) -> Node {
        switch value {
        case .string(let text): .text(text)
        case .integer(let number): .integer(Int64(number))
        case .real(let number): .real(number)
        case .bool(let flag): .bool(flag)
        case .data(let bytes): .data(bytes.count)
        case .array(let items): .array(items.map(plain))
        case .reference, .dictionary, .other: .null
        }
    }
}
