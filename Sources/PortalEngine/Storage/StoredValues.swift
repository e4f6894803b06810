import Foundation
import PortalPredicate

// A value written to a column of a storage convention goes in the stored form: Core Data's
// dates as seconds since 2001 (from date text, as shown), UUIDs as 16-byte blobs (from UUID
// text). Numbers and blobs are taken as already stored; an archived value (Transformable, Binary
// Data) is written only as bytes.

extension StorageConvention {
    /// `value` in the form the column keeps; throws, naming `attribute`, for text that is no
    /// date (or no UUID).
    public func storedValue(_ value: Value, attribute: String) throws -> Value {
        switch (self, value) {
        case (.secondsSinceReferenceDate, .text(let text)):
            guard let unix = DateSemantics.parse(text) else {
                throw PortalError(.conversion, "\(attribute) holds dates: '\(text)' is not a date (write yyyy-MM-dd HH:mm:ss)",
                                  attribute: attribute)
            }
            return Self.referenceSeconds(unix - DateSemantics.referenceDateOffset)
        case (.uuidBlob, .text(let text)):
            guard let bytes = Self.uuidBytes(text) else {
                throw PortalError(.conversion, "\(attribute) holds UUIDs: '\(text)' is not a UUID", attribute: attribute)
            }
            return .blob(bytes)
        case (.archivedValue, .text), (.archivedValue, .integer), (.archivedValue, .real):
            // Shown decoded, kept archived: text written back would not be what the app reads.
            throw PortalError(.conversion, "\(attribute) holds archived values, shown decoded: write one as the bytes "
                              + "the app archived (a blob, x'…'), or nil", attribute: attribute)
        default:
            return value
        }
    }


    /// Seconds since 2001 as Core Data's `TIMESTAMP` column keeps them: an integer when whole.
    static func referenceSeconds(_ seconds: Double) -> Value {
        seconds == seconds.rounded() && abs(seconds) < 9e15 ? .integer(Int64(seconds)) : .real(seconds)
    }

    /// The 16 bytes of UUID text (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`), nil when it is none.
    static func uuidBytes(_ text: String) -> [UInt8]? {
        guard let uuid = UUID(uuidString: text) else { return nil }
        return withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }
}

/// How typed writes (`Portal<T>`, `insert`, `update`) store a `Date`: by the store.
package enum DateForm: Sendable {
    /// The value conversion's date text (`Date.databaseValue`, UTC without an offset): SQLite's.
    case text
    /// Seconds since 2001 at full precision (`Date.referenceSecondsValue`): a Core Data store's.
    case secondsSinceReferenceDate
    /// The date text with its offset, `+00`: a server that reads text without an offset in
    /// its session's time zone (PostgreSQL's `timestamptz`) takes the instant itself.
    case textInUTC

    /// The form for the store `ctx` writes to.
    init(_ ctx: WriteContext) {
        self = ctx.store.writePolicy.dateForm ?? (ctx.store.dialect.readsOffsetlessDatesInSessionZone ? .textInUTC : .text)
    }

    /// `value` as this form stores it when it is a `Date`, else nil.
    func stored(_ value: some Any) -> Value? {
        guard self != .text, let date = value as? Date else { return nil }
        if self == .secondsSinceReferenceDate { return date.referenceSecondsValue }
        return DateSemantics.text(date.timeIntervalSince1970).map { .text($0 + "+00") }
    }
}

extension Date {
    /// The date as a Core Data store keeps it, seconds since 2001 at full precision: what typed
    /// writes store (date text would round it to the millisecond).
    var referenceSecondsValue: Value { StorageConvention.referenceSeconds(timeIntervalSinceReferenceDate) }
}

extension EntityDescription {
    /// `value` as the column of `attribute` keeps it (see `StorageConvention.storedValue`).
    public func storedValue(_ value: Value, for attribute: String) throws -> Value {
        guard let described = self.attribute(named: attribute) else { return value }
        return try described.storage.storedValue(value, attribute: described.name)
    }
}
