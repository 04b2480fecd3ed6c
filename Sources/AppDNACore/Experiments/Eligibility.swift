/// Who the user is, as far as experiment eligibility cares (from `--platform`, `--country`, …).
/// A field left nil is *unknown*, not empty: rules that need it are not checked.
public struct UserContext: Sendable {
    public var platform: String?
    public var country: String?
    public var appVersion: String?
    /// Trait values by name, the name keyed by its UTF-8 bytes: `café` (NFC) and `cafe\u{301}`
    /// (NFD) are two traits, as on devices.
    public var traits: [ByteKey: String]
    public var installedAtMs: Int64?
    /// The SDK version the device runs (the audit reads it from the event): traffic allocation
    /// is applied only by iOS SDKs from `Eligibility.trafficAllocationSinceIOS`. nil: unknown,
    /// taken to be the newest.
    public var sdkVersion: String?
    /// Whether `traits` are all the user has: then a trait rule on an absent trait fails
    /// (or, for `exists: false`, passes) instead of being left unchecked.
    public var traitsComplete: Bool

    public init(platform: String? = nil, country: String? = nil, appVersion: String? = nil,
                traits: [ByteKey: String] = [:], installedAtMs: Int64? = nil, traitsComplete: Bool = false, sdkVersion: String? = nil) {
        self.platform = platform
        self.country = country
        self.appVersion = appVersion
        self.traits = traits
        self.installedAtMs = installedAtMs
        self.traitsComplete = traitsComplete
        self.sdkVersion = sdkVersion
    }
}

/// One rule's verdict: passed, failed, or not checked because its input was not given.
public enum RuleState: String, Sendable {
    case passed
    case failed
    /// The input the rule needs was not given: devices may pass or fail it.
    case unknown
}

/// One rule's verdict, in the order devices check them.
public struct RuleOutcome: Sendable, Equatable {
    public let rule: String
    public let state: RuleState
    public let detail: String
    /// For an unknown rule: the piece of the user's context that would settle it (the CLI
    /// names the flag that gives it: `--platform`, `--trait plan=VALUE`).
    public let settledBy: ContextInput?

    public init(rule: String, passed: Bool, detail: String) {
        self.init(rule: rule, state: passed ? .passed : .failed, detail: detail)
    }

    public init(rule: String, state: RuleState, detail: String, settledBy: ContextInput? = nil) {
        self.rule = rule
        self.state = state
        self.detail = detail
        self.settledBy = settledBy
    }

    /// A rule that could not be checked without `input`.
    static func unknown(_ rule: String, _ detail: String, settledBy input: ContextInput) -> RuleOutcome {
        RuleOutcome(rule: rule, state: .unknown, detail: detail, settledBy: input)
    }

    public var passed: Bool { state == .passed }
    public var failed: Bool { state == .failed }
}

/// The overall answer: eligible, not eligible (a checked rule failed), or unknown (no rule
/// failed but some could not be checked).
public enum EligibilityVerdict: Sendable, Equatable {
    case eligible
    case notEligible(failed: RuleOutcome)
    case unknown(unchecked: [RuleOutcome])

    public init(_ outcomes: [RuleOutcome]) {
        if let failed = outcomes.first(where: \.failed) {
            self = .notEligible(failed: failed)
        } else {
            let unchecked = outcomes.filter { $0.state == .unknown }
            self = unchecked.isEmpty ? .eligible : .unknown(unchecked: unchecked)
        }
    }

    /// Whether devices may assign a variant: true unless a checked rule failed.
    public var mayAssign: Bool {
        if case .notEligible = self { return false }
        return true
    }

    public var failedRule: RuleOutcome? {
        if case .notEligible(let failed) = self { return failed }
        return nil
    }

    public var uncheckedRules: [RuleOutcome] {
        if case .unknown(let unchecked) = self { return unchecked }
        return []
    }
}

/// Devices decide eligibility in this order: status, platform, targeting, traffic allocation;
/// only then does the variant bucket matter. Malformed targeting fails closed. A rule whose
/// input was not given is not checked (its state is `unknown`) and the walk goes on: an
/// unknown context is not a failure.
public enum Eligibility {
    public static func evaluate(_ experiment: ExperimentDefinition, userID: String, context: UserContext) -> [RuleOutcome] {
        var outcomes = contextRules(experiment, context: context)
        if !outcomes.contains(where: \.failed), let allocation = allocationRule(experiment, userID: userID, context: context) {
            outcomes.append(allocation)
        }
        return outcomes
    }

