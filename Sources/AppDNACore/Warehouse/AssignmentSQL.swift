/// `appdna warehouse assignment`: one query that returns, for every user of a table and every
/// experiment, `user_id, experiment, bucket, variant, eligible` with the values
/// `bucket - --bundle FILE --format ndjson` prints (bucket and variant from the chosen scheme;
/// eligibility from status, platforms, targeting and traffic allocation as devices judge them,
/// see docs/assignment-rules.md). Types on every engine: text, text, 64-bit integer, text
/// (NULL without a variant), text ('yes', 'no', 'unknown').
public struct AssignmentSQL {
    public let engine: any SQLEngine
    public let scheme: BucketingScheme
    public let columns: WarehouseColumns

    public init(engine: any SQLEngine, scheme: BucketingScheme, columns: WarehouseColumns) {
        self.engine = engine
        self.scheme = scheme
        self.columns = columns
    }

    /// The query for `experiments` (in this order), one UNION ALL branch each.
    public func query(_ experiments: [ExperimentDefinition]) -> String {
        experiments.enumerated().map { branch($1, number: $0 + 1) }.joined(separator: "\nUNION ALL\n") + "\n"
    }

    private func branch(_ experiment: ExperimentDefinition, number: Int) -> String {
        let sql = WarehouseSQL(engine: engine)
        // The user id and the context columns the rules read, as text, under their own names
        // (an integer id is hashed as its digits, as `bucket -` reads it from a line).
        let context = columns.carried(by: engine, except: columns.user)
        var rows = SQLRelation(engine: engine, source: "(SELECT \(engine.text(columns.user)) AS user_id\(context) FROM \(columns.table))", name: "e\(number)")
        let eligibility = SQLEligibility(sql: sql, columns: columns)
        let assigned: WarehouseSQL.Bucket
        switch scheme {
        case .sdk: assigned = .sdk(experiment: experiment.id, salt: scheme.effectiveSalt(experiment.salt, experiment: experiment.id), user: "user_id")
        case .docs: assigned = .docs(experiment: experiment.id, salt: experiment.salt, user: "user_id")
        }
        // The variant's bucket and traffic allocation's, side by side.
        let buckets = sql.bind([assigned] + [eligibility.allocationBucket(experiment)].compactMap { $0 }, in: &rows)
        let bucket = buckets[0]
        let rules = eligibility.rules(experiment, allocationBucket: buckets.dropFirst().first)
        let (eligible, mayAssign) = SQLRuleVerdict.eligibleColumn(rules)
        let variant = sql.variant(VariantAllocation(weights: experiment.variants, bucketCount: scheme.bucketCount), bucket: bucket)
        return rows.select("user_id, \(sql.literal(experiment.id)) AS experiment, \(engine.integer(bucket)) AS bucket, "
                           + "CASE WHEN \(mayAssign) THEN \(variant) ELSE \(engine.nullText) END AS variant, \(eligible) AS eligible")
    }
}
