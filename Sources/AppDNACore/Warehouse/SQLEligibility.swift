/// The eligibility rules of one experiment as SQL over a row (see `Eligibility`, which this
/// mirrors rule for rule, and docs/assignment-rules.md): status, platforms, targeting
/// (countries, min_app_version, new_users_only, user traits) and traffic allocation. What the
/// bundle gets wrong fails closed for every row, as it does on devices.
struct SQLEligibility {
    let sql: WarehouseSQL
    let columns: WarehouseColumns
    /// The column holding the user id in the query the rules are placed in.
    var userColumn = "user_id"

    func rules(_ experiment: ExperimentDefinition) -> [SQLRuleVerdict] {
        guard experiment.status == "running" else { return [.failedForAll] }
        var rules: [SQLRuleVerdict] = []
        if let platforms = experiment.platforms {
            rules.append(.on(columns.platform) { sql.isIn(sql.lowercased($0), platforms) })
        }
        if let targeting = experiment.targeting, targeting != .null {
            rules += self.targeting(targeting, startedAtMs: experiment.startedAtMs)
        }
        if let share = experiment.trafficAllocation {
            rules.append(allocation(experiment, share: share))
        }
        return rules
    }

    private func targeting(_ targeting: JSONValue, startedAtMs: Int64?) -> [SQLRuleVerdict] {
        guard case .object(let fields) = targeting else { return [.failedForAll] }
        var rules: [SQLRuleVerdict] = []
        if let countries = fields["countries"], countries != .null {
            guard case .array(let list) = countries else { return [.failedForAll] }
            let codes = list.compactMap { value -> String? in if case .string(let s) = value { return s.uppercased() } else { return nil } }
            rules.append(.on(columns.country) { sql.isIn(sql.uppercased($0), codes) })
        }
        if let version = fields["min_app_version"], version != .null {
            guard case .string(let required) = version, let parts = Targeting.versionParts(required) else { return [.failedForAll] }
            rules.append(.on(columns.appVersion) { appVersionAtLeast($0, parts) })
        }
        if case .bool(true) = fields["new_users_only"] ?? .null {
            guard let started = startedAtMs else { return [.failedForAll] }
            rules.append(.on(columns.installedAt) { "(\($0) >= \(started))" })
        }
        if let traits = fields["user_traits"], traits != .null {
            guard case .array(let list) = traits else { return [.failedForAll] }
            rules += list.map(trait)
        }
        return rules
    }

    /// A version part as `Int(_:)` reads it (optional '+', or a negative zero); at most 18
    /// digits so the engines' 64-bit integers hold it.
    private static let versionPart = "\\+?[0-9]{1,18}|-0{1,18}"

    /// `version` (text) is a version and, compared part by part with missing parts as 0, at
    /// least `required`. Parts past `required`'s cannot make it smaller (they are >= 0).
    private func appVersionAtLeast(_ version: String, _ required: [Int]) -> String {
        let part = Self.versionPart
        let wellFormed = sql.fullMatch(version, "(\(part))(\\.(\(part)))*")
        var comparison = "TRUE"
        for (index, wanted) in required.enumerated().reversed() {
            let raw = sql.dotPart(version, index)
            let value = "(CASE WHEN \(raw) = '' THEN 0 ELSE \(sql.bigint("replace(replace(\(raw), '+', ''), '-', '')")) END)"
            comparison = "(CASE WHEN \(value) > \(wanted) THEN TRUE WHEN \(value) < \(wanted) THEN FALSE ELSE \(comparison) END)"
        }
        // An engine may evaluate the comparison of a malformed version before the match; the
        // CASE keeps it from parsing one.
        return "(CASE WHEN \(wellFormed) THEN \(comparison) ELSE FALSE END)"
    }

    private func trait(_ rule: JSONValue) -> SQLRuleVerdict {
        guard case .object(let fields) = rule, case .string(let trait)? = fields["trait"],
              case .string(let op)? = fields["operator"] else { return .failedForAll }
        let expected = fields["value"] ?? .null
        let column = columns.column(ofTrait: trait)
        switch op {
        case "exists":
            // A NULL is a trait not given (unknown), so a given one exists.
            return .on(column) { _ in expected == .bool(false) ? "FALSE" : "TRUE" }
        case "eq", "neq":
            guard let wanted = TraitRule.text(expected) else { return column == nil ? .unknownForAll : notGivenOrFails(column!) }
            return .on(column) { "(\($0) \(op == "eq" ? "=" : "<>") \(sql.literal(wanted)))" }
        case "in":
            guard case .array(let options) = expected else { return column == nil ? .unknownForAll : notGivenOrFails(column!) }
            return .on(column) { sql.isIn($0, options.compactMap(TraitRule.text)) }
        case "gt", "gte", "lt", "lte":
            guard let wanted = TraitRule.text(expected).flatMap(Double.init), wanted.isFinite || !wanted.isNaN else {
                return column == nil ? .unknownForAll : notGivenOrFails(column!)
            }
            let symbol = ["gt": ">", "gte": ">=", "lt": "<", "lte": "<="][op]!
            return .on(column) { "(\(sql.double($0)) \(symbol) \(Self.doubleLiteral(wanted)))" }
        default:
            return column == nil ? .unknownForAll : notGivenOrFails(column!)
        }
    }

    /// A malformed trait rule on a trait that is given fails; not given, it is unknown (the
    /// trait check comes first, as in `TraitRule`).
    private func notGivenOrFails(_ column: String) -> SQLRuleVerdict {
        .on(column) { _ in "FALSE" }
    }

    private static func doubleLiteral(_ value: Double) -> String {
        if value == .infinity { return "CAST('inf' AS DOUBLE)" }
        if value == -.infinity { return "CAST('-inf' AS DOUBLE)" }
        return "CAST(\(value) AS DOUBLE)"
    }

    /// Traffic allocation as the newest iOS SDK applies it: in when the allocation bucket is
    /// under the share; otherwise in on Android, out on other platforms, unknown without one.
    private func allocation(_ experiment: ExperimentDefinition, share: Double) -> SQLRuleVerdict {
        guard share.isFinite else { return .failedForAll }
        let threshold = AssignmentChange.allocationThreshold(share)
        let prefix = experiment.id + "." + BucketingScheme.sdk.effectiveSalt(experiment.salt, experiment: experiment.id) + "."
        let bucket = "(\(sql.hash(of: "(\(sql.literal(prefix)) || \(userColumn) || '.allocation')")) % 10000)"
        let inside = "(\(bucket) < \(threshold))"
        guard let platform = columns.platform else {
            return SQLRuleVerdict(failed: "FALSE", unknown: "NOT \(inside)")
        }
        let android = "(\(sql.lowercased(platform)) = 'android')"
        return SQLRuleVerdict(failed: "(NOT \(inside) AND \(platform) IS NOT NULL AND NOT \(android))",
                              unknown: "(NOT \(inside) AND \(platform) IS NULL)")
    }
}
