/// A variant forced by identity (issue 51.2): devices compute their assignment themselves from
/// the user id (`identify()`'s id, else the anonymous id; platform facts §7), so an id that lands
/// in the wanted variants forces them on every SDK version, whatever server the device talks to.
///
/// `ForcedIdentity` plans the search for one id that a device in a given context assigns every
/// forced variant: status, platform and targeting (`Eligibility.contextRules`, the same for every
/// id in the context), traffic allocation and the variant bucket (`BucketingScheme.sdk`, the
/// hashing devices do), or says which requirement no id can meet. The search budget:
///
/// - each forced experiment keeps the ids whose variant bucket is in the variant's range (b of
///   10,000 buckets), and on iOS, with `traffic_allocation`, whose allocation bucket is under the
///   threshold (t of 10,000; §2.5, applied by iOS >= 1.0.78, and an id inside the share is in on
///   every version); on iOS with a blank salt, also the bucket iOS <= 1.0.69 computes from the
///   literal salt (§2.1);
/// - MurmurHash3 of distinct inputs is taken as independent and uniform, so an id qualifies with
///   probability p = Π b/10,000 × Π t/10,000 and the search expects 1/p tries;
/// - a plan expecting more than `maxExpectedTries` is refused (too rare a combination to search
///   in seconds), and the search stops after `limitFactor / p` tries: the chance that an id
///   exists but is not reached is (1 − p)^(20/p) < e^−20 ≈ 2·10^−9.
public struct ForcedIdentity: Sendable {
    /// The most tries a plan may expect (each try hashes one to three strings per experiment).
    public static let maxExpectedTries = 2_000_000
    /// The search gives up after this many times the expected tries.
    public static let limitFactor = 20

    /// One forced variant, as asked.
    public struct Forced: Sendable, Equatable {
        public let experiment: String
        public let variant: String
        public init(experiment: String, variant: String) {
            self.experiment = experiment
            self.variant = variant
        }
    }

    /// Why no id can be found: what an experiment requires that the context or the bundle does
    /// not allow, or what the context does not say.
    public enum Obstacle: Sendable, Equatable {
        /// The bundle has no such experiment (`known`: the ones it has).
        case noSuchExperiment(String, known: [String])
        /// The same experiment is forced to two variants.
        case forcedTwice(experiment: String, variants: [String])
        /// The experiment has no such variant (`variants`: the ones it has).
        case noSuchVariant(experiment: String, variant: String, variants: [String])
        /// The variant owns no bucket (weight 0, or truncated to 0), so no id lands in it.
        case variantWithoutBuckets(experiment: String, variant: String)
        /// A rule every id in this context fails: status not running, platform not listed, a
        /// targeting rule (`rule.detail` says which and why).
        case ruleFails(experiment: String, rule: RuleOutcome)
        /// A rule the context does not settle (`rule.settledBy`: what to give).
        case contextNeeded(experiment: String, rule: RuleOutcome)
        /// iOS applies a `traffic_allocation` that lets no one in (0, or not a finite number).
        case allocationEmpty(experiment: String, share: Double)
        /// The combination is too rare to search: `expectedTries` over the budget.
        case tooRare(expectedTries: Double, limit: Int)

        /// One sentence, without flag names (the CLI and the server add how to settle it).
        public var description: String {
            switch self {
            case .noSuchExperiment(let id, let known):
                return "no experiment '\(id)' in the bundle; it has " + (known.isEmpty ? "none" : known.joined(separator: ", "))
            case .forcedTwice(let id, let variants):
                return "\(id) is forced to more than one variant (\(variants.joined(separator: ", "))); a user gets one"
            case .noSuchVariant(let id, let variant, let variants):
                return "\(id) has no variant '\(variant)'; its variants are " + variants.joined(separator: ", ")
            case .variantWithoutBuckets(let id, let variant):
                return "\(id): variant '\(variant)' owns no bucket (its weight truncates to 0 of 10,000), so no user id lands in it"
            case .ruleFails(let id, let rule):
                return "\(id): \(rule.rule) fails for every user id in this context: \(rule.detail)"
            case .contextNeeded(let id, let rule):
                return "\(id): \(rule.rule) depends on the device's context, which does not say: \(rule.detail)"
            case .allocationEmpty(let id, let share):
                return "\(id): traffic_allocation \(share) lets no user in on iOS SDK >= 1.0.78"
            case .tooRare(let expected, let limit):
                return "the forced variants together take about \(Int(min(expected, 1e18))) tries per id, more than the \(limit) searched"
            }
        }
    }

    /// A plan: the search, or every obstacle found.
    public enum Planned: Sendable {
        case ready(ForcedIdentity)
        case refused([Obstacle])
    }

    /// What one forced experiment asks of an id.
    struct Requirement: Sendable {
        let definition: ExperimentDefinition
        let allocation: VariantAllocation
        let variantIndex: Int
        /// The traffic allocation threshold when the device applies it (iOS), else nil.
        let allocationThreshold: UInt32?
        /// The literal salt iOS <= 1.0.69 hashed when the salt is blank (iOS only), else nil.
        let legacySalt: String?
    }

    let requirements: [Requirement]
    public let context: UserContext
    /// The chance one id meets every requirement, and the tries that makes likely.
    public let probability: Double
    public let expectedTries: Int
    /// When the search gives up.
    public let limit: Int

