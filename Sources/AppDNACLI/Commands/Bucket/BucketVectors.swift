import AppDNACore

/// `bucket --vectors [--count N] [--seed S]`: golden cases for SDK ports as one JSON document.
/// Every number is computed by this build's bucketing code, the same that `bucket` uses.
enum BucketVectors {
    static func run(_ invocation: Invocation, _ plan: BucketPlan) throws -> ExitStatus {
        let count = try BucketFlags.modeCount(plan.count, BucketFlags.vectorsCount)
        let seed = plan.seed
        let cases = GoldenVectors.cases(count: count, seed: seed.value)
        let document: JSONObject = [
            "description": .string("appdna bucketing vectors: MurmurHash3_x86_32 (seed 0) of the UTF-8 bytes of hashed_string"),
            "seed": .string(seed.text),
            "generated": .integer(count),
            "schemes": [
                "sdk": .string("hashed_string = EXPERIMENT.SALT.USER (a blank or whitespace-only salt is replaced by EXPERIMENT); bucket = hash % 10000; variants walked in order with cumulative += UInt32(weight * 10000) (truncation), first with bucket < cumulative, else the last; traffic allocation: hash(hashed_string + \".allocation\") % 10000 < round(traffic_allocation * 10000)"),
                "docs": .string("hashed_string = USER + EXPERIMENT + SALT; bucket = hash % 100; variants as for sdk over 100 buckets"),
            ],
            "cases": .array(cases.map(caseJSON)),
        ]
        invocation.stdout.write(JSONWriter(indent: 2).write(.object(document)))
        invocation.stdout.writeLine()
        return .success
    }

    static func caseJSON(_ vector: GoldenVectors.Case) -> JSONValue {
        var object: JSONObject = [
            "name": .string(vector.name),
            "user": .string(vector.user),
            "user_utf8_hex": .string(HexText.spaced(Array(vector.user.utf8))),
            "experiment": .string(vector.experiment),
            "salt": .string(vector.salt),
            "variants": .array(vector.variants.map { ["id": .string($0.variant), "weight": .decimal($0.weight)] }),
            "traffic_allocation": vector.trafficAllocation.map { .decimal($0) } ?? .null,
        ]
        for scheme in BucketingScheme.allCases {
            let assignment = scheme.assign(user: vector.user, experiment: vector.experiment, salt: vector.salt)
            let allocation = VariantAllocation(weights: vector.variants, bucketCount: scheme.bucketCount)
            var result: JSONObject = [
                "hashed_string": .string(assignment.hashedString),
                "hashed_utf8_hex": .string(HexText.spaced(Array(assignment.hashedString.utf8))),
                "hash": .integer(assignment.hash),
                "bucket": .integer(assignment.bucket),
                "variant_buckets": .array(allocation.ranges.map { .integer($0.bucketCount) }),
                "variant": allocation.variant(forBucket: assignment.bucket).map(JSONValue.string) ?? .null,
            ]
            if scheme == .sdk {
                result["effective_salt"] = .string(scheme.effectiveSalt(vector.salt, experiment: vector.experiment))
                if let share = vector.trafficAllocation {
                    let bucket = BucketingScheme.allocationBucket(user: vector.user, experiment: vector.experiment, salt: vector.salt)
                    let threshold = AssignmentChange.allocationThreshold(share)
                    result["allocation_hashed_string"] = .string(assignment.hashedString + ".allocation")
                    result["allocation_bucket"] = .integer(bucket)
                    result["allocation_threshold"] = .integer(threshold)
                    result["in_experiment"] = .bool(Int(bucket) < threshold)
                    // What a device that applies traffic allocation assigns.
                    result["assigned"] = Int(bucket) < threshold ? (result["variant"] ?? .null) : .null
                }
            }
            object[scheme.rawValue] = .object(result)
        }
        return .object(object)
    }
}
