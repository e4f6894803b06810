import PortalPredicate

/// The seeded generator (SplitMix64), so every run tests the same cases.
typealias SeededGenerator = SplitMix64
