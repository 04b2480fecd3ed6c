/// Numeric pieces of the SRM query spelled from plain arithmetic, for any engine.
enum SQLMath {
    /// erfc of a non-negative `z` by the Numerical Recipes Chebyshev fit (fractional error
    /// below 1.2e−7 for every argument), for engines without an erfc of their own.
    static func erfcFit(_ z: String) -> String {
        let t = "(1.0 / (1.0 + 0.5 * \(z)))"
        let coefficients = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277]
        var polynomial = "\(coefficients.last!)"
        for c in coefficients.dropLast().reversed() { polynomial = "(\(c) + \(t) * \(polynomial))" }
        return "(\(t) * exp(-(\(z)) * (\(z)) + \(polynomial)))"
    }

    /// P(χ²_k > x) for integer k ≥ 1, as SQL over the expression `x`: the closed form of the
    /// tail (even k: e^(−x/2) Σ_{i<k/2} (x/2)^i / i!; odd k: erfc(√(x/2)) + e^(−x/2)
    /// Σ_{i=1}^{(k−1)/2} x^(i−1/2) / (√2 Γ(i+1/2))), kept within [0, 1] (the erfc fit may
    /// overshoot 1 by its error where x is near 0).
    static func chiSquareTail(_ x: String, degrees k: Int, engine: any SQLEngine) -> String {
        let half = "(\(x) / 2.0)"
        var terms: [String] = []
        let tail: String
        if k % 2 == 0 {
            var factorial = 1.0
            for i in 0..<(k / 2) {
                if i > 0 { factorial *= Double(i) }
                terms.append(i == 0 ? "1.0" : "pow(\(half), \(i)) / \(factorial)")
            }
            tail = "(exp(-\(half)) * (\(terms.joined(separator: " + "))))"
        } else {
            // erfc(√(x/2)) + e^(−x/2) Σ_{i=1}^{(k−1)/2} x^(i−1/2) / (1·3·…·(2i−1)) · √(2/π)
            var product = 1.0
            for i in stride(from: 1, through: (k - 1) / 2, by: 1) {
                product *= Double(2 * i - 1)
                terms.append("pow(\(x), \(Double(i) - 0.5)) / \(product)")
            }
            let erfc = engine.erfc("sqrt(\(half))")
            tail = terms.isEmpty ? erfc : "(\(erfc) + exp(-\(half)) * sqrt(2.0 / pi()) * (\(terms.joined(separator: " + "))))"
        }
        return "least(greatest(\(tail), 0.0), 1.0)"
    }
}
