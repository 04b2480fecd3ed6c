import AppDNACore

/// `bucket USER --bundle FILE` without an experiment: every experiment of the bundle for that
/// user, in bundle order, as an aligned table or a JSON array of the single-experiment
/// documents. With USER '-', one row per user and experiment from ids on stdin, streamed.
enum BucketAllExperiments {
    static func run(_ invocation: Invocation, _ plan: BucketPlan, user: String) throws -> ExitStatus {
        if let salt = plan.source.operand(2) {
            throw Failure(.usage, "SALT '\(salt)' needs an EXPERIMENT; without one every experiment of the bundle is shown")
        }
        let setups = try experiments(invocation, plan.source)
        if user == "-" { return try writeBatch(invocation, setups: setups, format: plan.format) }
        if plan.json {
            let documents = setups.map { JSONValue.object(BucketReport.document(setup: $0, user: user, explain: plan.explain)) }
            invocation.stdout.write(JSONWriter(indent: 2).write(.array(documents)))
            invocation.stdout.writeLine()
            return .success
        }
        writeTable(invocation, setups: setups, user: user)
        if plan.explain {
            // Each row explained as `bucket USER EXPERIMENT --explain` would: the hashed bytes,
            // the variant ranges, every rule, and the warnings (a blank salt that iOS <= 1.0.69
            // hashes differently among them).
            for setup in setups {
                invocation.stdout.writeLine()
                invocation.stdout.writeLine("\(setup.experiment):")
                BucketReport.writeText(invocation, setup: setup, user: user, explain: true)
            }
        }
        return .success
    }

    /// One setup per experiment of the bundle, in the bundle's order.
    static func experiments(_ invocation: Invocation, _ source: ExperimentSource) throws -> [BucketSetup] {
        let path = source.bundle!
        let document = try BundleArgument.document(path, invocation, api: source.api)
        guard let map = BundleExperiments.map(in: document.root) else {
            throw Failure(.malformedInput, "\(path): the bundle has no experiments")
        }
        let scheme = source.scheme
        let context = source.context
        return map.members.filter { $0.value.kind == .object }.map { member in
            BucketSetup(scheme: scheme, definition: ExperimentDefinition(id: member.key, node: member.value), context: context)
        }
    }

    /// The verdict column: `yes`, `no: RULE (detail)`, `unknown: RULE (--flag), …`.
    static func verdictCell(_ verdict: EligibilityVerdict) -> String {
        switch verdict {
        case .eligible: return "yes"
        case .notEligible(let failed): return "no: \(failed.rule) (\(failed.detail))"
        case .unknown(let unchecked):
            return "unknown: " + unchecked.map { "\($0.rule) (\($0.settledBy?.flagText ?? "?"))" }.joined(separator: ", ")
        }
    }

    static func writeTable(_ invocation: Invocation, setups: [BucketSetup], user: String) {
        var rows: [[String]] = [["EXPERIMENT", "STATUS", "BUCKET", "VARIANT", "ELIGIBLE"]]
        for setup in setups {
            let assignment = setup.scheme.assign(user: user, experiment: setup.experiment, salt: setup.salt)
            let verdict = setup.rules(for: user).verdict
            let variant = BucketReport.variant(setup: setup, bucket: assignment.bucket, verdict: verdict)
            rows.append([setup.experiment, setup.definition?.status ?? "(none)", "\(assignment.bucket)", variant ?? "-", verdictCell(verdict)])
        }
        let widths = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            // The last column is not padded: no trailing spaces.
            let cells = row.enumerated().map { $0.offset == row.count - 1 ? $0.element : $0.element.padding(widths[$0.offset]) }
            invocation.stdout.writeLine(cells.joined(separator: "  "))
        }
    }

    /// Bytes of input per chunk on several threads. A row is about 60 bytes (TSV; 120 in
    /// NDJSON) per experiment for an id of ~20 bytes: half the one experiment's chunk size
    /// divided among the experiments keeps a chunk's rows near a megabyte whatever the bundle.
    static func chunkSize(experiments: Int) -> Int {
        max(16 * 1024, BucketBatch.chunkSize / max(1, 2 * experiments))
    }

    /// `bucket - --bundle FILE`: user, experiment, hash, bucket, variant, eligible per row
    /// (`BundleRows`), on every core in input order (`BatchRunner`). Memory stays flat.
    static func writeBatch(_ invocation: Invocation, setups: [BucketSetup], format: BucketBatch.Format) throws -> ExitStatus {
        let out = invocation.stdout
        let pieces = BundleRows.pieces(setups: setups, format: format)
        defer { pieces.free() }
        out.preferLargePipeBuffer()
        if format == .csv { out.writeVerbatim("user,experiment,hash,bucket,variant,eligible\n") }
        return try BatchRunner.run(invocation, chunkSize: chunkSize(experiments: setups.count)) {
            BundleRows(setups: setups, format: format, pieces: pieces)
        }.lines.report(invocation)
    }
}
