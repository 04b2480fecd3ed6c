/// Buckets many users of one experiment fast. The hashed string is `EXP.SALT.user` (SDK
/// scheme) or `user EXP SALT` (docs scheme): the fixed prefix's whole 4-byte blocks are mixed
/// into the hash once, up front, so each user costs only its own bytes; the variant of every
/// bucket is looked up in a table made once. Nothing is allocated per user.
public struct BatchBucketer {
    public let scheme: BucketingScheme
    public let allocation: VariantAllocation?
    // Inlinable per-user calls (`hash`, `bucket`, `variantIndex`) read these in place: called
    // from another module without inlining, the caller copied the whole bucketer (retaining
    // each of its arrays) for every call, which cost the --bundle batch more than hashing.
    /// Hash state after the prefix's whole blocks, and the prefix's length.
    @usableFromInline let prefixState: UInt32
    @usableFromInline let prefixCount: Int
    /// The prefix's last `prefixCount % 4` bytes, then room for the user id, then the suffix.
    @usableFromInline let scratch: Scratch
    @usableFromInline let suffix: [UInt8]
    /// `!suffix.isEmpty` and `!variantOfBucket.isEmpty`, asked per id: an array's count is
    /// read through a call the optimiser does not always inline into the batch's big loop.
    @usableFromInline let hasSuffix: Bool
    @usableFromInline let hasVariantTable: Bool
    /// The prefix's last `prefixCount % 4` bytes as a little-endian word, and how many.
    @usableFromInline let leadingWord: UInt32
    @usableFromInline let leadingCount: Int
    /// Variant index of each bucket (empty without variants, or with more than 255 variants).
    @usableFromInline let variantOfBucket: [UInt8]

    /// `variantTable: false` skips the table of every bucket's variant (10,000 bytes, made
    /// up front): for a bucketer kept per experiment of a whole bundle, as the exposure audit
    /// keeps on each thread, it would cost more to make and hold than it saves.
    public init(scheme: BucketingScheme, experiment: String, salt: String, allocation: VariantAllocation?, variantTable: Bool = true) {
        switch scheme {
        case .sdk:
            self.init(scheme: scheme, prefix: Array("\(experiment).\(scheme.effectiveSalt(salt, experiment: experiment)).".utf8), suffix: [],
                      allocation: allocation, variantTable: variantTable)
        case .docs:
            self.init(scheme: scheme, prefix: [], suffix: Array((experiment + salt).utf8), allocation: allocation, variantTable: variantTable)
        }
    }

    /// The traffic allocation hash of the newest iOS SDK (`BucketingScheme.allocationBucket`):
    /// the SDK's hashed string followed by `.allocation`; no variants.
    public static func trafficAllocation(experiment: String, salt: String) -> BatchBucketer {
        BatchBucketer(scheme: .sdk, prefix: Array("\(experiment).\(BucketingScheme.sdk.effectiveSalt(salt, experiment: experiment)).".utf8),
                      suffix: Array(".allocation".utf8), allocation: nil, variantTable: false)
    }

    private init(scheme: BucketingScheme, prefix: [UInt8], suffix: [UInt8], allocation: VariantAllocation?, variantTable: Bool) {
        self.scheme = scheme
        self.allocation = allocation
        self.suffix = suffix
        hasSuffix = !suffix.isEmpty
        prefixCount = prefix.count
        prefixState = prefix.withUnsafeBytes { MurmurHash3.state(afterBlocksOf: $0) }
        let leading = Array(prefix[(prefix.count & ~3)...])
        scratch = Scratch(leading: leading, capacity: 256 + suffix.count)
        leadingWord = leading.enumerated().reduce(0) { $0 | UInt32($1.element) << UInt32($1.offset * 8) }
        leadingCount = leading.count
        if variantTable, let allocation, !allocation.ranges.isEmpty, allocation.ranges.count <= 255 {
            variantOfBucket = (0..<scheme.bucketCount).map { UInt8(allocation.variantIndex(forBucket: $0)!) }
        } else {
            variantOfBucket = []
        }
        hasVariantTable = !variantOfBucket.isEmpty
    }

