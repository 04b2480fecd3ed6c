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
        let grid = Grid(a0: a0, b0: b0, n: n, m: m, offset: maxD, length: 2 * maxD + 2)
        var forward = Frontier(grid), backward = Frontier(grid)
        // Myers: with n - m odd the two searches first overlap in a forward round, with it even
        // in a backward one, so only that direction looks for the other.
        let forwardMeets = grid.delta % 2 != 0
        var d = 0
        while d < maxD && budget > 0 {
            if let point = extend(&forward, d: d, backward: false, meeting: forwardMeets ? backward : nil, grid, budget: &budget, equal: equal) {
                return point
            }
            if let point = extend(&backward, d: d, backward: true, meeting: forwardMeets ? nil : forward, grid, budget: &budget, equal: equal) {
                return point
            }
            d += 1
        }
        // No meeting point within the limits: split where a search got furthest. Any split is
        // valid (each half is diffed on its own); the furthest one keeps the most work done.
        var best: (x: Int, y: Int)? = nil
        var bestAdvance = 0
        let reach = min(d, maxD)
        for k in -reach...reach {
            let ko = grid.offset + k
            guard ko >= 0 && ko < grid.length else { continue }
            let x1 = forward.x[ko], y1 = x1 - k
            if x1 >= 0 && x1 <= n && y1 >= 0 && y1 <= m && x1 + y1 > bestAdvance {
                best = (x1, y1)
                bestAdvance = x1 + y1
            }
            let x2 = backward.x[ko], y2 = x2 - k
            if x2 >= 0 && x2 <= n && y2 >= 0 && y2 <= m && x2 + y2 > bestAdvance {
                best = (n - x2, m - y2)
                bestAdvance = x2 + y2
            }
        }
        return best.map { (a0 + $0.x, b0 + $0.y) }
    }

    /// The ranges one `split` works on: `n` elements of `a` from `a0`, `m` of `b` from `b0`;
    /// diagonal k (x - y = k) is kept at index `offset + k` of a `Frontier` of `length`.
    private struct Grid {
        let a0: Int, b0: Int, n: Int, m: Int, offset: Int, length: Int
        var delta: Int { n - m }
    }

    /// One search of `split`: on each diagonal, the furthest x it has reached (-1: not yet),
    /// counted from the start of both ranges (forward) or from their ends (backward); and how
    /// many diagonals at either end it has stopped walking because they left the grid.
    private struct Frontier {
        var x: [Int]
        var kStart = 0, kEnd = 0

        init(_ grid: Grid) {
            x = [Int](repeating: -1, count: grid.length)
            x[grid.offset + 1] = 0
        }
    }

    /// Round `d` of one search: each diagonal it reaches is entered from its better neighbour
    /// and followed along equal elements (a snake). The backward search compares from the
    /// ends. When `meeting` (the other search) is given, returns the split point (the forward
    /// search's end on that diagonal, absolute) as soon as the two overlap on a diagonal.
    /// Inlined, so that `backward` is a constant in each copy: this is the diff's inner loop.
    @inline(__always)
    private static func extend(_ search: inout Frontier, d: Int, backward: Bool, meeting other: Frontier?, _ grid: Grid,
                               budget: inout Int, equal: (Int, Int) -> Bool) -> (Int, Int)? {
        let n = grid.n, m = grid.m, offset = grid.offset
        var k = -d + search.kStart
        while k <= d - search.kEnd {
            let ko = offset + k
            var x = (k == -d || (k != d && search.x[ko - 1] < search.x[ko + 1])) ? search.x[ko + 1] : search.x[ko - 1] + 1
            var y = x - k
            budget -= 1
            while x < n && y < m && (backward ? equal(grid.a0 + n - x - 1, grid.b0 + m - y - 1) : equal(grid.a0 + x, grid.b0 + y)) {
                x += 1
                y += 1
                budget -= 1
            }
            search.x[ko] = x
            if x > n {
                search.kEnd += 2
            } else if y > m {
                search.kStart += 2
            } else if let other {
                // The other search's diagonal through the same points.
                let otherKo = offset + grid.delta - k
                if otherKo >= 0 && otherKo < grid.length && other.x[otherKo] != -1 {
                    let forwardX = backward ? other.x[otherKo] : x
                    let backwardX = backward ? x : other.x[otherKo]
                    if forwardX >= n - backwardX {
                        let forwardK = backward ? otherKo - offset : k
                        return (grid.a0 + forwardX, grid.b0 + forwardX - forwardK)
                    }
                }
            }
            k += 2
        }
        return nil
    }
}
