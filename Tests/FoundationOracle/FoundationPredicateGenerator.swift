import Foundation
@testable import PortalEngine

/// Any Boolean expression, so that randomly built expressions of different types compose. It
/// evaluates and translates as the expression it holds.
public struct AnyCondition: StandardPredicateExpression {
    public typealias Output = Bool
    public let base: any StandardPredicateExpression<Bool>
    public init(_ base: any StandardPredicateExpression<Bool>) { self.base = base }
    public func evaluate(_ bindings: PredicateBindings) throws -> Bool { try base.evaluate(bindings) }
    public init(from decoder: any Decoder) throws { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "test only")) }
    public func encode(to encoder: any Encoder) throws {}
}

extension AnyCondition: TranslatableExpression {
    public func translate(_ translator: inout FoundationPredicateTranslator) throws -> TranslatedExpression {
        try translator.translate(base)
    }
}

/// Random Foundation predicates over the music schema, built from `PredicateExpressions` as the
/// `#Predicate` macro builds them, with random captured values.
public struct FoundationPredicateGenerator {
    typealias Track = PredicateExpressions.Variable<MusicTrack>
    typealias Album = PredicateExpressions.Variable<MusicAlbum>
    var random: SplitMix64

    public init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func number(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    mutating func pick<T>(_ list: [T]) -> T { list[number(list.count)] }
    mutating func word() -> String { pick(MusicWorld.words) }
    mutating func order() -> PredicateExpressions.ComparisonOperator {
        pick([.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual])
    }

    /// `and`, `or`, `not` of conditions from `atom`, `depth` levels deep at most.
    mutating func condition<V>(_ v: V, depth: Int, _ atom: (inout Self, V) -> AnyCondition) -> AnyCondition {
        guard depth > 0, number(100) < 60 else { return atom(&self, v) }
        switch number(3) {
        case 0: return AnyCondition(PredicateExpressions.Conjunction(lhs: condition(v, depth: depth - 1, atom),
                                                                    rhs: condition(v, depth: depth - 1, atom)))
        case 1: return AnyCondition(PredicateExpressions.Disjunction(lhs: condition(v, depth: depth - 1, atom),
                                                                    rhs: condition(v, depth: depth - 1, atom)))
        default: return AnyCondition(PredicateExpressions.Negation(condition(v, depth: depth - 1, atom)))
        }
    }

    public mutating func trackPredicate() -> Predicate<MusicTrack> {
        var copy = self
        let predicate = Predicate<MusicTrack> { track in copy.condition(track, depth: 3) { $0.trackAtom($1) } }
        self = copy
        return predicate
    }

    public mutating func albumPredicate() -> Predicate<MusicAlbum> {
        var copy = self
        let predicate = Predicate<MusicAlbum> { album in copy.condition(album, depth: 2) { $0.albumAtom($1) } }
        self = copy
        return predicate
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    mutating func trackAtom(_ t: Track) -> AnyCondition {
        typealias E = PredicateExpressions
        let ms = E.KeyPath(root: t, keyPath: \MusicTrack.milliseconds)
        let name = E.KeyPath(root: t, keyPath: \MusicTrack.name)
        let composer = E.KeyPath(root: t, keyPath: \MusicTrack.composer)
        let album = E.KeyPath(root: t, keyPath: \MusicTrack.album)
        switch number(17) {
        case 0: return AnyCondition(E.Comparison(lhs: ms, rhs: E.Value(number(600_000)), op: order()))
        case 1: return AnyCondition(E.Equal(lhs: E.KeyPath(root: t, keyPath: \MusicTrack.unitPrice), rhs: E.Value(pick([0.99, 1.99, 0.0]))))
        case 2: return AnyCondition(E.SequenceStartsWith(base: name, prefix: E.Value(word())))
        case 3: return AnyCondition(E.CollectionContainsCollection(base: name, other: E.Value(word())))
        case 4: return AnyCondition(E.Equal(lhs: composer, rhs: E.NilLiteral<String>()))
        case 5: return AnyCondition(E.NotEqual(lhs: composer, rhs: E.Value<String?>(word())))
        case 6: return AnyCondition(E.Equal(lhs: composer, rhs: E.Value<String?>(word())))
        case 7: return AnyCondition(E.KeyPath(root: t, keyPath: \MusicTrack.explicit))
        case 8: return AnyCondition(E.Equal(lhs: E.KeyPath(root: t, keyPath: \MusicTrack.kind), rhs: E.Value(pick(MediaKind.allCases))))
        case 9:
            let prefix = word()
            let title = E.OptionalFlatMap(album) { a in E.SequenceStartsWith(base: E.KeyPath(root: a, keyPath: \MusicAlbum.title), prefix: E.Value(prefix)) }
            return AnyCondition(E.Equal(lhs: title, rhs: E.Value<Bool?>(pick([true, false]))))
        case 10:
            return AnyCondition(E.Equal(lhs: E.NilCoalesce(lhs: composer, rhs: E.Value(pick(["", "Blue"]))), rhs: E.Value(word())))
        case 11:
            let low = number(400_000)
            return AnyCondition(E.RangeExpressionContains(range: E.ClosedRange(lower: E.Value(low), upper: E.Value(low + number(300_000))),
                                                          element: ms))
        case 12:
            let sum = E.Arithmetic(lhs: ms, rhs: E.Value(number(1_000)), op: pick([.add, .subtract, .multiply]))
            return AnyCondition(E.Comparison(lhs: sum, rhs: E.Value(number(600_000)), op: order()))
        case 13:
            let artist = E.OptionalFlatMap(album) { a in E.KeyPath(root: a, keyPath: \MusicAlbum.artist) }
            let artistName = E.OptionalFlatMap(artist) { a in E.KeyPath(root: a, keyPath: \MusicArtist.name) }
            return AnyCondition(E.Equal(lhs: artistName, rhs: E.Value<String?>(word())))
        case 14:
            let date = Date(timeIntervalSince1970: Double(900_000_000 + number(600_000_000)))
            let released = E.OptionalFlatMap(album) { a in E.KeyPath(root: a, keyPath: \MusicAlbum.released) }
            return AnyCondition(E.Comparison(lhs: E.NilCoalesce(lhs: released, rhs: E.Value(Date(timeIntervalSince1970: 0))),
                                             rhs: E.Value(date), op: order()))
        case 15:
            let choice = E.Conditional(test: E.KeyPath(root: t, keyPath: \MusicTrack.explicit), trueBranch: ms, falseBranch: E.Value(number(600_000)))
            return AnyCondition(E.Comparison(lhs: choice, rhs: E.Value(number(600_000)), op: order()))
        default:
            let divisor = 1 + number(9)
            return AnyCondition(E.Equal(lhs: E.IntRemainder(lhs: E.IntDivision(lhs: ms, rhs: E.Value(1_000)), rhs: E.Value(divisor)),
                                        rhs: E.Value(number(divisor))))
        }
    }

    mutating func albumAtom(_ a: Album) -> AnyCondition {
        typealias E = PredicateExpressions
        let tracks = E.KeyPath(root: a, keyPath: \MusicAlbum.tracks)
        switch number(7) {
        case 0:
            var inner = self
            let test = E.SequenceContainsWhere(tracks) { t in inner.trackAtom(t) }
            self = inner
            return AnyCondition(test)
        case 1:
            var inner = self
            let test = E.SequenceAllSatisfy(tracks) { t in inner.trackAtom(t) }
            self = inner
            return AnyCondition(test)
        case 2:
            var inner = self
            let kept = E.Filter(tracks) { t in inner.trackAtom(t) }
            self = inner
            return AnyCondition(E.Comparison(lhs: E.KeyPath(root: kept, keyPath: \[MusicTrack].count), rhs: E.Value(number(4)), op: order()))
        case 3:
            return AnyCondition(E.Comparison(lhs: E.KeyPath(root: tracks, keyPath: \[MusicTrack].count), rhs: E.Value(number(8)), op: order()))
        case 4: return AnyCondition(E.KeyPath(root: tracks, keyPath: \[MusicTrack].isEmpty))
        case 5:
            return AnyCondition(E.SequenceStartsWith(base: E.KeyPath(root: a, keyPath: \MusicAlbum.title), prefix: E.Value(word())))
        default:
            let artist = E.KeyPath(root: a, keyPath: \MusicAlbum.artist)
            let name = E.OptionalFlatMap(artist) { x in E.KeyPath(root: x, keyPath: \MusicArtist.name) }
            return AnyCondition(E.NotEqual(lhs: name, rhs: E.Value<String?>(word())))
        }
    }
}
