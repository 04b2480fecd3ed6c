/// Golden cases for SDK ports (`bucket --vectors`): inputs that have tripped real ports —
/// non-ASCII ids in NFC and NFD, emoji, white space, blank and whitespace salts, weights that
/// truncate, traffic allocation — plus generated cases, each with the exact hashed string,
/// hash, bucket and variant under both schemes. The same seed gives the same cases.
public enum GoldenVectors {
    public struct Case: Sendable {
        public let name: String
        public let user: String
        public let experiment: String
        public let salt: String
        public let variants: [(variant: String, weight: Double)]
        public let trafficAllocation: Double?
    }

    /// The fixed cases, one per hazard, always first: the hazards of real ids, then the edges
    /// that catch the porting bugs `PortingBugVectorTests` plants.
    public static let fixed: [Case] = hazards + edges

    /// Ids, salts and weights that have tripped real ports.
    static let hazards: [Case] = [
        Case(name: "ascii", user: "user_12345", experiment: "exp_paywall_v3", salt: "a8f3c9d2",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil),
        Case(name: "non-ascii user id, NFC (precomposed e-acute)", user: "caf\u{E9}-user", experiment: "onboarding-v2", salt: "s1",
             variants: [("control", 0.5), ("streamlined", 0.5)], trafficAllocation: nil),
        Case(name: "non-ascii user id, NFD (e + combining acute)", user: "cafe\u{301}-user", experiment: "onboarding-v2", salt: "s1",
             variants: [("control", 0.5), ("streamlined", 0.5)], trafficAllocation: nil),
        Case(name: "CJK user id", user: "\u{65E5}\u{672C}\u{8A9E}\u{30E6}\u{30FC}\u{30B6}\u{30FC}", experiment: "exp_paywall_v3", salt: "a8f3c9d2",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil),
        Case(name: "emoji user id (4-byte UTF-8, surrogate pairs in UTF-16)", user: "\u{1F680}user\u{1F98E}", experiment: "exp_paywall_v3", salt: "a8f3c9d2",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil),
        Case(name: "user id with leading and trailing white space (hashed as is)", user: " user_12345\t", experiment: "exp_paywall_v3", salt: "a8f3c9d2",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil),
        Case(name: "blank salt (sdk hashes the experiment id instead)", user: "user_12345", experiment: "pricing-test", salt: "",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil),
        Case(name: "whitespace-only salt (sdk hashes the experiment id instead)", user: "user_12345", experiment: "pricing-test", salt: " \t",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil),
        Case(name: "truncating weights (0.57 * 10000 = 5699.999... counts as 5699)", user: "user-4321", experiment: "checkout-cta", salt: "c7",
             variants: [("control", 0.43), ("treatment", 0.57)], trafficAllocation: nil),
        Case(name: "three variants, 1/3 each (truncated to 3333 buckets; the last takes the rest)", user: "user-4321", experiment: "checkout-cta", salt: "c7",
             variants: [("a", 1.0 / 3), ("b", 1.0 / 3), ("c", 1.0 / 3)], trafficAllocation: nil),
        Case(name: "traffic allocation 0.25", user: "user_12345", experiment: "holdout-test", salt: "h1",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: 0.25),
        Case(name: "traffic allocation 0.75", user: "anon-7f3d", experiment: "holdout-test", salt: "h1",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: 0.75),
        Case(name: "empty user id", user: "", experiment: "exp_paywall_v3", salt: "a8f3c9d2",
             variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil),
    ]

