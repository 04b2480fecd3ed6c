/// `appdna warehouse audit`: the exposure audit of
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
    public let engine: any SQLEngine
    public let exposures: ExposuresTable
    /// The context columns of the exposures table (platform, country, app version, install time,
    /// traits, SDK version); its table and user column are `exposures`'.
    public let context: WarehouseColumns
    /// The file's `bundle_version` as written (nil: the file has none, so no row is judged to
    /// come from another bundle).
    public let bundleVersion: String?

    public init(engine: any SQLEngine, exposures: ExposuresTable, context: WarehouseColumns, bundleVersion: String?) {
        self.engine = engine
        self.exposures = exposures
        self.context = context
        self.bundleVersion = bundleVersion
    }

    /// The query for the bundle's `experiments` (every experiment of the file: an exposure of
    /// any other is `experiment-missing`). Columns: `event_id` (as the table has it), then text.
    public func query(_ experiments: [ExperimentDefinition]) -> String {
        var branches = experiments.enumerated().map { branch($1, number: $0 + 1) }
        branches.append(missingBranch(experiments))
        return "SELECT event_id, experiment, recorded, expected, cause FROM (\n" + branches.joined(separator: "\nUNION ALL\n")
            + "\n) AS audit_rows ORDER BY event_id NULLS LAST, experiment, recorded NULLS LAST\n"
    }

    private var sql: WarehouseSQL { WarehouseSQL(engine: engine) }

    /// The context columns, as text, carried by their own names from level to level (the rules read them).
    private var carried: String { context.carried(by: engine) }

    /// The row's bundle version differs from the file's.
    private var otherBundle: String {
        guard let file = bundleVersion, exposures.bundleVersion != nil else { return "FALSE" }
        return "(appdna_bundle_version IS NOT NULL AND \(engine.text("appdna_bundle_version")) <> \(sql.literal(file)))"
    }

    /// The table's rows that can be judged, under the names the levels above read.
    private func rows(where condition: String) -> String {
        let bundleVersion = exposures.bundleVersion.map { ", \($0) AS appdna_bundle_version" } ?? ""
        return "(SELECT \(exposures.eventID) AS event_id, \(exposures.experiment) AS experiment, \(exposures.variant) AS recorded, "
            + "\(engine.text(exposures.user)) AS appdna_user\(bundleVersion)\(carried) FROM \(exposures.table) "
            + "WHERE \(exposures.user) IS NOT NULL AND \(exposures.experiment) IS NOT NULL AND \(condition))"
    }

    /// Exposures of experiments the file does not have.
    private func missingBranch(_ experiments: [ExperimentDefinition]) -> String {
        let notInFile = "NOT \(sql.isIn(exposures.experiment, experiments.map(\.id)))"
        return "SELECT event_id, experiment, recorded, \(engine.nullText) AS expected, "
            + "CASE WHEN \(otherBundle) THEN 'bundle-version' ELSE 'experiment-missing' END AS cause "
            + "FROM \(rows(where: notInFile)) AS missing_rows"
    }

    /// Exposures of one experiment of the file: the expected variant for every row, then the
    /// causes for the rows that disagree (the hypotheses hash only those).
    private func branch(_ experiment: ExperimentDefinition, number: Int) -> String {
        let ofExperiment = "\(exposures.experiment) = \(sql.literal(experiment.id))"
        guard experiment.status == "running" else {  // not an id: a status word
            // Devices assign nothing: every recorded variant disagrees, and none is expected.
            return "SELECT event_id, experiment, recorded, \(engine.nullText) AS expected, "
                + "CASE WHEN \(otherBundle) THEN 'bundle-version' ELSE 'experiment-not-running' END AS cause "
                + "FROM \(rows(where: ofExperiment + " AND \(exposures.variant) IS NOT NULL")) AS stopped_rows"
        }
        var judged = SQLRelation(engine: engine, source: rows(where: ofExperiment), name: "a\(number)")
        let eligibility = SQLEligibility(sql: sql, columns: context, userColumn: "appdna_user")
        let salt = BucketingScheme.sdk.effectiveSalt(experiment.salt, experiment: experiment.id)
        // The variant's bucket and traffic allocation's, side by side.
        let buckets = sql.bind([.sdk(experiment: experiment.id, salt: salt, user: "appdna_user")]
                               + [eligibility.allocationBucket(experiment)].compactMap { $0 }, in: &judged)
        let mayAssign = SQLRuleVerdict.eligibleColumn(eligibility.rules(experiment, allocationBucket: buckets.dropFirst().first)).mayAssign
        let judgement = judged.bind([mayAssign, "CASE WHEN \(mayAssign) THEN \(sql.variant(experiment.allocation, bucket: buckets[0])) ELSE \(engine.nullText) END"])
        let (may, expected) = (judgement[0], judgement[1])
        judged.filter("NOT (coalesce(recorded = \(expected), FALSE) OR (recorded IS NULL AND \(expected) IS NULL))")
        // Only the rows that disagree are hashed again, every hypothesis side by side.
        let blankSalt = blankSaltHypothesis(experiment)
        let (forms, isText) = normalisedForms(experiment, in: &judged)
        let hypotheses = sql.bind((blankSalt.map { [$0.bucket] } ?? []) + forms.map(\.bucket), in: &judged)
        let blankSaltClaim = blankSalt.map { $0.claim(sql.variant(experiment.allocation, bucket: hypotheses[0])) } ?? "FALSE"
        let formBuckets = hypotheses.suffix(forms.count)
        let normalisedID = forms.isEmpty ? "FALSE" : "(" + zip(forms, formBuckets).map { form, bucket in
            "coalesce(\(isText) AND \(form.text) <> appdna_user AND \(sql.variant(experiment.allocation, bucket: bucket)) = recorded, FALSE)"
        }.joined(separator: " OR ") + ")"
        return judged.select("event_id, experiment, recorded, \(expected) AS expected, CASE "
            + "WHEN recorded IS NOT NULL AND \(blankSaltClaim) THEN 'blank-salt-old-ios' "
            + "WHEN recorded IS NOT NULL AND \(normalisedID) THEN 'user-id-not-normalised' "
            + "WHEN \(otherBundle) THEN 'bundle-version' "
            + "WHEN NOT \(may) THEN 'not-eligible' "
            + "ELSE 'unexplained' END AS cause")
    }

    /// iOS SDK 1.0.69 and older hashed a blank salt as written: the bucket that gives, and
    /// the claim given the variant of that bucket — it is the recorded one, on iOS, with such
    /// an SDK. (Not claimed without a platform column; an SDK version not recorded counts as
    /// old, as in the queue audit.)
    private func blankSaltHypothesis(_ experiment: ExperimentDefinition) -> (bucket: WarehouseSQL.Bucket, claim: (String) -> String)? {
        guard BucketingScheme.isBlank(experiment.salt), let platform = context.platform else { return nil }
        let version = SQLVersion(engine: engine)
        let oldSDK = context.sdkVersion.map { "(\($0) IS NULL OR \(version.isAtMost($0, [1, 0, 69])))" } ?? "TRUE"
        let claim = { (variant: String) in "(\(engine.lowercased(platform)) = 'ios' AND \(oldSDK) AND coalesce(\(variant) = recorded, FALSE))" }
        return (.sdk(experiment: experiment.id, salt: experiment.salt, user: "appdna_user"), claim)
    }

    /// The NFC, trimmed and trimmed-NFC forms of the user id (bound in `rows`) and their
    /// buckets: where a form differs from the id and gives the recorded variant, the id was
    /// not normalised. Also the bound condition that the id is UTF-8: an id that is not has no
    /// normal form, so its forms are read from '' (ClickHouse's normalizeUTF8NFC fails the
    /// query on such bytes; Spark's reflect needs a string) and the claim must not be made.
    private func normalisedForms(_ experiment: ExperimentDefinition, in rows: inout SQLRelation)
        -> (forms: [(text: String, bucket: WarehouseSQL.Bucket)], isText: String) {
        let salt = BucketingScheme.sdk.effectiveSalt(experiment.salt, experiment: experiment.id)
        let isText = engine.isValidUTF8("appdna_user")
        let text = "(CASE WHEN \(isText) THEN appdna_user ELSE '' END)"
        let bound = rows.bind([engine.nfc(text), sql.trimmedWhitespace(text), isText])
        let trimmedNFC = rows.bind(engine.nfc(bound[1]))
        return ([bound[0], bound[1], trimmedNFC].map { ($0, .sdk(experiment: experiment.id, salt: salt, user: $0)) }, bound[2])
    }
}
