/// `appdna warehouse srm`: a sample-ratio mismatch check per running experiment, over an
/// exposures table in the warehouse. Per variant: the distinct users exposed, the share of the
/// 10,000 buckets devices give it (truncated weights, last-variant fallback:
/// `VariantAllocation`), and per experiment the chi-square statistic of the observed counts
/// against those shares, its degrees of freedom, the p-value, and `sample_ratio_mismatch` when
/// p < 0.001 — the names `bucket --summary --json` uses. Types on every engine: text, text,
/// 64-bit integer, double, double, 64-bit integer, double (within [0, 1]), boolean.
///
/// The p-value is exact for every number of variants: the closed form of the chi-square tail
/// for integer degrees of freedom (`SQLMath.chiSquareTail`), written out for each experiment's
/// degrees of freedom, with the engine's erfc (`SQLEngine.erfc`).
public struct SampleRatioSQL {
    public let engine: any SQLEngine
    public let exposures: ExposuresTable

    public init(engine: any SQLEngine, exposures: ExposuresTable) {
        self.engine = engine
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
        let sql = WarehouseSQL(engine: engine)
        var branches: [String] = []
        for experiment in experiments where experiment.status == "running" {  // not an id: a status word
            let shares = Self.expectedShares(experiment)
            guard shares.count >= 2 else { continue }
            let expected = shares.map { "SELECT \(sql.literal($0.variant)) AS variant, \(sql.doubleLiteral($0.share)) AS expected_share" }
                .joined(separator: " UNION ALL ")
            let pValue = SQLMath.chiSquareTail("chi_square", degrees: shares.count - 1, engine: engine)
            branches.append("""
            SELECT experiment, variant, \(engine.integer("users")) AS users, expected_share, chi_square, degrees_of_freedom, p_value,
              \(engine.boolean("p_value < 0.001")) AS sample_ratio_mismatch
            FROM (SELECT experiment, variant, users, expected_share, chi_square, degrees_of_freedom, \(pValue) AS p_value
              FROM (SELECT experiment, variant, users, expected_share, \(engine.integer(String(shares.count - 1))) AS degrees_of_freedom,
                      sum(CASE WHEN total = 0 THEN 0 ELSE (users - total * expected_share) * (users - total * expected_share) / (total * expected_share) END)
                        OVER (PARTITION BY experiment) AS chi_square
                FROM (SELECT experiment, variant, users, expected_share, sum(users) OVER (PARTITION BY experiment) AS total
                  FROM (SELECT \(sql.literal(experiment.id)) AS experiment, e.variant AS variant, \(engine.double("coalesce(o.users, 0)")) AS users, e.expected_share AS expected_share
                    FROM (\(expected)) AS e
                    LEFT JOIN (SELECT \(exposures.variant) AS variant, count(DISTINCT \(exposures.user)) AS users FROM \(exposures.table)
                               WHERE \(exposures.experiment) = \(sql.literal(experiment.id)) GROUP BY \(exposures.variant)) AS o
                    ON o.variant = e.variant) AS counted) AS totalled) AS tested) AS judged
            """)
        }
        guard !branches.isEmpty else { return "SELECT 1 WHERE 1 = 0\n" }
        return "SELECT * FROM (\n" + branches.joined(separator: "\nUNION ALL\n") + "\n) AS srm_rows ORDER BY experiment, variant\n"
    }
}
