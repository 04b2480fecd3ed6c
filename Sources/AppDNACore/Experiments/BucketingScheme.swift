/// The two ways of turning (user, experiment, salt) into a bucket.
///
/// `sdk` is what shipping devices compute (iOS >= 1.0.70, Android); `docs` is the formula the
/// documentation gives. They disagree, so the tool offers both and names which one it used.
public enum BucketingScheme: String, Sendable, CaseIterable {
    case sdk
    case docs

    /// How many buckets the scheme spreads users over.
    public var bucketCount: UInt32 {
        switch self {
        case .sdk: return 10_000
        case .docs: return 100
        }
    }

    /// The salt actually hashed. Devices replace an empty or whitespace-only salt with the
    /// experiment id (iOS <= 1.0.69 did not, which is why a blank salt deserves a warning);
    /// the documented formula uses the salt as given.
    public func effectiveSalt(_ salt: String, experiment: String) -> String {
        switch self {
        case .sdk: return Self.isBlank(salt) ? experiment : salt
        case .docs: return salt
        }
    }

    /// The exact string whose UTF-8 bytes are hashed.
    public func hashedString(user: String, experiment: String, salt: String) -> String {
        switch self {
        case .sdk: return "\(experiment).\(effectiveSalt(salt, experiment: experiment)).\(user)"
        case .docs: return user + experiment + salt
        }
    }

    /// Hash and bucket for one user.
    public func assign(user: String, experiment: String, salt: String) -> BucketAssignment {
        let hashed = hashedString(user: user, experiment: experiment, salt: salt)
        let hash = MurmurHash3.x86_32(utf8: hashed)
        return BucketAssignment(scheme: self, hashedString: hashed, hash: hash, bucket: hash % bucketCount)
    }

    /// The second hash of the newest iOS SDK that decides whether a user enters the experiment
    /// at all (traffic allocation), over the same 10,000 buckets.
    public static func allocationBucket(user: String, experiment: String, salt: String) -> UInt32 {
        let hashed = BucketingScheme.sdk.hashedString(user: user, experiment: experiment, salt: salt) + ".allocation"
        return MurmurHash3.x86_32(utf8: hashed) % BucketingScheme.sdk.bucketCount
    }

    /// Empty or only white space (Unicode's definition, as Swift's `trimmingCharacters` does).
    public static func isBlank(_ salt: String) -> Bool {
        salt.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }
}

/// The result of hashing one user for one experiment.
public struct BucketAssignment: Sendable, Equatable {
    public let scheme: BucketingScheme
    public let hashedString: String
    public let hash: UInt32
    public let bucket: UInt32
}
