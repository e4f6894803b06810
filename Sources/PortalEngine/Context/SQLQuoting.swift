/// Helpers for writing SQL text.
enum SQLText {
    /// `name` as an SQL identifier: in double quotes, inner quotes doubled.
    static func quoted(_ name: String) -> String {
        var result = "\""
        for character in name {
            if character == "\"" { result += "\"\"" } else { result.append(character) }
        }
        return result + "\""
    }

    /// `?, ?, ?` for `count` parameters.
    static func placeholders(_ count: Int) -> String {
        var result = ""
        result.reserveCapacity(count * 3)
        for i in 0..<count { result += i == 0 ? "?" : ", ?" }
        return result
    }
}

/// The name in `candidates` closest to `name` (edit distance, ignoring case), if close enough
/// to be a likely typo.
func closestName(to name: String, in candidates: [String]) -> String? {
    let target = Array(name.lowercased())
    var best: (name: String, distance: Int)?
    for candidate in candidates {
        let distance = levenshteinDistance(target, Array(candidate.lowercased()))
        if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
    }
    guard let best, best.distance <= max(2, target.count / 3) else { return nil }
    return best.name
}

/// Levenshtein distance.
func levenshteinDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