    /// Hash, bucket and variant index (nil without variants) of one user id given as UTF-8.
    public mutating func assign(_ user: UnsafeRawBufferPointer) -> (hash: UInt32, bucket: UInt32, variant: Int?) {
        let hash = self.hash(user)
        let bucket = self.bucket(hash)
        return (hash, bucket, variantIndex(bucket))
    }

    @inlinable @inline(__always)
    public func hash(_ user: UnsafeRawBufferPointer) -> UInt32 {
        // The SDK's scheme: the id is the end of the string, hashed where it lies. Kept this
        // small so that it inlines into the bundle batch's loop too (see above).
        guard hasSuffix else {
            return MurmurHash3.x86_32(resuming: prefixState, leading: leadingWord, leadingCount: leadingCount,
                                      totalCount: prefixCount &+ user.count, user)
        }
        return hashWithSuffix(user)
    }

    /// The docs scheme and traffic allocation: the id is copied between the prefix's last bytes
    /// and the suffix, and the whole hashed.
    @usableFromInline func hashWithSuffix(_ user: UnsafeRawBufferPointer) -> UInt32 {
        let leading = scratch.leadingCount
        let needed = leading + user.count + suffix.count
        guard needed <= scratch.capacity else { return hashLong(user) }
        return Self.hash(user, suffix: suffix, in: scratch.base, leading: leading, prefixState: prefixState, prefixCount: prefixCount)
    }

    /// An id too long for the scratch memory (no real one is): hashed in memory of its own.
    @usableFromInline func hashLong(_ user: UnsafeRawBufferPointer) -> UInt32 {
        let leading = scratch.leadingCount
        let memory = UnsafeMutableRawPointer.allocate(byteCount: leading + user.count + suffix.count, alignment: 8)
        defer { memory.deallocate() }
        memory.copyMemory(from: scratch.base, byteCount: leading)
        return Self.hash(user, suffix: suffix, in: memory, leading: leading, prefixState: prefixState, prefixCount: prefixCount)
    }

    /// Hashes the prefix's last bytes (already at `base`), the user id and the suffix.
    @inlinable @inline(__always)
    static func hash(_ user: UnsafeRawBufferPointer, suffix: [UInt8], in base: UnsafeMutableRawPointer, leading: Int,
                     prefixState: UInt32, prefixCount: Int) -> UInt32 {
        if let start = user.baseAddress { (base + leading).copyMemory(from: start, byteCount: user.count) }
        if !suffix.isEmpty {
            suffix.withUnsafeBytes { (base + leading + user.count).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        return MurmurHash3.x86_32(resuming: prefixState, totalCount: prefixCount + user.count + suffix.count,
                                  UnsafeRawBufferPointer(start: base, count: leading + user.count + suffix.count))
    }

    @inlinable @inline(__always)
    public func bucket(_ hash: UInt32) -> UInt32 {
        // The SDK's 10,000 as a constant lets the compiler divide by multiplying.
        scheme.bucketCount == 10_000 ? hash % 10_000 : hash % scheme.bucketCount
    }

    @inlinable @inline(__always)
    public func variantIndex(_ bucket: UInt32) -> Int? {
        if hasVariantTable { return Int(variantOfBucket[Int(bucket)]) }
        return allocation?.variantIndex(forBucket: bucket)
    }

    /// Raw memory for the hashed string when it has a suffix; a class so that copies of the bucketer share it and
    /// hashing needs no exclusive access. Its fields never change: read from code inlined into
    /// another module, a variable field would be checked for exclusive access on every id.
    @usableFromInline final class Scratch {
        @usableFromInline let base: UnsafeMutableRawPointer
        @usableFromInline let capacity: Int
        @usableFromInline let leadingCount: Int

        init(leading: [UInt8], capacity: Int) {
            leadingCount = leading.count
            self.capacity = leading.count + capacity
            base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
            if !leading.isEmpty { leading.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        }

        deinit { base.deallocate() }
    }
}
