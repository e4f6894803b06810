import Foundation
import PortalPredicate
import Synchronization

// A query site runs its `#Predicate` again and again with new captured values. Its SQL is the
// same each time as long as the values that shaped it are (a nil, a Bool, a list, a value
// folded at translation or rewritten by the compiler): only the values bound as they are
// change. So the SQL of the one translator and compiler is kept per shape, with where each
// captured value is bound, and a predicate of a kept shape only reads its captures
// (`PredicateCaptures`) and binds them.
//
// Where a value is bound is learned, never assumed: on a miss the predicate is compiled again
// with a distinct stand-in for each value that could be bound as it is; a value whose stand-in
// turns up as a binding where the real value stood is bound there, every other value must
// equal the one compiled. A shape whose second compilation differs in anything else keeps
// every value as compiled.

/// What a cached compilation asks of one captured value.
enum CapturedValueGuard: @unchecked Sendable {
    /// An optional's nil (it compiles to `IS NULL`).
    case none
    /// This value: it shaped the SQL.
    case equal(AnyHashable)
    /// This text, byte for byte (Swift's `==` takes canonically equivalent texts as equal; their
    /// bytes, which SQL compares, differ).
    case text(String)
    /// Any value of this class, bound where the compilation's slots say.
    case bound(BoundValueClass)
}

extension CapturedValueGuard {
    /// A guard admitting `value` alone, or nil when `==` on its type does not tell values that
    /// compile alike (text inside a list or a struct) or it has none.
    static func exactly(_ value: Any) -> CapturedValueGuard? {
        if let optional = value as? any OptionalPredicateValue {
            guard let wrapped = optional.wrappedPredicateValue else { return CapturedValueGuard.none }
            guard exactly(wrapped) != nil, let hashable = value as? AnyHashable else { return nil }
            if case .text = exactly(wrapped) { return text(value).map(CapturedValueGuard.text) }
            return .equal(hashable)
        }
        if let text = text(value) { return .text(text) }
        guard let hashable = value as? AnyHashable, comparesExactly(value) else { return nil }
        return .equal(hashable)
    }

    /// Text, seen through an optional.
    static func text(_ value: Any) -> String? {
        switch value {
        case let text as String: return text
        case let text as Substring: return String(text)
        case let character as Character: return String(character)
        case let optional as any OptionalPredicateValue: return optional.wrappedPredicateValue.flatMap(text)
        default: return nil
        }
    }

    /// True for a type whose equal values compile alike: numbers, Bools, dates, UUIDs, data,
    /// an enum's cases, and lists and ranges of them.
    private static func comparesExactly(_ value: Any) -> Bool {
        switch value {
        case is Bool, is any BinaryInteger, is any BinaryFloatingPoint, is Decimal, is Date, is UUID, is Data: return true
        case let range as any RangePredicateValue:
            let bounds = range.predicateBounds
            return comparesExactly(bounds.lower) && comparesExactly(bounds.upper)
        case let list as any Sequence:
            return list.allSatisfy { text($0) == nil && comparesExactly($0) }
        case is any RawRepresentable:
            return Mirror(reflecting: value).displayStyle == .enum
        default: return false
        }
    }
}

/// What of a bound value can still shape SQL: its type, and for text whether it is empty
/// (found in every text by Swift: decided at translation) or a UUID's text (bound as a blob
/// against a Core Data UUID).
struct BoundValueClass: Hashable {
    let type: ObjectIdentifier
    let detail: UInt8

    init?(_ value: Any) {
        type = ObjectIdentifier(Swift.type(of: value))
        var value = value
        if let optional = value as? any OptionalPredicateValue {
            guard let wrapped = optional.wrappedPredicateValue else { return nil }
            value = wrapped
        }
        switch value {
        case let text as String: detail = Self.textDetail(text)
        case let text as Substring: detail = Self.textDetail(String(text))
        case let number as any BinaryInteger:
            guard Int64(exactly: number) != nil else { return nil }
            detail = 0
        case let number as Double:
            guard number.isFinite else { return nil }
            detail = 0
        case let number as Float:
            guard number.isFinite else { return nil }
            detail = 0
        case is UUID: detail = 0
        default: return nil
        }
    }

