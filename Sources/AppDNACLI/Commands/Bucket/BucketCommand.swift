import AppDNACore

/// `appdna bucket`: which bucket and variant a user gets, exactly as devices compute it.
enum BucketCommand {
    /// The operands the parser counts: the mode's selector decides them (`BucketMode.Selector`),
    /// the retired `--sql` spellings none (they are refused before any mode).
    @Sendable static func operandsGiven(_ arguments: ParsedArguments) -> [OperandSpec] {
        if RetiredSQLFlags.given(arguments, bucket: true) { return [] }
        return BucketMode.Selector(arguments).operands
    }

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> BucketPlan {
        try RetiredSQLFlags.refuse(arguments, bucket: true, bundle: arguments[BucketFlags.bundle],
                                   scheme: arguments.given(BucketFlags.scheme.spec) ? arguments[BucketFlags.scheme].rawValue : nil)
        let mode = try BucketMode.decide(arguments)
        // Devices hash the id's UTF-8 bytes: an argument that is not UTF-8 has no such bytes
        // (the same refusal as for such a line on stdin).
        if let bad = arguments.operands.firstIndex(where: invocation.io.notUTF8Arguments.contains) {
            throw Failure(.malformedInput, "\(bad == 0 ? "the user id" : "operand \(bad + 1)") is not valid UTF-8; devices hash the UTF-8 bytes of ids",
                          hint: "pass the id as the app has it (UTF-8), or convert it first: iconv -t UTF-8")
        }
        let plan = BucketPlan(mode: mode, arguments)
        try plan.source.refuseFlagsWithoutEffect(arguments)
        return plan
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: BucketPlan, _ invocation: Invocation) throws -> ExitStatus {
        switch plan.mode {
        case .selfTest: return BucketSelfTest.run(invocation, plan)
        case .vectors: return try BucketVectors.run(invocation, plan)
        case .allExperiments(let user): return try BucketAllExperiments.run(invocation, plan, user: user)
        case .allExperimentsBatch: return try BucketAllExperiments.run(invocation, plan, user: "-")
        case .force(let forced): return try BucketForce.run(invocation, plan, forced: forced)
        case .find(let variant): return try BucketFind.run(invocation, plan, variant: variant, setup: try BucketSetup(invocation, plan.source, experimentOperand: 0))
        case .batch(let summary): return try BucketBatch.run(invocation, plan, summary: summary, setup: try BucketSetup(invocation, plan.source, experimentOperand: 1))
        case .single(let user): return BucketReport.run(invocation, plan, setup: try BucketSetup(invocation, plan.source, experimentOperand: 1), user: user)
        }
    }
}

/// Everything one `bucket` run needs, read from the arguments once: the mode (with what
/// selects it), how it writes, and where its experiments come from. The run reads this, never
/// the arguments. Each mode's builder reads exactly the flags its `BucketMode.flags` lists
/// (`BucketPlanReadsTests` checks the two against each other); a field a mode does not read
/// keeps its default.
struct BucketPlan {
    let mode: BucketMode
    var json = false
    var explain = false
    var format = BucketBatch.Format.tsv
    /// --count as given: --find and --vectors each check it against a range of their own.
    var count: Int? = nil
    /// --find's and --force-variant's --prefix.
    var prefix = ""
    /// --vectors' --seed.
    var seed = VectorSeed(text: "1", value: 1)
    var source = ExperimentSource()

    init(mode: BucketMode, _ arguments: ParsedArguments) {
        self.mode = mode
        switch mode {
        case .selfTest:
            json = arguments[BucketFlags.json]
        case .vectors:
            count = arguments[BucketFlags.count]
            seed = arguments[BucketFlags.seed]
        case .find:
            count = arguments[BucketFlags.count]
            prefix = arguments[BucketFlags.prefix]
            json = arguments[BucketFlags.json]
            source = ExperimentSource(arguments, scheme: true, variants: true)
        case .force:
            prefix = arguments[BucketFlags.prefix]
            json = arguments[BucketFlags.json]
            source = ExperimentSource(arguments, scheme: false, variants: false)
        case .allExperiments:
            explain = arguments[BucketFlags.explain]
            json = arguments[BucketFlags.json]
            source = ExperimentSource(arguments, scheme: true, variants: false)
        case .allExperimentsBatch:
            format = arguments[BucketFlags.format]
            source = ExperimentSource(arguments, scheme: true, variants: false)
        case .batch(summary: false):
            format = arguments[BucketFlags.format]
            source = ExperimentSource(arguments, scheme: true, variants: true)
        case .batch(summary: true):
            json = arguments[BucketFlags.json]
            source = ExperimentSource(arguments, scheme: true, variants: true)
        case .single:
            explain = arguments[BucketFlags.explain]
            json = arguments[BucketFlags.json]
            source = ExperimentSource(arguments, scheme: true, variants: true)
        }
    }
}

/// Where the experiments of a run come from, as the flags and operands give it: the
/// operands (EXPERIMENT and SALT after USER), the variants typed or a bundle (read with the
/// API flags when it is `@remote`), the scheme and the user context.
struct ExperimentSource {
    var operands: [String] = []
    var scheme = BucketingScheme.sdk
    var bundle: String? = nil
    var variants: String? = nil
    var context = UserContext()
    var api = APISettings()

