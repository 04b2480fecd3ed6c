/// The eligibility rules of one experiment as SQL over a row (see `Eligibility`, which this
/// mirrors rule for rule, and docs/assignment-rules.md): status, platforms, targeting
/// (countries, min_app_version, new_users_only, user traits) and traffic allocation. What the
/// bundle gets wrong fails closed for every row, as it does on devices. Text compares byte
/// for byte, as every engine compares strings: countries, trait values, trait names (a
/// `--trait-column` is found by its trait's bytes).
struct SQLEligibility {
    let sql: WarehouseSQL
    let columns: WarehouseColumns
    /// The column holding the user id in the query the rules are placed in.
    var userColumn = "user_id"

    /// The bucket traffic allocation compares with its share, when the experiment has a finite
    /// share (the caller binds it, beside its other buckets, and passes its name to `rules`).
    func allocationBucket(_ experiment: ExperimentDefinition) -> WarehouseSQL.Bucket? {
        guard experiment.status == "running", let share = experiment.trafficAllocation, share.isFinite else { return nil }  // not an id: a status word
        return .sdk(experiment: experiment.id, salt: BucketingScheme.sdk.effectiveSalt(experiment.salt, experiment: experiment.id),
                    user: userColumn, suffix: ".allocation")
    }

    /// The rules; `allocationBucket` is the bound name of `allocationBucket(experiment)`.
    func rules(_ experiment: ExperimentDefinition, allocationBucket: String?) -> [SQLRuleVerdict] {
        guard experiment.status == "running" else { return [.failedForAll] }
        var rules: [SQLRuleVerdict] = []
        if experiment.platformsAreMalformed { return [.failedForAll] }
        if let platforms = experiment.platforms {
            // Without case on both sides: "iOS" in the bundle matches a row's "ios".
            rules.append(.on(columns.platform) { sql.isIn(sql.engine.lowercased($0), platforms.map { $0.lowercased() }) })
        }
        if let targeting = experiment.targeting, targeting != .null {
            rules += self.targeting(targeting, startedAtMs: experiment.startedAtMs)
        }
        if let share = experiment.trafficAllocation {
            rules.append(allocation(share: share, bucket: allocationBucket))
        }
        return rules
    }

    private func targeting(_ targeting: JSONValue, startedAtMs: Int64?) -> [SQLRuleVerdict] {
        guard case .object(let fields) = targeting else { return [.failedForAll] }
        var rules: [SQLRuleVerdict] = []
        if let countries = fields["countries"], countries != .null {
            // Not a list of strings (`"US"`, `["US", 5]`): fails closed, as `Targeting.countries`.
            guard let codes = Targeting.countryCodes(countries) else { return [.failedForAll] }
            // Exactly as written, byte for byte: "us" is not "US" (devices compare so).
            rules.append(.on(columns.country) { sql.isIn($0, codes) })
        }
        if let version = fields["min_app_version"], version != .null {
            guard case .string(let required) = version, let parts = Targeting.versionParts(required) else { return [.failedForAll] }
            rules.append(.on(columns.appVersion) { SQLVersion(engine: sql.engine).isAbove($0, parts, orEqual: true) })
        }
        switch fields["new_users_only"] ?? .null {
        case .null, .bool(false): break
        case .bool(true):
            guard let started = startedAtMs else { return [.failedForAll] }
            rules.append(.on(columns.installedAt) { "(\(milliseconds($0)) >= \(started))" })
        default:
            return [.failedForAll]  // not a boolean: fails closed, as in `Targeting.newUsers`
        }
        if let traits = fields["user_traits"], traits != .null {
            guard case .array(let list) = traits else { return [.failedForAll] }
            rules += list.map(trait)
        }
        return rules
    }

