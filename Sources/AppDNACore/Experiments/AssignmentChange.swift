/// What a change to an experiment does to users' variants, computed over the SDK's 10,000
/// buckets with its truncation (`VariantAllocation`), so the figures are exact, not estimates.
public struct AssignmentChange: Sendable, Equatable {
    /// Buckets (of 10,000) whose variant id differs between OLD and NEW.
    public let switchedBuckets: Int
    /// (from, to, buckets) for every pair of variants that exchanges buckets, largest first.
    public let transitions: [Transition]

    public struct Transition: Sendable, Equatable {
        public let from: String
        public let to: String
        public let buckets: Int
    }

    public var share: Double { Double(switchedBuckets) / 10_000 }

    /// Same salt: a user keeps their bucket, so they switch iff their bucket's variant changes.
    public init(old: VariantAllocation, new: VariantAllocation) {
        // Keyed by the variant ids' bytes: an NFC and an NFD spelling are two variants to devices.
        var counts: [ByteKey: Int] = [:]
        var order: [ByteKey] = []
        var switched = 0
        for bucket in UInt32(0)..<10_000 {
            let from = old.variant(forBucket: bucket), to = new.variant(forBucket: bucket)
            guard !ByteIdentity.same(from, to) else { continue }
            switched += 1
            let key = ByteKey((from ?? "(none)") + "\u{0}" + (to ?? "(none)"))
            if counts[key] == nil { order.append(key) }
            counts[key, default: 0] += 1
        }
        switchedBuckets = switched
        transitions = order.map { key in
            let parts = key.text.split(separator: "\u{0}", omittingEmptySubsequences: false)
            return Transition(from: String(parts[0]), to: String(parts[1]), buckets: counts[key]!)
        }.sorted { a, b in
            // Most buckets first, then by the ids' bytes (the same order on every platform).
            if a.buckets != b.buckets { return a.buckets > b.buckets }
            if !ByteIdentity.same(a.from, b.from) { return ByteKey(a.from) < ByteKey(b.from) }
            return ByteKey(a.to) < ByteKey(b.to)
        }
    }

    /// A new salt re-hashes everyone: a user's new bucket is independent of the old one, so the
    /// expected share who change variant is 1 − Σ p_old(v) · p_new(v) over variant ids, with p the
    /// share of the 10,000 buckets each variant really owns (1 − Σw² when weights stay).
    public static func expectedShareAfterResalt(old: VariantAllocation, new: VariantAllocation) -> Double {
        var newShare: [ByteKey: Double] = [:]
        for range in new.ranges { newShare[ByteKey(range.variant), default: 0] += Double(range.bucketCount) / 10_000 }
        var same = 0.0
        for range in old.ranges { same += Double(range.bucketCount) / 10_000 * (newShare[ByteKey(range.variant)] ?? 0) }
        return 1 - same
    }

    /// The allocation threshold devices use: buckets below it enter the experiment.
    /// nil (absent) = everyone; NaN or infinite = no one.
    public static func allocationThreshold(_ trafficAllocation: Double?) -> Int {
        guard let value = trafficAllocation else { return 10_000 }
        guard value.isFinite else { return 0 }
        return Int(max(0, min(10_000, (value * 10_000).rounded())))
    }
}
