/// Sample-ratio-mismatch check: are observed variant counts plausible for the expected split?
/// Pearson's chi-square statistic and its p-value (upper tail of the chi-square distribution).
public struct SampleRatioMismatch: Sendable {
    public let statistic: Double
    public let degreesOfFreedom: Int
    public let pValue: Double

    /// `observed[i]` users landed in variant i, which should get `expectedShare[i]` of them.
    /// Variants expected to get nobody are left out (they contribute no degrees of freedom).
    public init(observed: [Int], expectedShare: [Double]) {
        let total = Double(observed.reduce(0, +))
        var statistic = 0.0
        var cells = 0
        for (count, share) in zip(observed, expectedShare) where share > 0 {
            let expected = total * share
            statistic += (Double(count) - expected) * (Double(count) - expected) / expected
            cells += 1
        }
        self.statistic = total > 0 ? statistic : 0
        self.degreesOfFreedom = max(cells - 1, 0)
        self.pValue = degreesOfFreedom == 0 || total == 0
            ? 1 : ChiSquare.upperTail(statistic: self.statistic, degreesOfFreedom: degreesOfFreedom)
    }
}

/// The chi-square distribution's survival function via the regularised upper incomplete gamma
/// function Q(k/2, x/2): a series below a + 1, a continued fraction (Lentz) above.
public enum ChiSquare {
    public static func upperTail(statistic x: Double, degreesOfFreedom k: Int) -> Double {
        guard x > 0 else { return 1 }
        return regularizedUpperGamma(a: Double(k) / 2, x: x / 2)
    }

    static func regularizedUpperGamma(a: Double, x: Double) -> Double {
        let logPrefix = a * CMath.log(x) - x - CMath.logGamma(a)
        if x < a + 1 {
            var sum = 1 / a, term = sum, n = a
            for _ in 0..<10_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-15 { break }
            }
            return max(0, min(1, 1 - sum * CMath.exp(logPrefix)))
        }
        let tiny = 1e-300
        var b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d
        for i in 1...10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-15 { break }
        }
        return max(0, min(1, CMath.exp(logPrefix) * h))
    }
}
