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
    @usableFromInline let contextKind: Kind
    /// Whether traffic allocation is judged per user: the experiment has it and no context
    /// rule failed. The fields are plain (no optional tuple): reading them per user copies
    /// nothing.
    @usableFromInline let hashesUsers: Bool
    /// Buckets below it are inside the share (`AssignmentChange.allocationThreshold`).
    @usableFromInline let threshold: UInt32
    /// Whether devices in this context apply traffic allocation (`appliesTrafficAllocation`).
    @usableFromInline let applied: Bool?
    @usableFromInline let hasher: BatchBucketer

    /// Not shared between threads: the allocation hasher has scratch memory (make one per thread).
    public init(_ experiment: ExperimentDefinition, context: UserContext) {
        let kind = Self.kind(EligibilityVerdict(Eligibility.contextRules(experiment, context: context)))
        contextKind = kind
        hashesUsers = kind != .notEligible && experiment.trafficAllocation != nil
        threshold = UInt32(AssignmentChange.allocationThreshold(experiment.trafficAllocation))
        applied = Eligibility.appliesTrafficAllocation(platformLowercased: context.platform?.lowercased(), sdkVersion: context.sdkVersion)
        hasher = .trafficAllocation(experiment: experiment.id, salt: experiment.salt)
    }

    /// The verdict's kind for the user whose id these UTF-8 bytes are (inlinable: see
    /// `BatchBucketer.hash`).
    @inlinable @inline(__always)
    public func kind(_ user: UnsafeRawBufferPointer) -> Kind {
        guard hashesUsers else { return contextKind }
        switch Eligibility.allocationState(bucket: hasher.bucket(hasher.hash(user)), threshold: threshold, applied: applied) {
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
