import Foundation
import PortalPredicate
import Testing
@testable import PortalEngine

/// Transformable and Binary Data values as the app reads them, from archives Foundation's own
/// NSKeyedArchiver and PropertyListSerialization write (an independent writer of each format).
@Suite struct ArchivedValuesTests {
    func archived(_ object: Any) throws -> [UInt8] {
        [UInt8](try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false))
    }

    /// The JSON text a decoded value holds, parsed, to compare without depending on key order.
    func json(_ value: Value?) throws -> NSObject? {
        guard case .text(let text)? = value else { return nil }
        return try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject
    }

    @Test func keyedArchivesOfFoundationValues() throws {
        #expect(ArchivedValues.decoded(try archived(NSArray(array: ["Torrance", "Palos Verdes"]))) == .text(#"["Torrance","Palos Verdes"]"#))
        #expect(ArchivedValues.decoded(try archived(NSString(string: "héllo"))) == .text("héllo"))
        #expect(ArchivedValues.decoded(try archived(NSNumber(value: 42))) == .integer(42))
        #expect(ArchivedValues.decoded(try archived(NSNumber(value: 2.5))) == .real(2.5))
        #expect(ArchivedValues.decoded(try archived(NSDate(timeIntervalSinceReferenceDate: 86_400))) == .text("2001-01-02 00:00:00"))
        let uuid = UUID()
        #expect(ArchivedValues.decoded(try archived(NSUUID(uuidString: uuid.uuidString) as Any)) == .text(uuid.uuidString))
        #expect(ArchivedValues.decoded(try archived(NSURL(string: "https://example.com/a?b=1") as Any)) == .text("https://example.com/a?b=1"))
        let dictionary = NSDictionary(dictionary: ["count": 3, "names": ["a", "b"], "when": NSDate(timeIntervalSinceReferenceDate: -60),
                                                   "bytes": NSData(data: Data([1, 2, 3]))])
        #expect(try json(ArchivedValues.decoded(try archived(dictionary)))
                == ["count": 3, "names": ["a", "b"], "when": "2000-12-31 23:59:00", "bytes": "<3 bytes>"] as NSDictionary)
    }

    @Test func propertyListsAndJSON() throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: [1, 2.5, "x", true, Date(timeIntervalSinceReferenceDate: 0)],
                                                       format: .binary, options: 0)
        #expect(ArchivedValues.decoded([UInt8](plist)) == .text(#"[1,2.5,"x",true,"2001-01-01 00:00:00"]"#))
        let xml = try PropertyListSerialization.data(fromPropertyList: ["k": "v"], format: .xml, options: 0)
        #expect(ArchivedValues.decoded([UInt8](xml)) == .text(#"{"k":"v"}"#))
        #expect(ArchivedValues.decoded(Array(#" {"a": [1, 2], "b": "c"}"#.utf8)) == .text(#"{"a":[1,2],"b":"c"}"#))
        #expect(ArchivedValues.decoded(Array(#"["x", null]"#.utf8)) == .text(#"["x",null]"#))
    }

    /// Bytes in none of the formats, and damaged ones, are left as they are (nil), never a crash.
    @Test func otherBytesAreLeftAsTheyAre() throws {
        #expect(ArchivedValues.decoded([]) == nil)
        #expect(ArchivedValues.decoded([0x01, 0x54, 0x14, 0x48, 0xBF]) == nil)
        #expect(ArchivedValues.decoded(Array("bplist00".utf8)) == nil)
        #expect(ArchivedValues.decoded(Array("{not json".utf8)) == nil)
        let whole = try archived(NSArray(array: ["a", "b", "c"]))
        for length in stride(from: 0, to: whole.count, by: 7) {
            _ = ArchivedValues.decoded(Array(whole.prefix(length)))
        }
        var random = SplitMix64(seed: 6)
        for _ in 0..<200 {
            var bytes = whole
            bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            _ = ArchivedValues.decoded(bytes)
        }
        // Nesting deeper than the reader follows is cut short, not followed to the end of the stack.
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        guard case .text(let cut)? = ArchivedValues.decoded(Array(deep.utf8)) else { Issue.record("not decoded"); return }
        #expect(cut.contains("…") && cut.count < 200)
        // An object of a class the reader does not know is named by its class.
        let located = try archived(Located())
        guard case .text(let name)? = ArchivedValues.decoded(located) else { Issue.record("not decoded"); return }
        #expect(name.hasPrefix("<") && name.hasSuffix("Located>"), "\(name)")
    }
}

/// An app's own class, archived by NSKeyedArchiver under its name.
final class Located: NSObject, NSCoding {
    override init() {}
    init?(coder: NSCoder) {}
    func encode(with coder: NSCoder) { coder.encode(1.5, forKey: "latitude") }
}
