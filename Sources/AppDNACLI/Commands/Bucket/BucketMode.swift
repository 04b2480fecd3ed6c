import AppDNACore

/// What one `bucket` run does, decided once from its flags and operands (issue 35.3): every
/// flag conflict of `bucket` is here, worded by `ModeFlags`.
enum BucketMode: Equatable {
    /// `--self-test`: the built-in vectors.
    case selfTest
    /// `--vectors`: golden cases as JSON.
    case vectors
    /// `--find VARIANT`: QA ids that land in `variant`.
    case find(variant: String)
    /// `--force-variant EXPERIMENT=VARIANT …`: one id a device assigns every forced variant
    /// (at least one, in the order given).
    case force(forced: [ForcedIdentity.Forced])
    /// `USER --bundle FILE` without EXPERIMENT: every experiment for one user.
    case allExperiments(user: String)
    /// `- --bundle FILE` without EXPERIMENT: every experiment for ids on stdin.
    case allExperimentsBatch
    /// `- EXPERIMENT …`: ids on stdin, rows out (or `--summary`: counts).
    case batch(summary: Bool)
    /// `USER EXPERIMENT …`: one user's report.
    case single(user: String)

    /// The modes without their values, for the tests that walk every mode (`ModeConflictTests`).
    enum Kind: CaseIterable { case selfTest, vectors, find, force, allExperiments, allExperimentsBatch, batch, summary, single }

    var kind: Kind {
        switch self {
        case .selfTest: return .selfTest
        case .vectors: return .vectors
        case .find: return .find
        case .force: return .force
        case .allExperiments: return .allExperiments
        case .allExperimentsBatch: return .allExperimentsBatch
        case .batch(summary: false): return .batch
        case .batch(summary: true): return .summary
        case .single: return .single
        }
    }

    /// The user context for a bundle's targeting rules.
    static let context = [BucketFlags.platform.spec, BucketFlags.country.spec, BucketFlags.appVersion.spec,
                          BucketFlags.trait.spec, BucketFlags.installedAt.spec]
    /// Where one experiment comes from: the variants typed, or a bundle (read with the API
    /// flags when it is `@remote`), with its user context.
    static let experimentSource = [BucketFlags.scheme.spec, BucketFlags.variants.spec, BucketFlags.bundle.spec] + context + APIFlags.wholeCommand
    static let bundleSource = [BucketFlags.scheme.spec, BucketFlags.bundle.spec] + context + APIFlags.wholeCommand

    /// What picks the mode from the flags alone, decided once: the parser asks it which
    /// operands to count (`BucketCommand.operandsGiven`), and `decide` takes the mode from it and
    /// the operands counted, so the two can never disagree.
    enum Selector {
        case selfTest, vectors
        case find(variant: String)
        case force(forced: [ForcedIdentity.Forced])
        /// `--bundle` without a selector: EXPERIMENT may be left out (every experiment).
        case bundle
        /// The experiment typed: USER EXPERIMENT SALT.
        case typed

        init(_ arguments: ParsedArguments) {
            let forced = arguments[BucketFlags.force]
            if arguments[BucketFlags.selfTest] {
                self = .selfTest
            } else if arguments[BucketFlags.vectors] {
                self = .vectors
            } else if let variant = arguments[BucketFlags.find] {
                self = .find(variant: variant)
            } else if !forced.isEmpty {
                self = .force(forced: forced.map { ForcedIdentity.Forced(experiment: $0.key, variant: $0.value) })
            } else if arguments[BucketFlags.bundle] != nil {
                self = .bundle
            } else {
                self = .typed
            }
        }

        /// The operands this selector takes: `--self-test`, `--vectors` and `--force-variant`
        /// none; `--find` no user; with `--bundle` the experiment may be left out.
        var operands: [OperandSpec] {
            let all = BucketFlags.operands
            switch self {
            case .selfTest, .vectors, .force: return []
            case .find: return Array(all.dropFirst())
            case .bundle: return [all[0], OperandSpec(all[1].name, all[1].summary, optional: true), all[2]]
            case .typed: return all
            }
        }
    }

    /// The mode of `arguments` (operands already counted by the parser with
    /// `Selector.operands`), its conflicts refused.
    static func decide(_ arguments: ParsedArguments) throws(Failure) -> BucketMode {
        let mode: BucketMode
        let user = arguments.operand(0)
        switch Selector(arguments) {
        case .selfTest: mode = .selfTest
        case .vectors: mode = .vectors
        case .find(let variant): mode = .find(variant: variant)
        case .force(let forced): mode = .force(forced: forced)
        case .bundle where arguments.operand(1) == nil:
            mode = user == "-" ? .allExperimentsBatch : .allExperiments(user: user ?? "")
        case .bundle, .typed:
            mode = user == "-" ? .batch(summary: arguments[BucketFlags.summary]) : .single(user: user ?? "")
        }
        try mode.flags.check(arguments, declared: BucketFlags.all)
        if arguments[BucketFlags.variants] != nil && arguments[BucketFlags.bundle] != nil {
            throw ModeFlags.conflict("--variants", "--bundle", instead: "both give the variants: use one")
        }
        return mode
    }

