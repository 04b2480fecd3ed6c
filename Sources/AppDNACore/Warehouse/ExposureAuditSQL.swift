/// `queue inspect --bundle FILE --sql DIALECT --exposures TABLE`: the exposure audit of
/// `queue inspect --bundle` (`ExposureAudit`) as one query over a warehouse table of recorded
/// exposures. It returns one row per exposure that disagrees with the bundle:
/// `event_id, experiment, recorded, expected, cause`, with the same causes, judged in the same
/// order:
///
/// - an experiment the file lacks: `bundle-version` when the row's bundle version is not the
///   file's, else `experiment-missing`;
/// - an experiment that is not running: `bundle-version` or `experiment-not-running`, likewise;
/// - `blank-salt-old-ios`: the salt is blank, the row is iOS with an SDK of 1.0.69 or older (or
///   none recorded), and hashing the blank salt literally gives the recorded variant;
/// - `user-id-not-normalised`: the NFC, trimmed, or trimmed NFC form of the user id (where it
///   differs from the id) gives the recorded variant;
/// - `bundle-version`: the row's bundle version is not the file's;
/// - `not-eligible`: a rule the row's columns settle fails (status, platform, targeting, traffic
///   allocation);
/// - `unexplained`.
///
/// A hypothesis whose input column is not mapped is not claimed, exactly as the queue audit
/// does not claim it for an event that lacks the field. Rows without a user id or an
/// experiment are skipped, as the queue audit skips such exposures.
public struct ExposureAuditSQL {
    public let dialect: SQLDialect
    public let exposures: ExposuresTable
    /// The context columns of the exposures table (platform, country, app version, install time,
    /// traits, SDK version); its table and user column are `exposures`'.
    public let context: WarehouseColumns
    /// The file's `bundle_version` as written (nil: the file has none, so no row is judged to
    /// come from another bundle).
    public let bundleVersion: String?

    public init(dialect: SQLDialect, exposures: ExposuresTable, context: WarehouseColumns, bundleVersion: String?) {
        self.dialect = dialect
        self.exposures = exposures
        self.context = context
        self.bundleVersion = bundleVersion
    }

    /// The query for the bundle's `experiments` (every experiment of the file: an exposure of
    /// any other is `experiment-missing`).
    public func query(_ experiments: [ExperimentDefinition]) -> String {
        var branches = experiments.map(branch)
        branches.append(missingBranch(experiments))
        return "SELECT event_id, experiment, recorded, expected, cause FROM (\n" + branches.joined(separator: "\nUNION ALL\n")
            + "\n) AS audit_rows ORDER BY event_id NULLS LAST, experiment, recorded NULLS LAST\n"
    }

    private var sql: WarehouseSQL { WarehouseSQL(dialect: dialect) }

    /// The context columns, carried by their own names from level to level (the rules read them).
    private var carried: String { context.contextColumns.map { ", \($0)" }.joined() }

    /// The row's bundle version differs from the file's.
    private var otherBundle: String {
        guard let file = bundleVersion, exposures.bundleVersion != nil else { return "FALSE" }
        return "(appdna_bundle_version IS NOT NULL AND \(sql.text("appdna_bundle_version")) <> \(sql.literal(file)))"
    }

    /// The table's rows that can be judged, under the names the levels above read.
    private func rows(where condition: String) -> String {
        let bundleVersion = exposures.bundleVersion.map { ", \($0) AS appdna_bundle_version" } ?? ""
        return "SELECT \(exposures.eventID) AS event_id, \(exposures.experiment) AS experiment, \(exposures.variant) AS recorded, "
            + "\(exposures.user) AS appdna_user\(bundleVersion)\(carried) FROM \(exposures.table) "
            + "WHERE \(exposures.user) IS NOT NULL AND \(exposures.experiment) IS NOT NULL AND \(condition)"
    }

    /// Exposures of experiments the file does not have.
    private func missingBranch(_ experiments: [ExperimentDefinition]) -> String {
        let notInFile = "NOT \(sql.isIn(exposures.experiment, experiments.map(\.id)))"
        return "SELECT event_id, experiment, recorded, \(sql.nullString) AS expected, "
            + "CASE WHEN \(otherBundle) THEN 'bundle-version' ELSE 'experiment-missing' END AS cause "
            + "FROM (\(rows(where: notInFile))) AS missing_rows"
    }

