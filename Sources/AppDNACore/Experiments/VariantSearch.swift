/// `bucket --find VARIANT`: QA user ids (`PREFIX0`, `PREFIX1`, …) that land in a variant,
/// eligibility included when the caller checks it. The plan (how many tries the variant's
/// share of buckets makes likely, and the refusal of a search too long to be useful) and the
/// search itself; the CLI prints.
public struct VariantSearch: Sendable {
    /// The most hashes a search is expected to take (a few seconds): a rarer variant or a
    /// larger count is refused with the count that fits.
    public static let maxExpectedTries = 20_000_000

    /// The variant's index in the allocation.
    public let variantIndex: Int
    /// About how many tries `wanted` ids take.
    public let expectedTries: Int
    /// When to stop looking (far more than expected): eligibility may keep everyone out.
    public let limit: Int

    /// Plans a search for `wanted` ids in `variant`, refusing one that cannot succeed or would
    /// take more than `maxExpectedTries`. Variant ids are matched by their bytes.
    public init(variant: String, in allocation: VariantAllocation, wanted: Int) throws(Failure) {
        guard let index = allocation.ranges.firstIndex(where: { ByteIdentity.same($0.variant, variant) }) else {
            let variants = allocation.ranges.map(\.variant)
            throw Failure(.usage, "no variant '\(variant)'; the variants are " + variants.joined(separator: ", "),
                          settingFact: .noSuchVariant(variant, variants: variants))
        }
        guard allocation.ranges[index].bucketCount > 0 else {
            throw Failure(.usage, "variant '\(variant)' owns no buckets, so no user lands in it", settingFact: .variantWithoutBuckets(variant))
        }
        // A variant owning b of 10,000 buckets needs about 10,000/b tries per id.
        let owned = Int(allocation.ranges[index].bucketCount), buckets = Int(allocation.bucketCount)
        let (product, overflow) = wanted.multipliedReportingOverflow(by: buckets)
        let expected = overflow ? Int.max : (product + owned - 1) / owned
        guard expected <= Self.maxExpectedTries else {
            let fitting = max(1, Self.maxExpectedTries / max(1, buckets / owned))
            throw Failure(.usage, "'\(variant)' owns \(owned) of \(buckets) buckets, so \(wanted) id(s) take about \(expected) tries, more than the \(Self.maxExpectedTries) allowed",
                          remedy: .fewerIDs(fitting),
                          settingFact: .searchTooLong(variant: variant, owned: owned, buckets: buckets, wanted: wanted, expectedTries: expected,
                                                      limit: Self.maxExpectedTries))
        }
        variantIndex = index
        expectedTries = expected
        limit = min(expected * 50 + 100_000, 2 * Self.maxExpectedTries)
    }

    /// Tries `prefix0`, `prefix1`, … until `wanted` ids land in the variant and pass
    /// `isEligible`, or `limit` tries; `found` gets each id (return false to stop), `progress`
    /// the tries so far now and then. Returns the ids found and the tries made.
    public func run(prefix: String, wanted: Int, scheme: BucketingScheme, experiment: String, salt: String,
                    allocation: VariantAllocation, isEligible: (String) -> Bool,
                    progress: (Int) -> Void, found: (String) -> Bool) -> (found: Int, tries: Int) {
        var count = 0, candidate = 0
        while count < wanted && candidate < limit {
            let user = prefix + String(candidate)
            candidate += 1
            if candidate & 0xFFFF == 0 { progress(min(candidate, expectedTries)) }
            let assignment = scheme.assign(user: user, experiment: experiment, salt: salt)
            guard allocation.variantIndex(forBucket: assignment.bucket) == variantIndex, isEligible(user) else { continue }
            count += 1
            if !found(user) { break }
        }
        return (count, candidate)
    }
}