    private static func textDetail(_ text: String) -> UInt8 {
        if text.isEmpty { return 1 }
        return text.utf8.count == 36 && StorageConvention.uuidBytes(text) != nil ? 2 : 0
    }

    /// A value of the same type and class as `value`, told apart from every other by `index`.
    static func standIn(for value: Any, index: Int) -> Any? {
        if let optional = value as? any OptionalPredicateValue {
            guard let wrapped = optional.wrappedPredicateValue, let inner = standIn(for: wrapped, index: index) else { return nil }
            return (Swift.type(of: value) as? any OptionalWrapping.Type)?.wrapping(inner)
        }
        switch value {
        case is String: return "\u{10FFFD}\(index)\u{10FFFD}"
        case is Substring: return Substring("\u{10FFFD}\(index)\u{10FFFD}")
        case let number as any BinaryInteger: return integer(like: number, index)
        case is Double: return 86_753.5 + Double(index)
        case is Float: return Float(86_753.5 + Double(index))
        case is UUID:
            let byte = UInt8(truncatingIfNeeded: index), high = UInt8(truncatingIfNeeded: index >> 8)
            return UUID(uuid: (0x5E, 0xA7, 0x1D, 0x00, 0x86, 0x75, 0x43, 0x09, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, high, byte))
        default: return nil
        }
    }

    private static func integer<T: BinaryInteger>(like: T, _ index: Int) -> Any? {
        for base in [8_675_309_000_000, 1_867_530_900, 30_000, 100] as [Int64] {
            if let value = T(exactly: base + Int64(index)) { return value }
        }
        return nil
    }
}

/// An optional made from its wrapped value seen through `Any`.
protocol OptionalWrapping { static func wrapping(_ value: Any) -> Any? }
extension Optional: OptionalWrapping {
    static func wrapping(_ value: Any) -> Any? { (value as? Wrapped).map { Optional<Wrapped>.some($0) as Any } }
}

/// The compiled SQL of one shape of predicate, for one entity of one schema.
struct CompiledPredicateShape: @unchecked Sendable {
    /// Held so that the identities the cache is keyed by stay theirs.
    let keyPaths: [AnyKeyPath]
    let schema: Schema
    let entity: EntityDescription
    let alias: String
    let dialect: ObjectIdentifier
    let guards: [CapturedValueGuard]
    let filter: CompiledFilter
    /// Which captured value each of these bindings of `filter.condition` is.
    let slots: [(binding: Int, value: Int)]

    /// True when `values` are held to what this shape asks.
    func admits(_ values: [Any]) -> Bool {
        guard values.count == guards.count else { return false }
        for (value, guarded) in zip(values, guards) {
            switch guarded {
            case .none:
                guard let optional = value as? any OptionalPredicateValue, optional.wrappedPredicateValue == nil else { return false }
            case .equal(let expected):
                guard let hashable = value as? AnyHashable, hashable == expected else { return false }
            case .text(let expected):
                guard let text = CapturedValueGuard.text(value), text.utf8.elementsEqual(expected.utf8) else { return false }
            case .bound(let expected):
                guard BoundValueClass(value) == expected else { return false }
            }
        }
        return true
    }

    /// The filter with `values` bound.
    func filter(binding values: [Any]) -> CompiledFilter? {
        var filter = filter
        for slot in slots {
            guard let bound = CompiledPredicateCache.boundValue(values[slot.value]) else { return nil }
            filter.condition.bindings[slot.binding] = bound
        }
        return filter
    }
}

/// The compiled shapes of the `#Predicate`s run lately, bounded in number.
enum CompiledPredicateCache {
    struct Key: Hashable {
        let expression: ObjectIdentifier
        let keyPaths: [ObjectIdentifier]
        let operators: [UInt8]
    }

    /// Shapes kept in all (all are dropped when more come), and per key (the same expression
    /// with differently shaped values; a full key keeps the ones it has).
    static let capacity = 512
    static let shapesPerKey = 8

    private struct State: ~Copyable {
        var shapes: [Key: [CompiledPredicateShape]] = [:]
        var count = 0
    }

    private static let state = Mutex(State())

    /// How many shapes are kept.
    static var count: Int { state.withLock { $0.count } }

