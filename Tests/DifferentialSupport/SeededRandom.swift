import PortalPredicate

/// The seeded generator of the differential, robustness and stress tests.
public typealias SeededRandom = SplitMix64

public extension SplitMix64 {
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...(choices.count - 1))] }
}