    /// No experiments (the modes that read none).
    init() {}

    /// `scheme` and `variants`: whether the mode reads `--scheme` and `--variants` (the modes
    /// that take every experiment from the bundle do not; --force-variant searches the sdk scheme).
    init(_ arguments: ParsedArguments, scheme readsScheme: Bool, variants readsVariants: Bool) {
        operands = arguments.operands
        if readsScheme { scheme = arguments[BucketFlags.scheme] }
        bundle = arguments[BucketFlags.bundle]
        if readsVariants { variants = arguments[BucketFlags.variants] }
        context = BucketSetup.userContext(arguments)
        api = APISettings(arguments)
    }

    func operand(_ index: Int) -> String? { index < operands.count ? operands[index] : nil }

    /// The device's context is for a bundle's targeting, and the API flags for fetching
    /// `@remote`: without them each such flag would change nothing, so it is refused (64). The
    /// modes that read no experiments have refused them already (their `ModeFlags`).
    func refuseFlagsWithoutEffect(_ arguments: ParsedArguments) throws(Failure) {
        if bundle == nil {
            try ModeFlags("--variants (no bundle to target)", reads: [], instead: BucketFlags.context.map { ($0, "it describes the device to the targeting of a --bundle") })
                .check(arguments, declared: BucketFlags.context)
        }
        _ = try APISettings(arguments, bundle: bundle)
    }
}

/// Everything the flags say about the experiment and the user, checked once.
struct BucketSetup {
    let scheme: BucketingScheme
    let experiment: String
    let salt: String
    /// From `--variants`, or the bundle's variants.
    let allocation: VariantAllocation?
    /// From `--bundle`: status, platforms, targeting and traffic allocation to evaluate.
    let definition: ExperimentDefinition?
    let context: UserContext

    /// One experiment of a bundle, already read (the all-experiments mode).
    init(scheme: BucketingScheme, definition: ExperimentDefinition, context: UserContext) {
        self.init(scheme: scheme, experiment: definition.id, salt: definition.salt,
                  allocation: definition.variants.isEmpty ? nil : VariantAllocation(weights: definition.variants, bucketCount: scheme.bucketCount),
                  definition: definition, context: context)
    }

    private init(scheme: BucketingScheme, experiment: String, salt: String, allocation: VariantAllocation?,
                 definition: ExperimentDefinition?, context: UserContext) {
        self.scheme = scheme
        self.experiment = experiment
        self.salt = salt
        self.allocation = allocation
        self.definition = definition
        self.context = context
    }

    init(_ invocation: Invocation, _ source: ExperimentSource, experimentOperand: Int) throws {
        let scheme = source.scheme
        guard let experiment = source.operand(experimentOperand) else {
            throw Failure(.usage, "'appdna bucket' needs EXPERIMENT (or --bundle FILE alone for every experiment)")
        }
        let saltOperand = source.operand(experimentOperand + 1)
        if let path = source.bundle {
            let document = try BundleArgument.document(path, invocation, api: source.api)
            let definition = try BundleExperiments.experiment(experiment, in: document.root, file: path)
            if let saltOperand, saltOperand != definition.salt {
                throw Failure(.usage, "SALT '\(saltOperand)' differs from the bundle's salt '\(definition.salt)' for \(experiment); leave SALT out with --bundle")
            }
            self.init(scheme: scheme, definition: definition, context: source.context)
            return
        } else {
            guard let saltOperand else {
                throw Failure(.usage, "'appdna bucket' needs SALT (or --bundle FILE to take it from the bundle)")
            }
            var allocation: VariantAllocation?
            if let text = source.variants {
                let weights: [(variant: String, weight: Double)]
                do throws(Failure) { weights = try VariantWeights.parse(text) } catch { throw error.naming("--variants") }
                allocation = VariantAllocation(weights: weights, bucketCount: scheme.bucketCount)
            }
            self.init(scheme: scheme, experiment: experiment, salt: saltOperand, allocation: allocation,
                      definition: nil, context: source.context)
        }
    }

    /// The user context flags. What is not given stays unknown: rules needing it are not checked.
    static func userContext(_ arguments: ParsedArguments) -> UserContext {
        var traits: [ByteKey: String] = [:]
        for trait in arguments[BucketFlags.trait] { traits[ByteKey(trait.key)] = trait.value }
        return UserContext(platform: arguments[BucketFlags.platform]?.rawValue, country: arguments[BucketFlags.country],
                           appVersion: arguments[BucketFlags.appVersion], traits: traits, installedAtMs: arguments[BucketFlags.installedAt])
    }

    /// Eligibility rules for `user` (empty without a bundle), the first that failed, and the
    /// verdict (eligible when there is no bundle to check).
    func rules(for user: String) -> (outcomes: [RuleOutcome], failed: RuleOutcome?, verdict: EligibilityVerdict) {
        guard let definition else { return ([], nil, .eligible) }
        let (outcomes, verdict) = Eligibility.verdict(definition, userID: user, context: context)
        return (outcomes, verdict.failedRule, verdict)
    }
}