    static func key(_ expression: Any, _ captures: PredicateCaptures) -> Key {
        Key(expression: ObjectIdentifier(type(of: expression)), keyPaths: captures.keyPaths.map(ObjectIdentifier.init),
            operators: captures.operators)
    }

    /// True when a shape of this key admits the values (in any schema): translation is then
    /// known to succeed.
    static func knows(_ key: Key, _ values: [Any]) -> Bool {
        state.withLock { state in state.shapes[key]?.contains { $0.admits(values) } ?? false }
    }

    /// The filter of a kept shape with `values` bound, or nil.
    static func filter(_ key: Key, _ values: [Any], entity: EntityDescription, schema: Schema, alias: String,
                       dialect: any SQLDialect) -> CompiledFilter? {
        let dialectType = ObjectIdentifier(type(of: dialect))
        let shape = state.withLock { state in
            state.shapes[key]?.first {
                $0.alias == alias && $0.dialect == dialectType && $0.admits(values) && $0.entity == entity && $0.schema == schema
            }
        }
        return shape?.filter(binding: values)
    }

    /// True when the key has as many shapes as it may keep: its values keep shaping new SQL
    /// (a date that moves each call), so a new shape is neither learned nor kept.
    static func isFull(_ key: Key) -> Bool {
        state.withLock { state in (state.shapes[key]?.count ?? 0) >= shapesPerKey }
    }

    static func keep(_ key: Key, _ shape: CompiledPredicateShape) {
        state.withLock { state in
            if state.count >= capacity {
                state.shapes.removeAll(keepingCapacity: true)
                state.count = 0
            }
            var shapes = state.shapes[key] ?? []
            guard shapes.count < shapesPerKey else { return }
            shapes.append(shape)
            state.count += 1
            state.shapes[key] = shapes
        }
    }

    /// The value bound for a captured value that is bound as it is (the translator's literal).
    static func boundValue(_ value: Any) -> Value? {
        guard case .literal(let literal)? = try? FoundationPredicateTranslator.literal(value) else { return nil }
        return literal
    }

    /// How each captured value of `captures` is held, learned from the compilation `compiled`
    /// and a second one with stand-ins (`compile`, given substitutes by index); nil when a
    /// value can be held by neither (a value that is not Hashable shaped the SQL).
    static func shape(_ captures: PredicateCaptures, compiled: CompiledFilter, entity: EntityDescription, schema: Schema,
                      alias: String, dialect: any SQLDialect,
                      compile: ([Int: Any]) throws -> CompiledFilter) -> CompiledPredicateShape? {
        let values = captures.values
        var standIns: [Int: Any] = [:], standInValues: [Value: Int] = [:]
        for (index, value) in values.enumerated() {
            guard let valueClass = BoundValueClass(value), valueClass.detail == 0,
                  let standIn = BoundValueClass.standIn(for: value, index: index), BoundValueClass(standIn) == valueClass,
                  let bound = boundValue(standIn), standInValues[bound] == nil else { continue }
            standIns[index] = standIn
            standInValues[bound] = index
        }
        var slots: [(binding: Int, value: Int)] = []
        let bindings = compiled.condition.bindings
        if !standIns.isEmpty, bindings.allSatisfy({ standInValues[$0] == nil }),
           let probe = try? compile(standIns), probe.condition.sql == compiled.condition.sql,
           probe.warnings == compiled.warnings, probe.condition.bindings.count == bindings.count {
            for (position, (real, stood)) in zip(bindings, probe.condition.bindings).enumerated() {
                if let index = standInValues[stood], boundValue(values[index]) == real {
                    slots.append((position, index))
                } else if real != stood {
                    slots = []
                    break
                }
            }
        }
        let boundIndexes = Set(slots.map(\.value))
        var guards: [CapturedValueGuard] = []
        for (index, value) in values.enumerated() {
            if boundIndexes.contains(index), let valueClass = BoundValueClass(value) {
                guards.append(.bound(valueClass))
            } else if let exact = CapturedValueGuard.exactly(value) {
                guards.append(exact)
            } else {
                return nil
            }
        }
        return CompiledPredicateShape(keyPaths: captures.keyPaths, schema: schema, entity: entity, alias: alias,
                                      dialect: ObjectIdentifier(type(of: dialect)), guards: guards, filter: compiled,
                                      slots: slots)
    }
}
