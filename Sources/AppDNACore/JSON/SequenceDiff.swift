/// A shortest edit script between two sequences in linear space: Myers' O(ND) algorithm with
/// the bisection ("middle snake") refinement, after trimming the common prefix and suffix.
/// Memory is O(N + M) per level of recursion; it never builds an N × M table.
public enum SequenceDiff {
    public enum Edit: Equatable, Sendable {
        /// `a[old]` is kept as `b[new]`.
        case keep(old: Int, new: Int)
        case delete(old: Int)
        case insert(new: Int)
    }

    /// The edits turning `a` (count `n`) into `b` (count `m`), in order; `equal(i, j)` compares
    /// `a[i]` with `b[j]`.
    public static func edits(_ n: Int, _ m: Int, equal: (Int, Int) -> Bool) -> [Edit] {
        var out: [Edit] = []
        out.reserveCapacity(max(n, m))
        diff(0, n, 0, m, equal: equal, into: &out)
        return out
    }

    private static func diff(_ a0: Int, _ a1: Int, _ b0: Int, _ b1: Int, equal: (Int, Int) -> Bool, into out: inout [Edit]) {
        var a0 = a0, b0 = b0, a1 = a1, b1 = b1
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
        if a0 == a1 {
            for j in b0..<b1 { out.append(.insert(new: j)) }
        } else if b0 == b1 {
            for i in a0..<a1 { out.append(.delete(old: i)) }
        } else if let (x, y) = bisect(a0, a1, b0, b1, equal: equal), (x, y) != (a0, b0), (x, y) != (a1, b1) {
            diff(a0, x, b0, y, equal: equal, into: &out)
            diff(x, a1, y, b1, equal: equal, into: &out)
        } else {
            for i in a0..<a1 { out.append(.delete(old: i)) }
            for j in b0..<b1 { out.append(.insert(new: j)) }
        }
        for k in 0..<suffix { out.append(.keep(old: a1 + k, new: b1 + k)) }
    }

    /// Where the forward and backward searches for a shortest path meet (absolute indices),
    /// or nil when the ranges have nothing in common.
    private static func bisect(_ a0: Int, _ a1: Int, _ b0: Int, _ b1: Int, equal: (Int, Int) -> Bool) -> (Int, Int)? {
        let n = a1 - a0, m = b1 - b0
        let maxD = (n + m + 1) / 2
        let offset = maxD
        let length = 2 * maxD + 2
        var v1 = [Int](repeating: -1, count: length)
        var v2 = [Int](repeating: -1, count: length)
        v1[offset + 1] = 0
        v2[offset + 1] = 0
        let delta = n - m
        let front = delta % 2 != 0
        var k1start = 0, k1end = 0, k2start = 0, k2end = 0
        for d in 0..<maxD {
            var k1 = -d + k1start
            while k1 <= d - k1end {
                let k1o = offset + k1
                var x1 = (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1])) ? v1[k1o + 1] : v1[k1o - 1] + 1
                var y1 = x1 - k1
                while x1 < n && y1 < m && equal(a0 + x1, b0 + y1) {
                    x1 += 1
                    y1 += 1
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
                while x2 < n && y2 < m && equal(a0 + n - x2 - 1, b0 + m - y2 - 1) {
                    x2 += 1
                    y2 += 1
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
        }
        return nil
    }
}