    /// Plans a search, or returns every obstacle found (several experiments may each have one).
    /// The context's platform must be given: traffic allocation and the old-iOS salt depend on it.
    public static func plan(experiments: [ExperimentDefinition], forced: [Forced], context: UserContext) -> Planned {
        var obstacles: [Obstacle] = []
        var requirements: [Requirement] = []
        var seen: [ByteKey: [String]] = [:]
        for entry in forced { seen[ByteKey(entry.experiment), default: []].append(entry.variant) }
        var reportedTwice = Set<ByteKey>()
        let platform = context.platform?.lowercased()
        for entry in forced {
            let key = ByteKey(entry.experiment)
            if let variants = seen[key], Set(variants.map { ByteKey($0) }).count > 1 {
                if reportedTwice.insert(key).inserted { obstacles.append(.forcedTwice(experiment: entry.experiment, variants: variants)) }
                continue
            }
            guard let definition = experiments.first(where: { ByteIdentity.same($0.id, entry.experiment) }) else {
                obstacles.append(.noSuchExperiment(entry.experiment, known: experiments.map(\.id)))
                continue
            }
            if requirements.contains(where: { ByteIdentity.same($0.definition.id, definition.id) }) { continue }
            let allocation = VariantAllocation(weights: definition.variants)
            guard let index = allocation.ranges.firstIndex(where: { ByteIdentity.same($0.variant, entry.variant) }) else {
                obstacles.append(.noSuchVariant(experiment: definition.id, variant: entry.variant, variants: allocation.ranges.map(\.variant)))
                continue
            }
            var blocked = false
            if allocation.ranges[index].bucketCount == 0 {
                obstacles.append(.variantWithoutBuckets(experiment: definition.id, variant: entry.variant))
                blocked = true
            }
            for rule in Eligibility.contextRules(definition, context: context) {
                if rule.failed {
                    obstacles.append(.ruleFails(experiment: definition.id, rule: rule)); blocked = true
                } else if rule.state == .unknown {
                    obstacles.append(.contextNeeded(experiment: definition.id, rule: rule)); blocked = true
                }
            }
            var threshold: UInt32?
            if let share = definition.trafficAllocation {
                switch Eligibility.appliesTrafficAllocation(platformLowercased: platform, sdkVersion: nil) {
                case true?:
                    threshold = UInt32(AssignmentChange.allocationThreshold(share))
                    if threshold == 0 { obstacles.append(.allocationEmpty(experiment: definition.id, share: share)); blocked = true }
                case false?:
                    break
                case nil:
                    if !obstacles.contains(where: { if case .contextNeeded(let id, let rule) = $0 { return id == definition.id && rule.settledBy == .platform }; return false }) {
                        obstacles.append(.contextNeeded(experiment: definition.id, rule: .unknown(
                            "traffic_allocation", "applied on iOS SDK >= 1.0.78, not on Android; no platform given", settledBy: .platform)))
                    }
                    blocked = true
                }
            }
            if blocked { continue }
            let legacy = platform == "ios" && BucketingScheme.isBlank(definition.salt) ? definition.salt : nil
            requirements.append(Requirement(definition: definition, allocation: allocation, variantIndex: index,
                                            allocationThreshold: threshold, legacySalt: legacy))
        }
        guard obstacles.isEmpty else { return .refused(obstacles) }
        var probability = 1.0
        for requirement in requirements {
            let share = Double(requirement.allocation.ranges[requirement.variantIndex].bucketCount) / 10_000
            probability *= share
            if requirement.legacySalt != nil { probability *= share }
            if let threshold = requirement.allocationThreshold { probability *= Double(threshold) / 10_000 }
        }
        let expected = 1 / probability
        guard expected <= Double(maxExpectedTries) else {
            return .refused([Obstacle.tooRare(expectedTries: expected.rounded(.up), limit: maxExpectedTries)])
        }
        return .ready(ForcedIdentity(requirements: requirements, context: context, probability: probability,
                                        expectedTries: Int(expected.rounded(.up)), limit: Int((Double(limitFactor) * expected).rounded(.up))))
    }

    /// Whether a device in the context assigns every forced variant to `user`.
    public func qualifies(_ user: String) -> Bool {
        for requirement in requirements {
            let definition = requirement.definition
            let bucket = BucketingScheme.sdk.assign(user: user, experiment: definition.id, salt: definition.salt).bucket
            guard requirement.allocation.variantIndex(forBucket: bucket) == requirement.variantIndex else { return false }
            if let threshold = requirement.allocationThreshold,
               BucketingScheme.allocationBucket(user: user, experiment: definition.id, salt: definition.salt) >= threshold {
                return false
            }
            if let salt = requirement.legacySalt {
                let legacy = MurmurHash3.x86_32(utf8: "\(definition.id).\(salt).\(user)") % BucketingScheme.sdk.bucketCount
                guard requirement.allocation.variantIndex(forBucket: legacy) == requirement.variantIndex else { return false }
            }
        }
        return true
    }

    /// Tries `prefix0`, `prefix1`, … (from `start`) until one qualifies or `limit` tries are
    /// made; `progress` gets the tries so far now and then. Returns the id, if any, and the tries.
    public func search(prefix: String, start: Int = 0, progress: (Int) -> Void = { _ in }) -> (user: String?, tries: Int) {
        var tries = 0
        while tries < limit {
            let user = prefix + String(start &+ tries)
            tries += 1
            if tries & 0xFFFF == 0 { progress(tries) }
            if qualifies(user) { return (user, tries) }
        }
        return (nil, tries)
    }

    /// The experiments the search constrains, in the order forced.
    public var experiments: [ExperimentDefinition] { requirements.map(\.definition) }
}
