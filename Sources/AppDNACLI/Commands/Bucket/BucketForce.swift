import AppDNACore

/// `bucket --force-variant EXPERIMENT=VARIANT … --bundle FILE --platform P …`: one user id a device in
/// that context assigns every forced variant (ForcedIdentity), checked again through the path
/// `bucket USER --bundle` reports with, and the `identify` line for each SDK; or every
/// requirement no id can meet. The JSON is docs/schemas/bucket-force.schema.json.
enum BucketForce {
    static func run(_ invocation: Invocation, _ plan: BucketPlan, forced: [ForcedIdentity.Forced]) throws -> ExitStatus {
        let source = plan.source
        guard let path = source.bundle else {
            throw Failure(.usage, "--force-variant needs --bundle FILE: the experiments the device runs (status, platforms, targeting, variants)")
        }
        let bundleDocument = try BundleArgument.document(path, invocation, api: source.api)
        let experiments = BundleExperiments.all(in: bundleDocument.root)
        let search: ForcedIdentity
        switch ForcedIdentity.plan(experiments: experiments, forced: forced, context: source.context) {
        case .ready(let planned): search = planned
        case .refused(let obstacles):
            for obstacle in obstacles.dropLast() { invocation.io.stderr.writeLine("appdna: --force-variant: " + wording(obstacle)) }
            throw Failure(.usage, "--force-variant: " + (obstacles.last.map(wording) ?? "no requirement named"), hint: obstacles.count > 1 ? "\(obstacles.count) requirements cannot be met; each is named above" : nil)
        }
        let progress = ProgressBar(total: search.expectedTries, enabled: invocation.io.stderr.isTerminal && !invocation.options.quiet
                                       && search.expectedTries >= BucketFind.progressThreshold,
                                   sink: invocation.io.stderr, unit: "tries")
        let (found, tries) = search.search(prefix: plan.prefix) { progress.update(min($0, search.expectedTries)) }
        progress.clear()
        guard let user = found else {
            invocation.io.stderr.writeLine("appdna: --force-variant: no id among \(tries) tries (\(plan.prefix)0 …) meets every forced variant, about \(search.expectedTries) expected; try another --prefix")
            return .negative
        }
        let rows = try verified(user, search: search, forced: forced)
        if plan.json {
            invocation.stdout.write(JSONWriter(indent: 2).write(document(user: user, tries: tries, search: search, rows: rows)))
            invocation.stdout.writeLine()
            return .success
        }
        invocation.stdout.writeLine("user id  \(user)  (\(tries) tries; about \(search.expectedTries) expected)")
        let width = rows.map { $0.experiment.count }.max() ?? 0
        for row in rows {
            let allocation = row.allocationBucket.map { "; allocation bucket \($0)" } ?? ""
            invocation.stdout.writeLine("  " + row.experiment.padding(width) + "  \(row.variant)  (bucket \(row.bucket)\(allocation))")
        }
        invocation.stdout.writeLine("identify it before the first variant is read (every SDK version assigns from this id):")
        let languageWidth = IdentifyLine.allCases.map { $0.language.count }.max() ?? 0
        for language in IdentifyLine.allCases {
            invocation.stdout.writeLine("  " + language.language.padding(languageWidth) + "  " + language.line(user))
        }
        return .success
    }

    /// One forced experiment as the found id gets it.
    struct Row {
        let experiment: String
        let variant: String
        let bucket: UInt32
        let allocationBucket: UInt32?
    }

    /// Each forced experiment for `user`, through `BucketSetup` and `Eligibility.verdict` (the
    /// path `bucket USER --bundle` reports with), not through the search's own check: a
    /// disagreement is a bug (70), never a wrong id handed out.
    static func verified(_ user: String, search: ForcedIdentity, forced: [ForcedIdentity.Forced]) throws -> [Row] {
        try search.experiments.map { definition in
            let setup = BucketSetup(scheme: .sdk, definition: definition, context: search.context)
            let bucket = setup.scheme.assign(user: user, experiment: definition.id, salt: definition.salt).bucket
            let verdict = setup.rules(for: user).verdict
            let variant = BucketReport.variant(setup: setup, bucket: bucket, verdict: verdict)
            guard let wanted = forced.first(where: { ByteIdentity.same($0.experiment, definition.id) })?.variant else {
                throw Failure(.internalError, "--force-variant searched \(definition.id), which was not forced")
            }
            guard verdict == .eligible, let variant, ByteIdentity.same(variant, wanted) else {
                throw Failure(.internalError, "--force-variant found \(user), but bucket computes \(variant ?? "no variant") for \(definition.id), not \(wanted)")
            }
            let allocation = definition.trafficAllocation.map { _ in
                BucketingScheme.allocationBucket(user: user, experiment: definition.id, salt: definition.salt)
            }
            return Row(experiment: definition.id, variant: variant, bucket: bucket, allocationBucket: allocation)
        }
    }

    static func document(user: String, tries: Int, search: ForcedIdentity, rows: [Row]) -> JSONValue {
        let identify = JSONObject(IdentifyLine.allCases.map { ($0.rawValue, JSONValue.string($0.line(user))) })
        return .object([
            "user_id": .string(user),
            "tries": .integer(tries),
            "expected_tries": .integer(search.expectedTries),
            "experiments": .array(rows.map { row in
                ["experiment": .string(row.experiment), "variant": .string(row.variant), "bucket": .integer(row.bucket),
                 "allocation_bucket": row.allocationBucket.map { .integer($0) } ?? .null]
            }),
            "identify": .object(identify),
        ])
    }

    /// An obstacle in the command's words: a context the flags did not give names the flag.
    static func wording(_ obstacle: ForcedIdentity.Obstacle) -> String {
        if case .contextNeeded(_, let rule) = obstacle, let input = rule.settledBy {
            return obstacle.description + "; give \(input.flagText)"
        }
        return obstacle.description
    }
}
