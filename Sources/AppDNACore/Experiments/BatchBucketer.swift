/// Buckets many users of one experiment fast: the fixed part of the hashed string is laid out
/// once and its whole 4-byte blocks mixed into the hash state once; for each user only the
/// prefix's last 0 to 3 bytes, the user id and any fixed suffix are hashed, and nothing is
/// allocated per user.
public struct BatchBucketer {
    public let scheme: BucketingScheme
    public let allocation: VariantAllocation?
    /// The prefix's last `prefix.count % 4` bytes, then room for a user id, then the suffix.
    private var scratch: [UInt8]
    private let prefix: [UInt8]
    private let suffix: [UInt8]
    /// MurmurHash3's state after the prefix's whole blocks.
    private let prefixState: UInt32
    private let prefixTailCount: Int

    public init(scheme: BucketingScheme, experiment: String, salt: String, allocation: VariantAllocation?) {
        switch scheme {
        case .sdk:
            self.init(scheme: scheme, prefix: Array("\(experiment).\(scheme.effectiveSalt(salt, experiment: experiment)).".utf8),
                      suffix: [], allocation: allocation)
        case .docs:
            self.init(scheme: scheme, prefix: [], suffix: Array((experiment + salt).utf8), allocation: allocation)
        }
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
        let blocks = prefix.count & ~3
        prefixState = prefix.withUnsafeBytes { MurmurHash3.state(afterBlocksOf: UnsafeRawBufferPointer(rebasing: $0[0..<blocks])) }
        prefixTailCount = prefix.count - blocks
        scratch = Array(prefix[blocks...]) + suffix
    }

    /// Hash, bucket and variant index (nil without variants) of one user id given as UTF-8.
    public mutating func assign(_ user: UnsafeRawBufferPointer) -> (hash: UInt32, bucket: UInt32, variant: Int?) {
        let tailCount = prefixTailCount
        let needed = tailCount + user.count + suffix.count
        if scratch.count < needed {
            scratch = Array(prefix[(prefix.count - tailCount)...]) + [UInt8](repeating: 0, count: user.count * 2 + 64) + suffix
        }
        let hash = scratch.withUnsafeMutableBytes { raw -> UInt32 in
            if user.count > 0 { (raw.baseAddress! + tailCount).copyMemory(from: user.baseAddress!, byteCount: user.count) }
            if !suffix.isEmpty {
                suffix.withUnsafeBytes { (raw.baseAddress! + tailCount + user.count).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            return MurmurHash3.x86_32(continuing: prefixState, UnsafeRawBufferPointer(start: raw.baseAddress!, count: needed),
                                      totalCount: prefix.count + needed - tailCount)
        }
        let bucket = hash % scheme.bucketCount
        return (hash, bucket, allocation?.variantIndex(forBucket: bucket))
    }
}
