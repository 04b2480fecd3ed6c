/// `appdna bucket --sql DIALECT --bundle FILE`: one query that returns, for every user of a
/// table and every experiment, `user_id, experiment, bucket, variant, eligible` with the values
/// `bucket - --bundle FILE --format ndjson` prints (bucket and variant from the chosen scheme;
/// eligibility from status, platforms, targeting and traffic allocation as devices judge them,
/// see docs/assignment-rules.md).
public struct AssignmentSQL {
    public let dialect: SQLDialect
    public let scheme: BucketingScheme
    public let columns: WarehouseColumns

    public init(dialect: SQLDialect, scheme: BucketingScheme, columns: WarehouseColumns) {
        self.dialect = dialect
        self.scheme = scheme
        self.columns = columns
    }

    /// The query for `experiments` (in this order), one UNION ALL branch each.
    public func query(_ experiments: [ExperimentDefinition]) -> String {
        let branches = experiments.map(branch)
        return branches.joined(separator: "\nUNION ALL\n") + "\n"
    }

    private func branch(_ experiment: ExperimentDefinition) -> String {
        let sql = WarehouseSQL(dialect: dialect)
        let user = columns.user
        let bucket = bucketExpression(experiment, user: user)
        let rules = SQLEligibility(sql: sql, columns: columns).rules(experiment)
        let (eligible, mayAssign) = SQLRuleVerdict.eligibleColumn(rules)
        let allocation = VariantAllocation(weights: experiment.variants, bucketCount: scheme.bucketCount)
        let variant = Self.variantExpression(allocation, bucket: "bucket", sql: sql)
        return """
        SELECT user_id, \(sql.literal(experiment.id)) AS experiment, bucket, \
        CASE WHEN \(mayAssign) THEN \(variant) ELSE \(sql.nullString) END AS variant, \(eligible) AS eligible
        FROM (SELECT \(user) AS user_id, \(bucket) AS bucket\(contextColumns) FROM \(columns.table)) AS \(sql.alias)
        """
    }

    /// The context columns carried through the inner select under their own names (the rules
    /// read them by name).
    private var contextColumns: String {
        columns.contextColumns.filter { $0 != columns.user }.map { ", \($0)" }.joined()  // not an id: plain ASCII column names
    }

    /// The bucket of the scheme, as SQL: the fixed part of the hashed string is one literal, the
    /// user id the column.
    private func bucketExpression(_ experiment: ExperimentDefinition, user: String) -> String {
        let sql = WarehouseSQL(dialect: dialect)
        switch scheme {
        case .sdk:
            return sql.sdkBucket(experiment: experiment.id, salt: scheme.effectiveSalt(experiment.salt, experiment: experiment.id), user: user)
        case .docs:
            return "(\(sql.hash(of: "(\(user) || \(sql.literal(experiment.id + experiment.salt)))")) % \(scheme.bucketCount))"
        }
    }

    /// The variant of `bucket`: each non-empty range in array order, the last variant
    /// catching what no range claims; NULL without variants. The exposure audit asks it too.
    static func variantExpression(_ allocation: VariantAllocation, bucket: String, sql: WarehouseSQL) -> String {
        let ranges = allocation.ranges
        guard let last = ranges.last else { return sql.nullString }
        let cases = ranges.dropLast().filter { $0.upper > $0.lower }.map { "WHEN \(bucket) < \($0.upper) THEN \(sql.literal($0.variant))" }
        if cases.isEmpty { return sql.literal(last.variant) }
        return "CASE " + cases.joined(separator: " ") + " ELSE \(sql.literal(last.variant)) END"
    }
}
