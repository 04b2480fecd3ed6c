/// "Did you mean …?" for mistyped commands, flags, choices and ids (an experiment the bundle
/// does not have).
public enum Suggestions {
    /// The candidates closest to `word`, best first: those within a small edit distance
    /// (transpositions count as one edit) or that `word` is a prefix of.
    public static func closest(to word: String, among candidates: [String]) -> [String] {
        closestIndices(to: word, among: candidates).map { candidates[$0] }
    }

    /// The same, as indexes into `candidates` (two ids may read alike, NFC beside NFD, and
    /// only their place tells them apart).
    public static func closestIndices(to word: String, among candidates: [String]) -> [Int] {
        let limit = max(1, min(3, word.count / 3))
        var scored: [(index: Int, distance: Int)] = []
        for (index, candidate) in candidates.enumerated() {
            let distance = editDistance(word, candidate)
            if distance <= limit {
                scored.append((index, distance))
            } else if word.count >= 2 && candidate.hasPrefix(word) {
                scored.append((index, limit + 1))
            }
        }
        return scored.sorted {
            $0.distance != $1.distance ? $0.distance < $1.distance
                : candidates[$0.index] != candidates[$1.index] ? candidates[$0.index] < candidates[$1.index] : $0.index < $1.index
        }.map(\.index)
    }

    /// Optimal string alignment distance over Unicode scalars.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let s = Array(a.unicodeScalars), t = Array(b.unicodeScalars)
        if s.isEmpty { return t.count }
        if t.isEmpty { return s.count }
        var previous2 = [Int](repeating: 0, count: t.count + 1)
        var previous = Array(0...t.count)
        var current = [Int](repeating: 0, count: t.count + 1)
        for i in 1...s.count {
            current[0] = i
            for j in 1...t.count {
                let cost = s[i - 1] == t[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, s[i - 1] == t[j - 2], s[i - 2] == t[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[t.count]
    }

    /// "; did you mean 'x'?" or "" when nothing is close.
    public static func phrase(for word: String, among candidates: [String], prefix: String = "") -> String {
        guard let best = closest(to: word, among: candidates).first else { return "" }
        return "; did you mean '\(prefix)\(best)'?"
    }
}