    private func trait(_ rule: JSONValue) -> SQLRuleVerdict {
        // A rule no value can pass fails for every row, trait given or not (`TraitRule`).
        guard TraitRule.unsatisfiable(rule) == nil, case .object(let fields) = rule, case .string(let trait)? = fields["trait"],
              case .string(let op)? = fields["operator"], let known = TraitOperator(bundleName: op) else { return .failedForAll }
        let expected = fields["value"] ?? .null
        let column = columns.column(ofTrait: trait)
        switch known {
        case .exists:
            // A NULL is a trait not given (unknown), so a given one exists.
            return .on(column) { _ in expected == .bool(false) ? "FALSE" : "TRUE" }
        case .eq, .neq:
            return .on(column) { known == .eq ? matches($0, expected) : "(NOT \(matches($0, expected)))" }
        case .in:
            guard case .array(let options) = expected else { return .failedForAll }
            let scalars = options.filter { TraitRule.text($0) != nil }
            return .on(column) { value in scalars.isEmpty ? "FALSE" : "(" + scalars.map { matches(value, $0) }.joined(separator: " OR ") + ")" }
        case .gt, .gte, .lt, .lte:  // (`unsatisfiable` checked): a number compares as a number, a string as text
            let symbol = known.orderSymbol!
            if case .string(let text) = expected {
                // Byte for byte, as every engine orders strings (and `TraitRule.compare`).
                return .on(column) { "(\($0) \(symbol) \(sql.literal(text)))" }
            }
            let wanted = TraitRule.text(expected).flatMap(TraitRule.number)!
            return .on(column) { "(\(number($0)) \(symbol) \(sql.doubleLiteral(wanted)))" }
        }
    }

    /// The install time (text: see `WarehouseColumns`) as an integer, as `--installed-at` reads
    /// one (`Int64(_:)`: digits with an optional sign); NULL when it is not one or out of range,
    /// so the rule fails for that row, as a malformed app version does.
    private func milliseconds(_ column: String) -> String {
        "(CASE WHEN \(sql.engine.fullMatch(column, "[+-]?[0-9]+")) THEN \(sql.engine.parsedInteger(column)) END)"
    }

    /// The trait's text as a number under `TraitRule.numberPattern`, NULL when it is not one.
    private func number(_ column: String) -> String {
        "(CASE WHEN \(sql.engine.fullMatch(column, TraitRule.numberPattern)) THEN \(sql.engine.parsedDouble(column)) END)"
    }

    /// `TraitRule.matches`: as numbers when the bundle value is a number and the trait is one,
    /// else as text, byte for byte.
    private func matches(_ column: String, _ expected: JSONValue) -> String {
        let text = sql.literal(TraitRule.text(expected) ?? "")
        guard case .number(let value) = expected, let wanted = TraitRule.number(value.text) else {
            return "(\(column) = \(text))"
        }
        return "(CASE WHEN \(sql.engine.fullMatch(column, TraitRule.numberPattern)) THEN \(sql.engine.parsedDouble(column)) = \(sql.doubleLiteral(wanted)) ELSE \(column) = \(text) END)"
    }

    /// Traffic allocation as devices apply it (`Eligibility.allocationState`): in when the
    /// allocation bucket is under the share; otherwise out where it is applied (iOS SDK 1.0.78
    /// and later — rows without an SDK version count as the newest — and other non-Android
    /// platforms), in on Android and older iOS SDKs, unknown without a platform. A share that
    /// is not a finite number keeps no one in where it is applied.
    private func allocation(share: Double, bucket: String?) -> SQLRuleVerdict {
        let inside = bucket.map { "(\($0) < \(AssignmentChange.allocationThreshold(share)))" } ?? "FALSE"
        guard let platform = columns.platform else {
            return SQLRuleVerdict(failed: "FALSE", unknown: "NOT \(inside)")
        }
        var applied = "NOT (\(sql.engine.lowercased(platform)) = 'android')"
        if let sdk = columns.sdkVersion {
            let version = SQLVersion(engine: sql.engine)
            let olderIOS = "(\(sdk) IS NOT NULL AND \(version.isWellFormed(sdk)) AND NOT \(version.isAbove(sdk, Eligibility.trafficAllocationSinceIOS, orEqual: true)))"
            applied += " AND NOT (\(sql.engine.lowercased(platform)) = 'ios' AND \(olderIOS))"
        }
        return SQLRuleVerdict(failed: "(NOT \(inside) AND \(platform) IS NOT NULL AND \(applied))",
                              unknown: "(NOT \(inside) AND \(platform) IS NULL)")
    }
}
