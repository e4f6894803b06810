import Foundation
import PortalPredicate

/// A Swift type stored in one column, both ways: the engine's one value conversion. Typed
/// entities (`Portal<T>`'s encoder and decoder) store and read these types through it, and its
/// `Date` rule is the one the predicate compiler compares dates with, so that a date written
/// through `Portal<T>` is matched by `CAST(…, "NSDate")` and `now()`.
///
/// The rules (also in docs/engine.md, "Values"):
/// - `Date`: ISO-8601 text in UTC, `yyyy-MM-dd HH:mm:ss`, with `.SSS` when the date has a
///   fraction of a second (so a whole-second date is the very text SQLite's `datetime()` writes
///   and the compiler compares with). Read from such text (also with `T`, `Z`, or only a day), or
///   from a number of Unix seconds (a column that stores dates as numbers).
/// - `Bool`: 1 or 0; read from any number (non-zero is true) or the text `true`/`false`.
/// - `UUID`: its text (`uuidString`); read from that text or from a 16-byte blob (Core Data's form).
/// - `Data`: a blob; read from a blob or from text (its UTF-8 bytes).
/// - `Decimal`: its exact text; read from text or from a number.
/// - `URL`: its `absoluteString`; read from text.
/// - Enums with raw values: declare the conformance and their raw value is stored.
public protocol DatabaseValueConvertible: ArgumentConvertible {
    /// The value stored for `self`.
    var databaseValue: Value { get }
    /// `self` from a stored value; nil when the value cannot stand for one.
    init?(databaseValue: Value)
}

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue == String {
    /// The raw value, as text.
    public var databaseValue: Value { .text(rawValue) }
    /// The case whose raw value is stored.
    public init?(databaseValue: Value) {
        guard case .text(let raw) = databaseValue else { return nil }
        self.init(rawValue: raw)
    }
}

extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: BinaryInteger {
    /// The raw value, as an integer.
    public var databaseValue: Value { .integer(Int64(rawValue)) }
    /// The case whose raw value is stored.
    public init?(databaseValue: Value) {
        guard case .integer(let raw) = databaseValue, let exact = RawValue(exactly: raw) else { return nil }
        self.init(rawValue: exact)
    }
}

extension Date: DatabaseValueConvertible {
    /// A date, compared as the instant it is (`Argument.date`), not as its text.
    public var predicateArgument: Argument { .date(timeIntervalSince1970) }

    /// ISO-8601 text in UTC (`.SSS` only when there is a fraction of a second).
    public var databaseValue: Value {
        let seconds = timeIntervalSince1970
        return DateSemantics.text(seconds).map(Value.text) ?? .real(seconds)
    }

    /// From ISO-8601 text, or from Unix seconds.
    public init?(databaseValue: Value) {
        switch databaseValue {
        case .integer(let seconds): self.init(timeIntervalSince1970: Double(seconds))
        case .real(let seconds): self.init(timeIntervalSince1970: seconds)
        case .decimal(let seconds): self.init(timeIntervalSince1970: seconds.double)
        case .text(let text):
            guard let seconds = DateSemantics.parse(text) else { return nil }
            self.init(timeIntervalSince1970: seconds)
        case .null, .blob: return nil
        }
    }
}

extension Bool: DatabaseValueConvertible {
    /// 1 or 0.
    public var databaseValue: Value { .integer(self ? 1 : 0) }

    /// Non-zero numbers are true; also the text `true`/`false` (any case), `1`/`0`.
    public init?(databaseValue: Value) {
        switch databaseValue {
        case .integer(let n): self = n != 0
        case .real(let r): self = r != 0
        case .decimal(let d): self = d.double != 0
        case .text(let text):
            switch text.lowercased() {
            case "true", "1", "yes": self = true
            case "false", "0", "no": self = false
            default: return nil
            }
        case .null, .blob: return nil
        }
    }
}

extension UUID: DatabaseValueConvertible {
    /// The UUID's text.
    public var databaseValue: Value { .text(uuidString) }

    /// From its text, or from its 16 bytes.
    public init?(databaseValue: Value) {
        switch databaseValue {
        case .text(let text): self.init(uuidString: text)
        case .blob(let bytes) where bytes.count == 16:
            self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                             bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        default: return nil
        }
    }
}

extension Data: DatabaseValueConvertible {
    /// A blob.
    public var databaseValue: Value { .blob([UInt8](self)) }

    /// From a blob, or from text (its UTF-8 bytes).
    public init?(databaseValue: Value) {
        switch databaseValue {
        case .blob(let bytes): self.init(bytes)
        case .text(let text): self.init(text.utf8)
        default: return nil
        }
    }
}

extension Decimal: DatabaseValueConvertible {
    /// Its exact text (which PostgreSQL's `numeric` reads exactly, and SQLite's NUMERIC
    /// affinity as a number).
    public var databaseValue: Value { .text(description) }

    /// From a number, or from text.
    public init?(databaseValue: Value) {
        switch databaseValue {
        case .integer(let n): self.init(n)
        case .real(let r): self.init(r)
        case .decimal(let d):
            guard let decimal = Decimal(string: d.text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = decimal
        case .text(let text):
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
            self = decimal
        case .null, .blob: return nil
        }
    }
}

extension URL: DatabaseValueConvertible {
    /// Its `absoluteString`.
    public var databaseValue: Value { .text(absoluteString) }

    /// From text.
    public init?(databaseValue: Value) {
        guard case .text(let text) = databaseValue else { return nil }
        self.init(string: text)
    }
}

/// Every type stored through the one value conversion is also a predicate argument, by the same
/// rule: a `UUID`, `Data`, `Decimal`, `URL` or enum with raw values is a `%@` as it is a column.
/// A `Date` is a date (`Argument.date`): `findAll(where: "day > %@", [someDate])` compares by
/// the column's way of holding dates, as `CAST(…, "NSDate")` does.
extension DatabaseValueConvertible {
    /// The stored value.
    public var predicateArgument: Argument { .value(databaseValue) }
}