    /// The flags of `reads` that the mode's decision consumes and its plan builder does not
    /// read again: the selector (`--self-test`), or a flag accepted and meaning nothing more
    /// (`--vectors --json`). `BucketPlanReadsTests` checks that `BucketPlan(mode:)` reads
    /// exactly `flags.reads` without these.
    var decidedBy: [FlagSpec] {
        switch self {
        case .selfTest: return [BucketFlags.selfTest.spec]
        case .vectors: return [BucketFlags.vectors.spec, BucketFlags.json.spec]
        case .find: return [BucketFlags.find.spec]
        case .force: return [BucketFlags.force.spec]
        case .allExperiments, .allExperimentsBatch, .single: return []
        case .batch: return [BucketFlags.summary.spec]
        }
    }

    /// What the mode reads; for a flag it does not, what to use instead.
    var flags: ModeFlags {
        let forABatch = "it is for a batch: give USER '-' and one user id per line on stdin"
        let oneUser = "it explains one user's rows: give USER instead of '-'"
        switch self {
        case .selfTest:
            return ModeFlags("--self-test", reads: [BucketFlags.selfTest.spec, BucketFlags.json.spec])
        case .vectors:
            // Always one JSON document; --json says so again and is accepted.
            return ModeFlags("--vectors", reads: [BucketFlags.vectors.spec, BucketFlags.count.spec, BucketFlags.seed.spec, BucketFlags.json.spec],
                             instead: [(BucketFlags.scheme.spec, "the vectors give both schemes")])
        case .find:
            return ModeFlags("--find", reads: [BucketFlags.find.spec, BucketFlags.count.spec, BucketFlags.prefix.spec, BucketFlags.json.spec]
                                 + Self.experimentSource)
        case .force:
            return ModeFlags("--force-variant", reads: [BucketFlags.force.spec, BucketFlags.prefix.spec, BucketFlags.json.spec, BucketFlags.bundle.spec]
                                 + Self.context + APIFlags.wholeCommand,
                             instead: [(BucketFlags.variants.spec, "--force-variant reads the experiments (status, targeting, variants) from --bundle"),
                                       (BucketFlags.scheme.spec, "devices compute the sdk scheme, which --force-variant searches"),
                                       (BucketFlags.count.spec, "one id forces every variant; run again with another --prefix for more")])
        case .allExperiments:
            return ModeFlags("every experiment of a bundle (no EXPERIMENT)",
                             reads: Self.bundleSource + [BucketFlags.explain.spec, BucketFlags.json.spec],
                             instead: [(BucketFlags.variants.spec, "--bundle gives the variants"),
                                       (BucketFlags.summary.spec, "--summary counts one experiment: give EXPERIMENT"),
                                       (BucketFlags.format.spec, forABatch)])
        case .allExperimentsBatch:
            return ModeFlags("a batch over every experiment (USER '-', no EXPERIMENT)",
                             reads: Self.bundleSource + [BucketFlags.format.spec],
                             instead: [(BucketFlags.variants.spec, "--bundle gives the variants"),
                                       (BucketFlags.summary.spec, "--summary counts one experiment: give EXPERIMENT"),
                                       (BucketFlags.explain.spec, oneUser),
                                       (BucketFlags.json.spec, "the rows are --format tsv, csv or ndjson (one JSON object per line)")])
        case .batch(summary: false):
            return ModeFlags("a batch (USER '-')", reads: Self.experimentSource + [BucketFlags.format.spec, BucketFlags.summary.spec],
                             instead: [(BucketFlags.explain.spec, oneUser),
                                       (BucketFlags.json.spec, "the rows are --format tsv, csv or ndjson (one JSON object per line); --summary --json gives the counts as JSON")])
        case .batch(summary: true):
            return ModeFlags("--summary", reads: Self.experimentSource + [BucketFlags.summary.spec, BucketFlags.json.spec],
                             instead: [(BucketFlags.explain.spec, oneUser),
                                       (BucketFlags.format.spec, "--summary prints counts, not rows")])
        case .single:
            return ModeFlags("one user's report", reads: Self.experimentSource + [BucketFlags.explain.spec, BucketFlags.json.spec],
                             instead: [(BucketFlags.summary.spec, forABatch), (BucketFlags.format.spec, forABatch)])
        }
    }
}
