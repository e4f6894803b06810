/// The name among `candidates` closest to `name` (edit distance, ignoring case) when it is close
/// enough to be a likely typo: the "did you mean …?" of every error that names something unknown.
/// Ties go to the candidate that sorts first, so suggestions are stable.
public func closestName(to name: String, among candidates: [String]) -> String? {
    let target = Array(name.lowercased())
    var best: (name: String, distance: Int)?
    for candidate in candidates.sorted() {
        let distance = editDistance(target, Array(candidate.lowercased()))
        if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
    }
    guard let best, best.distance <= max(2, target.count / 3) else { return nil }
    return best.name
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbours ("Nmae" → "Name") each cost one.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], previous2[j - 2] + 1)
            }
        }
        (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
}
