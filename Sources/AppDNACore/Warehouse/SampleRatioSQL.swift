/// `queue inspect --bundle FILE --sql DIALECT --exposures TABLE --srm`: a sample-ratio mismatch
/// check per running experiment, over an exposures table in the warehouse. Per variant: the
/// distinct users exposed, the share of the 10,000 buckets devices give it (truncated weights,
/// last-variant fallback: `VariantAllocation`), and per experiment the chi-square statistic of
/// the observed counts against those shares, its degrees of freedom, the p-value, and `srm` = 1
/// when p < 0.001.
///
/// The p-value is exact for every number of variants: the chi-square tail for integer degrees
/// of freedom k has a closed form (even k: e^(−x/2) Σ_{i<k/2} (x/2)^i / i!; odd k:
/// erfc(√(x/2)) + e^(−x/2) Σ_{i=1}^{(k−1)/2} x^(i−1/2) / (√2 Γ(i+1/2))), written out for each
/// experiment's k. erfc is ClickHouse's own; Spark and DuckDB have none, so it is the Numerical
/// Recipes Chebyshev fit (fractional error below 1.2e−7 for every argument).
public struct SampleRatioSQL {
    public let dialect: SQLDialect
    public let exposures: ExposuresTable

    public init(dialect: SQLDialect, exposures: ExposuresTable) {
        self.dialect = dialect
        self.exposures = exposures
    }

    /// The shares of the buckets each variant id owns (ids by bytes, in array order of first
    /// appearance), leaving out variants that own none.
    public static func expectedShares(_ experiment: ExperimentDefinition) -> [(variant: String, share: Double)] {
        var shares: [(variant: String, buckets: UInt32)] = []
        for range in experiment.allocation.ranges where range.bucketCount > 0 {
            if let index = shares.firstIndex(where: { ByteIdentity.same($0.variant, range.variant) }) {
                shares[index].buckets += range.bucketCount
            } else {
                shares.append((range.variant, range.bucketCount))
            }
        }
        return shares.map { ($0.variant, Double($0.buckets) / 10_000) }
    }

    /// The query over the running experiments that split users between at least two variants.
    public func query(_ experiments: [ExperimentDefinition]) -> String {
        let sql = WarehouseSQL(dialect: dialect)
        var branches: [String] = []
        for experiment in experiments where experiment.status == "running" {  // not an id: a status word
            let shares = Self.expectedShares(experiment)
            guard shares.count >= 2 else { continue }
            let expected = shares.map { "SELECT \(sql.literal($0.variant)) AS variant, CAST(\($0.share) AS DOUBLE) AS expected_share" }
                .joined(separator: " UNION ALL ")
            let pValue = Self.chiSquareTail("chi_square", degrees: shares.count - 1, sql: sql)
            branches.append("""
            SELECT experiment, variant, users, expected_share, chi_square, df, p_value, CASE WHEN p_value < 0.001 THEN 1 ELSE 0 END AS srm
            FROM (SELECT experiment, variant, users, expected_share, chi_square, df, \(pValue) AS p_value
              FROM (SELECT experiment, variant, users, expected_share, \(shares.count - 1) AS df,
                      sum(CASE WHEN total = 0 THEN 0 ELSE (users - total * expected_share) * (users - total * expected_share) / (total * expected_share) END)
                        OVER (PARTITION BY experiment) AS chi_square
                FROM (SELECT experiment, variant, users, expected_share, sum(users) OVER (PARTITION BY experiment) AS total
                  FROM (SELECT \(sql.literal(experiment.id)) AS experiment, e.variant AS variant, CAST(coalesce(o.users, 0) AS DOUBLE) AS users, e.expected_share AS expected_share
                    FROM (\(expected)) AS e
                    LEFT JOIN (SELECT \(exposures.variant) AS variant, count(DISTINCT \(exposures.user)) AS users FROM \(exposures.table)
                               WHERE \(exposures.experiment) = \(sql.literal(experiment.id)) GROUP BY \(exposures.variant)) AS o
                    ON o.variant = e.variant) AS counted) AS totalled) AS tested) AS judged
            """)
        }
        guard !branches.isEmpty else { return "SELECT 1 WHERE 1 = 0\n" }
        return "SELECT * FROM (\n" + branches.joined(separator: "\nUNION ALL\n") + "\n) AS srm_rows ORDER BY experiment, variant\n"
    }

    /// P(χ²_k > x) for integer k ≥ 1, as SQL over the expression `x`.
    static func chiSquareTail(_ x: String, degrees k: Int, sql: WarehouseSQL) -> String {
        let half = "(\(x) / 2.0)"
        var terms: [String] = []
        if k % 2 == 0 {
            // e^(−x/2) Σ_{i=0}^{k/2−1} (x/2)^i / i!
            var factorial = 1.0
            for i in 0..<(k / 2) {
                if i > 0 { factorial *= Double(i) }
                terms.append(i == 0 ? "1.0" : "pow(\(half), \(i)) / \(factorial)")
            }
            return "(exp(-\(half)) * (\(terms.joined(separator: " + "))))"
        }
        // erfc(√(x/2)) + e^(−x/2) Σ_{i=1}^{(k−1)/2} x^(i−1/2) / (1·3·…·(2i−1)) · √(2/π)
        var product = 1.0
        for i in stride(from: 1, through: (k - 1) / 2, by: 1) {
            product *= Double(2 * i - 1)
            terms.append("pow(\(x), \(Double(i) - 0.5)) / \(product)")
        }
        let erfc = Self.erfc("sqrt(\(half))", sql: sql)
        guard !terms.isEmpty else { return erfc }
        return "(\(erfc) + exp(-\(half)) * sqrt(2.0 / pi()) * (\(terms.joined(separator: " + "))))"
    }

    /// erfc of a non-negative `z`: ClickHouse's own, else the Numerical Recipes fit.
    static func erfc(_ z: String, sql: WarehouseSQL) -> String {
        if sql.dialect == .clickhouse { return "erfc(\(z))" }
        let t = "(1.0 / (1.0 + 0.5 * \(z)))"
        let coefficients = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277]
        var polynomial = "\(coefficients.last!)"
        for c in coefficients.dropLast().reversed() { polynomial = "(\(c) + \(t) * \(polynomial))" }
        return "(\(t) * exp(-(\(z)) * (\(z)) + \(polynomial)))"
    }
}
