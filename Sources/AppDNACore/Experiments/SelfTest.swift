/// Runs `BuiltInVectors` through this build's hashing and bucketing: a quick check that a
/// binary built for a new platform (or compiler) still computes what devices compute.
public enum SelfTest {
    public struct Result: Sendable {
        public let name: String
        public let passed: Bool
        public let detail: String
    }

    public static func run() -> [Result] {
        var results: [Result] = []
        for vector in BuiltInVectors.murmur {
            let bytes = (try? Hex.decode(vector.inputHex)) ?? []
            let hash = MurmurHash3.x86_32(bytes, seed: vector.seed)
            results.append(Result(name: "murmur3 \(vector.label)", passed: hash == vector.hash,
                                  detail: "expected \(vector.hash), got \(hash)"))
        }
        for vector in BuiltInVectors.sdk {
            let assignment = BucketingScheme.sdk.assign(user: vector.user, experiment: vector.experiment, salt: vector.salt)
            let variant = VariantAllocation(weights: vector.weights.map { ($0.0, $0.1) }).variant(forBucket: assignment.bucket)
            let passed = assignment.hash == vector.hash && assignment.bucket == vector.bucket && ByteIdentity.same(variant, vector.variant)
            results.append(Result(name: "sdk \(vector.experiment)/\(vector.user)/salt \"\(vector.salt)\"", passed: passed,
                                  detail: "expected \(vector.hash)/\(vector.bucket)/\(vector.variant), got \(assignment.hash)/\(assignment.bucket)/\(variant ?? "none")"))
        }
        for vector in BuiltInVectors.docs {
            let assignment = BucketingScheme.docs.assign(user: vector.user, experiment: vector.experiment, salt: vector.salt)
            results.append(Result(name: "docs \(vector.user)+\(vector.experiment)+\(vector.salt)",
                                  passed: assignment.hash == vector.hash && assignment.bucket == vector.bucket,
                                  detail: "expected \(vector.hash)/\(vector.bucket), got \(assignment.hash)/\(assignment.bucket)"))
        }
        for vector in BuiltInVectors.truncation {
            let share = VariantAllocation.truncatedShare(vector.weight)
            results.append(Result(name: "weight \(vector.weight) truncates to \(vector.buckets) buckets",
                                  passed: share == vector.buckets, detail: "got \(share)"))
        }
        return results
    }
}
