import AppDNACore

/// `appdna bucket`: which bucket and variant a user gets, exactly as devices compute it.
enum BucketCommand {
    static let operands = [
        OperandSpec("USER", "The user id (identified id, or the anonymous id); '-' reads one id per line from stdin"),
        OperandSpec("EXPERIMENT", "The experiment id (its key in the bundle's experiments map)"),
        OperandSpec("SALT", "The experiment's salt; taken from the bundle with --bundle", optional: true),
    ]

    /// `--self-test` and `--vectors` need no operands; `--find` needs no user; with `--bundle`
    /// the experiment may be left out (then every experiment in the bundle is shown).
    @Sendable static func operandsGiven(_ arguments: ParsedArguments) -> [OperandSpec] {
        if arguments[BucketFlags.selfTest] || arguments[BucketFlags.vectors] || RetiredSQLFlags.given(arguments, bucket: true) { return [] }
        if (arguments[BucketFlags.find] != nil) { return Array(operands.dropFirst()) }
        if !arguments[BucketFlags.force].isEmpty { return [] }
        if (arguments[BucketFlags.bundle] != nil) {
            return [operands[0], OperandSpec(operands[1].name, operands[1].summary, optional: true), operands[2]]
        }
        return operands
    }

    @Sendable static func plan(_ invocation: Invocation) throws -> BucketPlan {
        let arguments = invocation.arguments
        try RetiredSQLFlags.refuse(arguments, bucket: true, bundle: arguments[BucketFlags.bundle],
                                   scheme: arguments.given(BucketFlags.scheme.spec) ? arguments[BucketFlags.scheme].rawValue : nil)
        let mode = try BucketMode.decide(arguments)
        // Devices hash the id's UTF-8 bytes: an argument that is not UTF-8 has no such bytes
        // (the same refusal as for such a line on stdin).
        if let bad = arguments.operands.firstIndex(where: invocation.io.notUTF8Arguments.contains) {
            throw Failure(.malformedInput, "\(bad == 0 ? "the user id" : "operand \(bad + 1)") is not valid UTF-8; devices hash the UTF-8 bytes of ids",
                          hint: "pass the id as the app has it (UTF-8), or convert it first: iconv -t UTF-8")
        }
        return BucketPlan(mode: mode, arguments)
    }

    static let run = CommandPlan.run(plan: plan, then: perform)

    @Sendable static func perform(_ plan: BucketPlan, _ invocation: Invocation) throws -> ExitStatus {
        switch plan.mode {
        case .selfTest: return BucketSelfTest.run(invocation, plan)
        case .vectors: return try BucketVectors.run(invocation, plan)
        case .allExperiments(let user): return try BucketAllExperiments.run(invocation, plan, user: user)
        case .allExperimentsBatch: return try BucketAllExperiments.run(invocation, plan, user: "-")
        case .force: return try BucketForce.run(invocation, plan)
        case .find: return try BucketFind.run(invocation, plan, setup: try BucketSetup(invocation, plan.source, experimentOperand: 0))
        case .batch(let summary): return try BucketBatch.run(invocation, plan, summary: summary, setup: try BucketSetup(invocation, plan.source, experimentOperand: 1))
        case .single(let user): return BucketReport.run(invocation, plan, setup: try BucketSetup(invocation, plan.source, experimentOperand: 1), user: user)
        }
    }
}

/// Everything one `bucket` run needs, read from the arguments once: the mode, how it
/// writes, and where its experiments come from. The run reads this, never the arguments.
struct BucketPlan {
    let mode: BucketMode
    let json: Bool
    let explain: Bool
    let format: BucketBatch.Format
    /// --count as given: --find and --vectors each check it against a range of their own.
    let count: Int?
    /// --find's variant and --prefix.
    let findVariant: String?
    /// --force-variant's experiments and variants, in the order given.
    let forced: [ForcedIdentity.Forced]
    let prefix: String
    /// --vectors' --seed.
    let seed: VectorSeed
    let source: ExperimentSource

    init(mode: BucketMode, _ arguments: ParsedArguments) {
        self.mode = mode
        json = arguments[BucketFlags.json]
        explain = arguments[BucketFlags.explain]
        format = arguments[BucketFlags.format]
        count = arguments[BucketFlags.count]
        findVariant = arguments[BucketFlags.find]
        forced = arguments[BucketFlags.force].map { ForcedIdentity.Forced(experiment: $0.key, variant: $0.value) }
        prefix = arguments[BucketFlags.prefix]
        seed = arguments[BucketFlags.seed]
        source = ExperimentSource(arguments)
    }
}

/// Where the experiments of a run come from, as the flags and operands give it: the
/// operands (EXPERIMENT and SALT after USER), the variants typed or a bundle (read with the
/// API flags when it is `@remote`), the scheme and the user context.
struct ExperimentSource {
    let operands: [String]
    let scheme: BucketingScheme
    let bundle: String?
    let variants: String?
    let context: UserContext
    let api: APISettings

    init(_ arguments: ParsedArguments) {
        operands = arguments.operands
        scheme = arguments[BucketFlags.scheme]
        bundle = arguments[BucketFlags.bundle]
        variants = arguments[BucketFlags.variants]
        context = BucketSetup.userContext(arguments)
        api = APISettings(arguments)
    }

    func operand(_ index: Int) -> String? { index < operands.count ? operands[index] : nil }
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
        let experiment = source.operand(experimentOperand)!
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