    /// Users placed on the bucket edges where wrong ports part from devices. Each user is the
    /// first "PREFIX-N" that lands in the wanted bucket (found by hashing, so the cases are the
    /// same on every run): a few tens of thousands of hashes, well under a millisecond each.
    static let edges: [Case] = {
        func user(_ prefix: String, experiment: String, salt: String, where wanted: (BucketAssignment) -> Bool) -> String {
            var n = 0
            while true {
                let candidate = "\(prefix)-\(n)"
                if wanted(BucketingScheme.sdk.assign(user: candidate, experiment: experiment, salt: salt)) { return candidate }
                n += 1
            }
        }
        func at(_ bucket: UInt32, _ prefix: String, _ experiment: String, _ salt: String) -> String {
            user(prefix, experiment: experiment, salt: salt) { $0.bucket == bucket }
        }
        var cases: [Case] = []
        // Truncation vs rounding: 0.57 * 10000 is 5699.999…, so the first variant owns buckets
        // 0…5698; a port that rounds gives it 5699 too.
        let rounding: [(String, Double)] = [("treatment", 0.57), ("control", 0.43)]
        for (bucket, note) in [(5698, "the last bucket of treatment"), (5699, "control on devices; treatment in a port that rounds 5699.999… up"), (5700, "control either way")] {
            cases.append(Case(name: "truncation edge: bucket \(bucket), \(note)", user: at(UInt32(bucket), "trunc", "rounding-edge", "r1"),
                              experiment: "rounding-edge", salt: "r1", variants: rounding, trafficAllocation: nil))
        }
        // Weights summing under 1: a user in the gap gets the last variant (no "no variant").
        cases.append(Case(name: "weights sum to 0.6: bucket 8000 is in the gap, devices give the last variant", user: at(8000, "gap", "gap-test", "g1"),
                          experiment: "gap-test", salt: "g1", variants: [("a", 0.3), ("b", 0.3)], trafficAllocation: nil))
        // Every edge of a three-way split, and the bucket just below it.
        let thirds: [(String, Double)] = [("a", 1.0 / 3), ("b", 1.0 / 3), ("c", 1.0 / 3)]
        for bucket in [0, 3332, 3333, 6665, 6666, 9999] {
            cases.append(Case(name: "edge of a three-way split: bucket \(bucket)", user: at(UInt32(bucket), "edge", "edges-test", "e1"),
                              experiment: "edges-test", salt: "e1", variants: thirds, trafficAllocation: nil))
        }
        // Traffic allocation is round(share * 10000), half away from zero (platform facts 2.5):
        // a user on the allocation bucket where rounding, flooring and banker's rounding part.
        // 0.57 * 10000 is 5699.999… (5700; a port that floors gets 5699), 0.12345 * 10000 and
        // 0.00005 * 10000 are exactly 1234.5 and 0.5 (1235 and 1; banker's rounding gives the
        // even 1234 and 0, flooring too).
        for (share, bucket, note) in [(0.57, 5699, "in: 5699.999… rounds to 5700; out in a port that floors"),
                                      (0.57, 5700, "out either way"),
                                      (0.12345, 1234, "in: 1234.5 rounds half away from zero to 1235; out with banker's rounding or flooring"),
                                      (0.00005, 0, "in: 0.5 rounds to 1; out with banker's rounding or flooring")] {
            var n = 0
            while BucketingScheme.allocationBucket(user: "alloc-\(n)", experiment: "allocation-edge", salt: "a1") != UInt32(bucket) { n += 1 }
            cases.append(Case(name: "allocation rounding: traffic allocation \(share), allocation bucket \(bucket), \(note)", user: "alloc-\(n)",
                              experiment: "allocation-edge", salt: "a1", variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: share))
        }
        // A hash with the top bit set, in the second variant: a signed 32-bit % gives a negative
        // bucket, and the walk puts it in the first variant.
        cases.append(Case(name: "hash >= 2^31 (a signed % gives a negative bucket)",
                          user: user("signed", experiment: "signed-test", salt: "s9") { $0.hash >= 1 << 31 && $0.bucket >= 5000 },
                          experiment: "signed-test", salt: "s9", variants: [("control", 0.5), ("variant_b", 0.5)], trafficAllocation: nil))
        return cases
    }()

    /// The fixed cases, then `count` generated from `seed`.
    public static func cases(count: Int, seed: UInt64) -> [Case] {
        var random = SplitMixGenerator(seed: seed)
        let pieces = ["user", "u", "anon-", "caf\u{E9}", "cafe\u{301}", "\u{1F680}", "\u{00DF}", "\u{4E2D}", " ", "\t", "-", "_", ".", "42", "Z"]
        let saltPieces = ["", " ", "a8f3", "s", "\u{E9}", "x9"]
        let weightSets: [[Double]] = [[0.5, 0.5], [0.43, 0.57], [0.1, 0.2, 0.7], [1.0 / 3, 1.0 / 3, 1.0 / 3], [0.29, 0.71], [1]]
        var generated: [Case] = []
        for index in 0..<count {
            var user = ""
            for _ in 0..<(1 + random.next(below: 5)) { user += pieces[random.next(below: pieces.count)] }
            user += String(random.next(below: 100_000))
            let experiment = "exp-\(random.next(below: 1000))"
            var salt = ""
            for _ in 0..<random.next(below: 3) { salt += saltPieces[random.next(below: saltPieces.count)] }
            let weights = weightSets[random.next(below: weightSets.count)]
            // Shares exact at x10000 and shares where rounding matters (5699.999…, 1234.5, 0.5).
            let allocationChoices: [Double?] = [nil, nil, 0.5, 0.1, 0.99, 0.57, 0.12345, 0.00005]
            generated.append(Case(name: "generated \(index + 1)", user: user, experiment: experiment, salt: salt,
                                  variants: weights.enumerated().map { ("v\($0.offset)", $0.element) },
                                  trafficAllocation: allocationChoices[random.next(below: allocationChoices.count)]))
        }
        return fixed + generated
    }
}

/// SplitMix64 (Steele, Lea and Flood): a tiny, well-mixed generator whose sequence is fixed by
/// its seed, so `--vectors --seed S` prints the same cases on every machine.
public struct SplitMixGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0 ..< bound (bound > 0); the tiny modulo bias does not matter for test inputs.
    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