    /// The rules that depend on the experiment and the context only (status, platform,
    /// targeting), up to the first failure: the same for every user in that context.
    public static func contextRules(_ experiment: ExperimentDefinition, context: UserContext) -> [RuleOutcome] {
        var outcomes: [RuleOutcome] = []
        func add(_ rule: String, _ passed: Bool, _ detail: String) -> Bool {
            outcomes.append(RuleOutcome(rule: rule, passed: passed, detail: detail))
            return passed
        }

        let status = experiment.status ?? "(none)"
        guard add("status", status == "running", "status is \(status)" + (status == "running" ? "" : "; only running experiments assign")) else {
            return outcomes
        }

        if experiment.platformsAreMalformed {
            _ = add("platform", false, "platforms is not a list of platform names: fails closed (no device runs it)")
            return outcomes
        }
        if let platforms = experiment.platforms {
            let listed = platforms.joined(separator: ", ")
            if let platform = context.platform {
                // Case-insensitive on both sides: "iOS" in the bundle is --platform ios.
                let listedHere = platforms.contains { $0.lowercased() == platform.lowercased() }  // not an id: platform names, compared case-insensitively
                guard add("platform", listedHere, "\(platform) " + (listedHere ? "is" : "is not") + " in [\(listed)]") else {
                    return outcomes
                }
            } else {
                outcomes.append(.unknown("platform", "runs on [\(listed)]; no platform given", settledBy: .platform))
            }
        }

        if let targeting = experiment.targeting, targeting != .null {
            for outcome in Targeting.evaluate(targeting, context: context, startedAtMs: experiment.startedAtMs) {
                outcomes.append(outcome)
                if outcome.failed { return outcomes }
            }
        }
        return outcomes
    }

    /// The first iOS SDK version that applies traffic allocation (the newest the platform facts
    /// read, 1.0.78). Android and older iOS SDKs ignore `traffic_allocation`.
    public static let trafficAllocationSinceIOS = [1, 0, 78]

    /// Whether the device applies traffic allocation: iOS from `trafficAllocationSinceIOS` (an
    /// unknown or unreadable SDK version counts as the newest), other non-Android platforms as
    /// the newest iOS; Android never. nil when no platform is known.
    public static func appliesTrafficAllocation(platformLowercased: String?, sdkVersion: String?) -> Bool? {
        guard let platform = platformLowercased else { return nil }
        if platform == "android" { return false }
        if platform == "ios", let version = sdkVersion.flatMap(Targeting.versionParts) {
            return Targeting.compareVersions(version, trafficAllocationSinceIOS) >= 0
        }
        return true
    }

    /// Traffic allocation, the one rule that depends on the user (nil when the experiment has
    /// none). Only iOS SDKs from 1.0.78 apply it: out on those devices, in elsewhere, so
    /// without a platform a user outside the share is `unknown`. A value that is not a finite
    /// number keeps everyone out where it is applied, and changes nothing where it is not.
    public static func allocationRule(_ experiment: ExperimentDefinition, userID: String, context: UserContext) -> RuleOutcome? {
        guard let share = experiment.trafficAllocation, let (state, bucket, threshold) = allocationState(experiment, userID: userID, context: context) else { return nil }
        let since = trafficAllocationSinceIOS.map(String.init).joined(separator: ".")
        let detail = share.isFinite
            ? "allocation bucket \(bucket) " + (bucket < threshold ? "<" : ">=") + " \(threshold) (traffic_allocation \(share))"
            : "traffic_allocation is not a finite number: no one is in the experiment where it is applied"
        switch state {
        case .unknown:
            return .unknown("traffic_allocation", detail + "; out on iOS SDK >= \(since), in on Android and older iOS; no platform given", settledBy: .platform)
        case .passed where !share.isFinite || bucket >= threshold:
            return RuleOutcome(rule: "traffic_allocation", passed: true, detail: detail + "; not applied: only iOS SDK >= \(since) applies traffic allocation")
        default:
            return RuleOutcome(rule: "traffic_allocation", state: state, detail: detail)
        }
    }

    /// The traffic allocation verdict without its wording (the exposure audit calls this for
    /// every exposure): nil when the experiment has none.
    public static func allocationState(_ experiment: ExperimentDefinition, userID: String, context: UserContext)
        -> (state: RuleState, bucket: UInt32, threshold: UInt32)? {
        guard let share = experiment.trafficAllocation else { return nil }
        let threshold = UInt32(AssignmentChange.allocationThreshold(share))
        let bucket = BucketingScheme.allocationBucket(user: userID, experiment: experiment.id, salt: experiment.salt)
        return (allocationState(share: share, bucket: bucket, platformLowercased: context.platform?.lowercased(), sdkVersion: context.sdkVersion),
                bucket, threshold)
    }

    /// The traffic allocation verdict for a user whose allocation bucket is known (the audit
    /// hashes without making Strings); `platformLowercased` is the context's platform, lowercased.
    public static func allocationState(share: Double, bucket: UInt32, platformLowercased: String?, sdkVersion: String? = nil) -> RuleState {
        allocationState(bucket: bucket, threshold: UInt32(AssignmentChange.allocationThreshold(share)),
                        applied: appliesTrafficAllocation(platformLowercased: platformLowercased, sdkVersion: sdkVersion))
    }

    /// The same from what does not depend on the user, worked out once per context (the batch
    /// asks this for every user): the share's `AssignmentChange.allocationThreshold` (0 for a
    /// share that is not a finite number) and `appliesTrafficAllocation`'s answer.
    @inlinable
    public static func allocationState(bucket: UInt32, threshold: UInt32, applied: Bool?) -> RuleState {
        if bucket < threshold { return .passed }
        switch applied {
        case false?: return .passed
        case nil: return .unknown
        case true?: return .failed
        }
    }

    /// The rules and the verdict together.
    public static func verdict(_ experiment: ExperimentDefinition, userID: String, context: UserContext) -> (outcomes: [RuleOutcome], verdict: EligibilityVerdict) {
        let outcomes = evaluate(experiment, userID: userID, context: context)
        return (outcomes, EligibilityVerdict(outcomes))
    }
}