    /// Exposures of one experiment of the file.
    private func branch(_ experiment: ExperimentDefinition) -> String {
        let ofExperiment = "\(exposures.experiment) = \(sql.literal(experiment.id))"
        guard experiment.status == "running" else {  // not an id: a status word
            // Devices assign nothing: every recorded variant disagrees, and none is expected.
            return "SELECT event_id, experiment, recorded, \(sql.nullString) AS expected, "
                + "CASE WHEN \(otherBundle) THEN 'bundle-version' ELSE 'experiment-not-running' END AS cause "
                + "FROM (\(rows(where: ofExperiment + " AND \(exposures.variant) IS NOT NULL"))) AS stopped_rows"
        }
        let rules = SQLEligibility(sql: sql, columns: context, userColumn: "appdna_user").rules(experiment)
        let mayAssign = SQLRuleVerdict.eligibleColumn(rules).mayAssign
        let expected = variantOf(experiment, user: "appdna_user", salt: BucketingScheme.sdk.effectiveSalt(experiment.salt, experiment: experiment.id))
        let bundleVersion = exposures.bundleVersion != nil ? ", appdna_bundle_version" : ""
        let agrees = "(coalesce(recorded = expected, FALSE) OR (recorded IS NULL AND expected IS NULL))"
        return """
        SELECT event_id, experiment, recorded, expected, CASE \
        WHEN recorded IS NOT NULL AND \(blankSaltHypothesis(experiment)) THEN 'blank-salt-old-ios' \
        WHEN recorded IS NOT NULL AND \(normalisedIDHypothesis(experiment)) THEN 'user-id-not-normalised' \
        WHEN \(otherBundle) THEN 'bundle-version' \
        WHEN NOT appdna_may_assign THEN 'not-eligible' \
        ELSE 'unexplained' END AS cause
        FROM (SELECT event_id, experiment, recorded, appdna_user, appdna_may_assign\(bundleVersion)\(carried), \
        CASE WHEN appdna_may_assign THEN \(expected) ELSE \(sql.nullString) END AS expected
          FROM (SELECT event_id, experiment, recorded, appdna_user\(bundleVersion)\(carried), \(mayAssign) AS appdna_may_assign
            FROM (\(rows(where: ofExperiment))) AS exposure_rows) AS judged_rows) AS expected_rows
        WHERE NOT \(agrees)
        """
    }

    /// The variant of `user` (an SQL expression) hashed with `salt` as written, under the SDK
    /// scheme, eligibility aside.
    private func variantOf(_ experiment: ExperimentDefinition, user: String, salt: String) -> String {
        AssignmentSQL.variantExpression(experiment.allocation, bucket: sql.sdkBucket(experiment: experiment.id, salt: salt, user: user), sql: sql)
    }

    /// iOS SDK 1.0.69 and older hashed a blank salt as written: does that give the recorded
    /// variant? (Not claimed without a platform column; an SDK version not recorded counts
    /// as old, as in the queue audit.)
    private func blankSaltHypothesis(_ experiment: ExperimentDefinition) -> String {
        guard BucketingScheme.isBlank(experiment.salt), let platform = context.platform else { return "FALSE" }
        let oldSDK = context.sdkVersion.map { "(\($0) IS NULL OR \(SQLVersion(sql: sql).isAtMost($0, [1, 0, 69])))" } ?? "TRUE"
        let literal = variantOf(experiment, user: "appdna_user", salt: experiment.salt)
        return "(\(sql.lowercased(platform)) = 'ios' AND \(oldSDK) AND coalesce(\(literal) = recorded, FALSE))"
    }

    /// The NFC, trimmed and trimmed-NFC forms of the user id, where they differ from it: does
    /// one give the recorded variant?
    private func normalisedIDHypothesis(_ experiment: ExperimentDefinition) -> String {
        let salt = BucketingScheme.sdk.effectiveSalt(experiment.salt, experiment: experiment.id)
        let forms = [sql.nfc("appdna_user"), sql.trimmedWhitespace("appdna_user"), sql.nfc(sql.trimmedWhitespace("appdna_user"))]
        let tests = forms.map { form in
            "coalesce(\(form) <> appdna_user AND \(variantOf(experiment, user: form, salt: salt)) = recorded, FALSE)"
        }
        return "(" + tests.joined(separator: " OR ") + ")"
    }
}
