/// Who the user is, as far as experiment eligibility cares (from `--platform`, `--country`, …).
public struct UserContext: Sendable {
    public var platform: String?
    public var country: String?
    public var appVersion: String?
    public var traits: [String: String]
    public var installedAtMs: Int64?

    public init(platform: String? = nil, country: String? = nil, appVersion: String? = nil,
                traits: [String: String] = [:], installedAtMs: Int64? = nil) {
        self.platform = platform
        self.country = country
        self.appVersion = appVersion
        self.traits = traits
        self.installedAtMs = installedAtMs
    }
}

/// One rule's verdict, in the order devices check them.
public struct RuleOutcome: Sendable, Equatable {
    public let rule: String
    public let passed: Bool
    public let detail: String
}

/// Devices decide eligibility in this order: status, platform, targeting, traffic allocation;
/// only then does the variant bucket matter. Malformed targeting fails closed.
public enum Eligibility {
    public static func evaluate(_ experiment: ExperimentDefinition, userID: String, context: UserContext) -> [RuleOutcome] {
        var outcomes: [RuleOutcome] = []
        func add(_ rule: String, _ passed: Bool, _ detail: String) -> Bool {
            outcomes.append(RuleOutcome(rule: rule, passed: passed, detail: detail))
            return passed
        }

        let status = experiment.status ?? "(none)"
        guard add("status", status == "running", "status is \(status)" + (status == "running" ? "" : "; only running experiments assign")) else {
            return outcomes
        }

        if let platforms = experiment.platforms {
            let listed = platforms.joined(separator: ", ")
            guard let platform = context.platform else {
                _ = add("platform", false, "the experiment runs on \(listed); say which with --platform")
                return outcomes
            }
            guard add("platform", platforms.contains(platform.lowercased()), "\(platform) " + (platforms.contains(platform.lowercased()) ? "is" : "is not") + " in [\(listed)]") else {
                return outcomes
            }
        }

        if let targeting = experiment.targeting, targeting != .null {
            for outcome in Targeting.evaluate(targeting, context: context, startedAtMs: experiment.startedAtMs) {
                outcomes.append(outcome)
                if !outcome.passed { return outcomes }
            }
        }

        if let share = experiment.trafficAllocation {
            let bucket = BucketingScheme.allocationBucket(user: userID, experiment: experiment.id, salt: experiment.salt)
            guard share.isFinite else {
                _ = add("traffic_allocation", false, "traffic_allocation is not a finite number: no one is in the experiment")
                return outcomes
            }
            let threshold = UInt32(max(0, min(10_000, (share * 10_000).rounded())))
            _ = add("traffic_allocation", bucket < threshold,
                    "allocation bucket \(bucket) " + (bucket < threshold ? "<" : ">=") + " \(threshold) (traffic_allocation \(share))")
        }
        return outcomes
    }
}
