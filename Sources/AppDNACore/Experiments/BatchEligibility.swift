/// Eligibility for many users of one experiment in one context (`bucket -` with a bundle): the
/// rules that do not depend on the user (status, platform, targeting) are judged once, and per
/// user only traffic allocation is hashed, from the id's bytes (no String, no rule list). The
/// answer is the kind of `Eligibility.verdict`'s verdict for the same user and context.
public struct BatchEligibility {
    public enum Kind: Sendable {
        case eligible, notEligible, unknown

        /// Whether devices may assign a variant (`EligibilityVerdict.mayAssign`).
        public var mayAssign: Bool { self != .notEligible }
    }

    /// The context rules' kind: a failed one decides for every user.
    private let contextKind: Kind
    /// Traffic allocation, when the experiment has it and no context rule failed.
    private let allocation: (share: Double, hasher: BatchBucketer, platform: String?, sdkVersion: String?)?

    /// Not shared between threads: the allocation hasher has scratch memory (make one per thread).
    public init(_ experiment: ExperimentDefinition, context: UserContext) {
        let kind = Self.kind(EligibilityVerdict(Eligibility.contextRules(experiment, context: context)))
        contextKind = kind
        if kind != .notEligible, let share = experiment.trafficAllocation {
            allocation = (share, .trafficAllocation(experiment: experiment.id, salt: experiment.salt), context.platform?.lowercased(), context.sdkVersion)
        } else {
            allocation = nil
        }
    }

    /// The verdict's kind for the user whose id these UTF-8 bytes are.
    @inline(__always)
    public func kind(_ user: UnsafeRawBufferPointer) -> Kind {
        guard let allocation else { return contextKind }
        let bucket = allocation.hasher.bucket(allocation.hasher.hash(user))
        switch Eligibility.allocationState(share: allocation.share, bucket: bucket, platformLowercased: allocation.platform, sdkVersion: allocation.sdkVersion) {
        case .failed: return .notEligible
        case .unknown: return .unknown
        case .passed: return contextKind
        }
    }

    public static func kind(_ verdict: EligibilityVerdict) -> Kind {
        switch verdict {
        case .eligible: return .eligible
        case .notEligible: return .notEligible
        case .unknown: return .unknown
        }
    }
}
