/// How an experiment's variants divide the buckets, computed the way devices do it.
///
/// Devices walk the variants in order adding `UInt32(weight * 10000)` — truncation, not
/// rounding, so a weight of 0.57 (0.57 * 10000 = 5699.999…) owns 5699 buckets — and the first
/// variant with `bucket < cumulative` wins; a bucket past every range goes to the last variant.
public struct VariantAllocation: Sendable, Equatable {
    public struct Range: Sendable, Equatable {
        public let variant: String
        public let weight: Double
        /// Buckets `lower ..< upper` go to this variant.
        public let lower: UInt32
        public let upper: UInt32
        public var bucketCount: UInt32 { upper - lower }
    }

    public let ranges: [Range]
    public let bucketCount: UInt32

    /// `weights` in array order; `bucketCount` is 10,000 for the SDK scheme.
    public init(weights: [(variant: String, weight: Double)], bucketCount: UInt32 = 10_000) {
        self.bucketCount = bucketCount
        var ranges: [Range] = []
        var cumulative: UInt64 = 0
        for (index, entry) in weights.enumerated() {
            let lower = UInt32(min(cumulative, UInt64(bucketCount)))
            cumulative += Self.truncatedShare(entry.weight, bucketCount: bucketCount)
            var upper = UInt32(min(cumulative, UInt64(bucketCount)))
            // Buckets no range claims fall to the last variant.
            if index == weights.count - 1 { upper = bucketCount }
            ranges.append(Range(variant: entry.variant, weight: entry.weight, lower: lower, upper: max(lower, upper)))
        }
        self.ranges = ranges
    }

    /// `UInt32(weight * buckets)` as devices compute it; NaN, infinite and negative weights
    /// count as 0 (the SDKs guard these), and absurdly large ones are clamped instead of trapping.
    public static func truncatedShare(_ weight: Double, bucketCount: UInt32 = 10_000) -> UInt64 {
        guard weight.isFinite, weight > 0 else { return 0 }
        let product = weight * Double(bucketCount)
        return product >= Double(UInt32.max) ? UInt64(UInt32.max) : UInt64(product)
    }

    /// The index of the variant that owns `bucket`, or nil when there are no variants.
    public func variantIndex(forBucket bucket: UInt32) -> Int? {
        guard !ranges.isEmpty else { return nil }
        for (index, range) in ranges.enumerated() where bucket < range.upper && bucket >= range.lower {
            return index
        }
        return ranges.count - 1
    }

    public func variant(forBucket bucket: UInt32) -> String? {
        variantIndex(forBucket: bucket).map { ranges[$0].variant }
    }

    /// Buckets each variant really gets, against what its weight intends; differs when
    /// truncation shaves buckets off (they go to the last variant).
    public var truncationLoss: Bool {
        ranges.contains { abs(Double($0.bucketCount) - $0.weight * Double(bucketCount)) >= 0.5 }
    }
}
