/// Buckets many users of one experiment fast: the fixed part of the hashed string is laid out
/// once, each user id is copied in after it, and nothing is allocated per user.
public struct BatchBucketer {
    public let scheme: BucketingScheme
    public let allocation: VariantAllocation?
    private var scratch: [UInt8]
    private let prefix: [UInt8]
    private let suffix: [UInt8]

    public init(scheme: BucketingScheme, experiment: String, salt: String, allocation: VariantAllocation?) {
        self.scheme = scheme
        self.allocation = allocation
        switch scheme {
        case .sdk:
            prefix = Array("\(experiment).\(scheme.effectiveSalt(salt, experiment: experiment)).".utf8)
            suffix = []
        case .docs:
            prefix = []
            suffix = Array((experiment + salt).utf8)
        }
        scratch = prefix + suffix
    }

    /// The traffic allocation hash of the newest iOS SDK (`BucketingScheme.allocationBucket`):
    /// the SDK's hashed string followed by `.allocation`; no variants.
    public static func trafficAllocation(experiment: String, salt: String) -> BatchBucketer {
        BatchBucketer(scheme: .sdk, prefix: Array("\(experiment).\(BucketingScheme.sdk.effectiveSalt(salt, experiment: experiment)).".utf8),
                      suffix: Array(".allocation".utf8), allocation: nil)
    }

    private init(scheme: BucketingScheme, prefix: [UInt8], suffix: [UInt8], allocation: VariantAllocation?) {
        self.scheme = scheme
        self.allocation = allocation
        self.prefix = prefix
        self.suffix = suffix
        scratch = prefix + suffix
    }

    /// Hash, bucket and variant index (nil without variants) of one user id given as UTF-8.
    public mutating func assign(_ user: UnsafeRawBufferPointer) -> (hash: UInt32, bucket: UInt32, variant: Int?) {
        let needed = prefix.count + user.count + suffix.count
        if scratch.count < needed {
            scratch = prefix + [UInt8](repeating: 0, count: user.count * 2 + 64) + suffix
        }
        let prefixCount = prefix.count
        let hash = scratch.withUnsafeMutableBytes { raw -> UInt32 in
            if user.count > 0 { (raw.baseAddress! + prefixCount).copyMemory(from: user.baseAddress!, byteCount: user.count) }
            if !suffix.isEmpty {
                suffix.withUnsafeBytes { (raw.baseAddress! + prefixCount + user.count).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            return MurmurHash3.x86_32(UnsafeRawBufferPointer(start: raw.baseAddress!, count: needed))
        }
        let bucket = hash % scheme.bucketCount
        return (hash, bucket, allocation?.variantIndex(forBucket: bucket))
    }
}
