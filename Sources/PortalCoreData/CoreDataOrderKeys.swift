import PortalEngine

/// The positions Core Data keeps for an ordered relationship (`Z_FOK_…`): not 1, 2, 3 but keys
/// spaced 1024 apart, the first at 2048, so that a row can go between two others without
/// renumbering the rest (the Photos store's sets are numbered 2048, 3072, 4096, …). A change
/// to the set keeps the keys of the rows that stay in order, gives the rows inserted or moved
/// keys between their neighbours', and renumbers the whole set only when there is no room.
enum CoreDataOrderKeys {
    /// The distance between neighbours in a set numbered afresh.
    static let step: Int64 = 1024

    /// The first key of a set numbered afresh.
    static let first: Int64 = 2 * step

    /// The key of the row added last to a set whose greatest key is `last` (nil for an empty set);
    /// nil when a damaged store's greatest key leaves no room above it.
    static func appended(after last: Int64?) -> Int64? {
        let (key, overflow) = (last ?? step).addingReportingOverflow(step)
        return overflow ? nil : key
    }

    /// The key of each row of `targets` (the set in its new order) when the set held `current`
    /// (rows and their keys) before. Rows of `current` left out are not in the answer.
    static func keys(for targets: [Int64], current: [Int64: Int64]) -> [Int64: Int64] {
        let kept = Set(keptInOrder(targets, current: current))
        var result: [Int64: Int64] = [:]
        var index = 0
        var previous: Int64? = nil
        while index < targets.count {
            if kept.contains(targets[index]), let key = current[targets[index]] {
                result[targets[index]] = key
                previous = key
                index += 1
                continue
            }
            // A run of rows to place between the kept rows around it.
            var end = index
            while end < targets.count, !kept.contains(targets[end]) { end += 1 }
            let run = targets[index..<end]
            let next = end < targets.count ? current[targets[end]] : nil
            guard let placed = place(run.count, after: previous, before: next) else { return renumbered(targets) }
            for (target, key) in zip(run, placed) { result[target] = key }
            previous = placed.last
            index = end
        }
        return result
    }

    /// The set numbered afresh: 2048, 3072, …
    static func renumbered(_ targets: [Int64]) -> [Int64: Int64] {
        Dictionary(targets.enumerated().map { ($0.element, first + Int64($0.offset) * step) },
                   uniquingKeysWith: { first, _ in first })
    }

    /// `count` keys after `previous` and before `next`: spaced `step` apart at the end of the
    /// set, else spread evenly in the gap; nil when the gap is too narrow.
    private static func place(_ count: Int, after previous: Int64?, before next: Int64?) -> [Int64]? {
        guard let next else {
            var keys: [Int64] = []
            var last = previous
            for _ in 0..<count {
                guard let key = appended(after: last) else { return nil }
                keys.append(key)
                last = key
            }
            return keys
        }
        let low = previous ?? 0
        let (width, overflow) = next.subtractingReportingOverflow(low)
        let gap = width / Int64(count + 1)
        guard !overflow, gap >= 1 else { return nil }
        return (1...count).map { low + gap * Int64($0) }
    }

    /// The longest run of `targets`, in their new order, whose current keys rise: the rows that
    /// can keep their keys (those outside it were inserted or moved). Patience sorting, so a
    /// large set costs n log n.
    private static func keptInOrder(_ targets: [Int64], current: [Int64: Int64]) -> [Int64] {
        let candidates = targets.compactMap { target in current[target].map { (target: target, key: $0) } }
        // tails[k]: the index of the smallest last key of a rising run of length k + 1.
        var tails: [Int] = []
        var before = [Int](repeating: -1, count: candidates.count)
        for (index, candidate) in candidates.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if candidates[tails[middle]].key < candidate.key { low = middle + 1 } else { high = middle }
            }
            if low > 0 { before[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var chain: [Int64] = []
        var index = tails.last ?? -1
        while index >= 0 {
            chain.append(candidates[index].target)
            index = before[index]
        }
        return chain.reversed()
    }
}
