/// A value as SQLite stores it: one of its five storage classes.
///
/// Values are what rows hold, what predicate literals denote and what is bound to SQL
/// parameters. They are plain `Sendable` values, safe to pass between threads.
public enum Value: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes, stored as they are.
    case blob([UInt8])
    /// An exact decimal (PostgreSQL's `numeric`, a literal a double cannot write back): every
    /// digit kept. SQLite stores and compares it as its nearest double (`approximated`).
    case decimal(ExactDecimal)

    /// True for `.null`.
    public var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The value SQLite and the evaluator work with: a decimal as its nearest double, any
    /// other value as it is.
    public var approximated: Value {
        if case .decimal(let decimal) = self { return .real(decimal.double) }
        return self
    }
}

extension Value: ExpressibleByNilLiteral {
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
}

extension Value: ExpressibleByIntegerLiteral {
    /// An integer literal is `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension Value: ExpressibleByFloatLiteral {
    /// A floating-point literal is `.real`.
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension Value: ExpressibleByStringLiteral {
    /// A string literal is `.text`.
    public init(stringLiteral value: String) { self = .text(value) }
}

extension Value: ExpressibleByBooleanLiteral {
    /// Booleans are stored as SQLite does: 1 and 0.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

/// What a `%@`-style placeholder or a `$variable` stands for: one value, or a list (for `IN`).
public enum Argument: Sendable, Hashable {
    /// One value.
    case value(Value)
    /// A list of values, for `IN`.
    case list([Value])
    /// A date, in Unix seconds (a Swift `Date`): compared as `CAST(…, "NSDate")` is, by each
    /// column's way of holding dates (an instant for a server's `timestamptz`, whatever the
    /// session's time zone), not as its text.
    case date(Double)

    /// The argument as a predicate's expression: a literal, a `{…}` list, or a date's CAST.
    var expression: ExpressionTree {
        switch self {
        case .value(let v): return .literal(v)
        case .list(let vs): return .aggregate(vs.map(ExpressionTree.literal))
        case .date(let seconds): return .cast(.literal(.real(seconds - DateSemantics.referenceDateOffset)), "NSDate")
        }
    }
}

/// A Swift value that can be passed as a predicate argument: `ctx.count("User", where: "age > %@", [30])`.
public protocol ArgumentConvertible {
    /// The argument this value stands for.
    var predicateArgument: Argument { get }
}

extension Value: ArgumentConvertible {
    /// The value itself.
    public var predicateArgument: Argument { .value(self) }
}
extension Int: ArgumentConvertible {
    /// An integer.
    public var predicateArgument: Argument { .value(.integer(Int64(self))) }
}
extension Int64: ArgumentConvertible {
    /// An integer.
    public var predicateArgument: Argument { .value(.integer(self)) }
}
extension Int32: ArgumentConvertible {
    /// An integer.
    public var predicateArgument: Argument { .value(.integer(Int64(self))) }
}
extension Double: ArgumentConvertible {
    /// A real.
    public var predicateArgument: Argument { .value(.real(self)) }
}
extension String: ArgumentConvertible {
    /// Text.
    public var predicateArgument: Argument { .value(.text(self)) }
}
extension Substring: ArgumentConvertible {
    /// Text.
    public var predicateArgument: Argument { .value(.text(String(self))) }
}
extension Bool: ArgumentConvertible {
    /// 1 or 0, as SQLite stores booleans.
    public var predicateArgument: Argument { .value(.integer(self ? 1 : 0)) }
}
extension Argument: ArgumentConvertible {
    /// The argument itself.
    public var predicateArgument: Argument { self }
}
extension Optional: ArgumentConvertible where Wrapped: ArgumentConvertible {
    /// The wrapped value's argument, or NULL for nil.
    public var predicateArgument: Argument { self?.predicateArgument ?? .value(.null) }
}
extension Array: ArgumentConvertible where Element: ArgumentConvertible {
    /// An array is a list, for `a IN %@`; nested lists are flattened.
    public var predicateArgument: Argument {
        .list(flatMap { element -> [Value] in
            switch element.predicateArgument {
            case .value(let v): return [v]
            case .list(let vs): return vs
            case .date(let seconds): return [DateSemantics.text(seconds).map(Value.text) ?? .real(seconds)]
            }
        })
    }
}

/// A value is Codable as the one value it holds, so a type may store a column that holds any
/// kind (no declared type) as a `Value`. The engine's row coders read and write it as it is.
extension Value: Codable {
    /// Reads NULL, an integer, a real, text or bytes, whichever the decoder holds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .real(real)
        } else if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .blob(try container.decode([UInt8].self))
        }
    }

    /// Writes the one value held, as its own kind.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let integer): try container.encode(integer)
        case .real(let real): try container.encode(real)
        case .text(let text): try container.encode(text)
        case .blob(let bytes): try container.encode(bytes)
        case .decimal(let decimal): try container.encode(decimal.text)
        }
    }
}
