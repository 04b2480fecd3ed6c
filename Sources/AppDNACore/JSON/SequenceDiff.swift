/// An edit script between two sequences in linear space and bounded time: Myers' O(ND)
/// algorithm with the bisection ("middle snake") refinement, after trimming the common prefix
/// and suffix. Memory is O(N + M); it never builds an N × M table.
///
/// Myers takes time proportional to N × D, so two long sequences that share little in order
/// (a reversed or shuffled array: D ≈ N + M) would take hours. Two limits keep it bounded,
/// the way GNU diff and git's xdiff do:
/// - one middle-snake search stops after `searchLimit` edits and splits the range at the
///   furthest point its searches reached (a valid but possibly longer script);
/// - all searches together get a budget proportional to N + M; once it is spent, each range
///   left is written as "delete all, insert all".
/// The script is then not always the shortest, but it is always correct (replaying it turns
/// the first sequence into the second), and small edits in long sequences stay minimal.
public enum SequenceDiff {
    public enum Edit: Equatable, Sendable {
        /// `a[old]` is kept as `b[new]`.
        case keep(old: Int, new: Int)
        case delete(old: Int)
        case insert(new: Int)
    }

    /// How many edits one middle-snake search explores before it settles for a heuristic split.
    static let searchLimit = 1024
    /// Search steps allowed per element of both sequences, on top of `fixedBudget`.
    static let budgetPerElement = 64
    static let fixedBudget = 1 << 22

    /// The edits turning `a` (count `n`) into `b` (count `m`), in order; `equal(i, j)` compares
    /// `a[i]` with `b[j]`.
    public static func edits(_ n: Int, _ m: Int, equal: (Int, Int) -> Bool) -> [Edit] {
        var out: [Edit] = []
        out.reserveCapacity(max(n, m))
        var budget = fixedBudget + budgetPerElement * (n + m)
        // An explicit stack instead of recursion: heuristic splits can nest deeply.
        enum Task {
            case range(a0: Int, a1: Int, b0: Int, b1: Int)
            case keepRun(old: Int, new: Int, count: Int)
        }
        var tasks: [Task] = [.range(a0: 0, a1: n, b0: 0, b1: m)]
        while let task = tasks.popLast() {
            switch task {
            case let .keepRun(old, new, count):
                for k in 0..<count { out.append(.keep(old: old + k, new: new + k)) }
            case var .range(a0, a1, b0, b1):
                while a0 < a1 && b0 < b1 && equal(a0, b0) {
                    out.append(.keep(old: a0, new: b0))
                    a0 += 1
                    b0 += 1
                }
                var suffix = 0
                while a1 > a0 && b1 > b0 && equal(a1 - 1, b1 - 1) {
                    a1 -= 1
                    b1 -= 1
                    suffix += 1
                }
                if suffix > 0 { tasks.append(.keepRun(old: a1, new: b1, count: suffix)) }
                if a0 == a1 {
                    for j in b0..<b1 { out.append(.insert(new: j)) }
                } else if b0 == b1 {
                    for i in a0..<a1 { out.append(.delete(old: i)) }
                } else if budget > 0, let (x, y) = split(a0, a1, b0, b1, budget: &budget, equal: equal),
                          (x, y) != (a0, b0), (x, y) != (a1, b1) {
                    // Left half first: it is popped first.
                    tasks.append(.range(a0: x, a1: a1, b0: y, b1: b1))
                    tasks.append(.range(a0: a0, a1: x, b0: b0, b1: y))
                } else {
                    for i in a0..<a1 { out.append(.delete(old: i)) }
                    for j in b0..<b1 { out.append(.insert(new: j)) }
                }
            }
        }
        return out
    }

    /// Where to split the ranges (absolute indices): where the forward and backward searches
    /// for a shortest path meet, or, when that takes more than `searchLimit` edits or the
    /// budget runs out, the point either search got furthest to. Nil when there is none.
    private static func split(_ a0: Int, _ a1: Int, _ b0: Int, _ b1: Int, budget: inout Int, equal: (Int, Int) -> Bool) -> (Int, Int)? {
        let n = a1 - a0, m = b1 - b0
        let maxD = min((n + m + 1) / 2, searchLimit)
        let offset = maxD
        let length = 2 * maxD + 2
        var v1 = [Int](repeating: -1, count: length)
        var v2 = [Int](repeating: -1, count: length)
        v1[offset + 1] = 0
        v2[offset + 1] = 0
        let delta = n - m
        let front = delta % 2 != 0
        var k1start = 0, k1end = 0, k2start = 0, k2end = 0
        var d = 0
        while d < maxD && budget > 0 {
            var k1 = -d + k1start
            while k1 <= d - k1end {
                let k1o = offset + k1
                var x1 = (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1])) ? v1[k1o + 1] : v1[k1o - 1] + 1
                var y1 = x1 - k1
                budget -= 1
                while x1 < n && y1 < m && equal(a0 + x1, b0 + y1) {
                    x1 += 1
                    y1 += 1
                    budget -= 1
                }
                v1[k1o] = x1
                if x1 > n {
                    k1end += 2
                } else if y1 > m {
                    k1start += 2
                } else if front {
                    let k2o = offset + delta - k1
                    if k2o >= 0 && k2o < length && v2[k2o] != -1 {
                        let x2 = n - v2[k2o]
                        if x1 >= x2 { return (a0 + x1, b0 + y1) }
                    }
                }
                k1 += 2
            }
            var k2 = -d + k2start
            while k2 <= d - k2end {
                let k2o = offset + k2
                var x2 = (k2 == -d || (k2 != d && v2[k2o - 1] < v2[k2o + 1])) ? v2[k2o + 1] : v2[k2o - 1] + 1
                var y2 = x2 - k2
                budget -= 1
                while x2 < n && y2 < m && equal(a0 + n - x2 - 1, b0 + m - y2 - 1) {
                    x2 += 1
                    y2 += 1
                    budget -= 1
                }
                v2[k2o] = x2
                if x2 > n {
                    k2end += 2
                } else if y2 > m {
                    k2start += 2
                } else if !front {
                    let k1o = offset + delta - k2
                    if k1o >= 0 && k1o < length && v1[k1o] != -1 {
                        let x1 = v1[k1o]
                        let y1 = offset + x1 - k1o
                        if x1 >= n - x2 { return (a0 + x1, b0 + y1) }
                    }
                }
                k2 += 2
            }
            d += 1
        }
        // No meeting point within the limits: split where a search got furthest. Any split is
        // valid (each half is diffed on its own); the furthest one keeps the most work done.
        var best: (x: Int, y: Int)? = nil
        var bestAdvance = 0
        let reach = min(d, maxD)
        for k in -reach...reach {
            let ko = offset + k
            guard ko >= 0 && ko < length else { continue }
            let x1 = v1[ko], y1 = x1 - k
            if x1 >= 0 && x1 <= n && y1 >= 0 && y1 <= m && x1 + y1 > bestAdvance {
                best = (x1, y1)
                bestAdvance = x1 + y1
            }
            let x2 = v2[ko], y2 = x2 - k
            if x2 >= 0 && x2 <= n && y2 >= 0 && y2 <= m && x2 + y2 > bestAdvance {
                best = (n - x2, m - y2)
                bestAdvance = x2 + y2
            }
        }
        return best.map { (a0 + $0.x, b0 + $0.y) }
    }
}
