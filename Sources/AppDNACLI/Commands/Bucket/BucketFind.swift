import AppDNACore

/// `bucket --find VARIANT`: QA user ids (`PREFIX0`, `PREFIX1`, …) that land in a variant,
/// eligibility included when a bundle is given.
enum BucketFind {
    static func run(_ invocation: Invocation, setup: BucketSetup) throws -> ExitStatus {
        let arguments = invocation.arguments
        let target = arguments.value("find")!
        let wanted = try arguments.integer("count", in: 1...1_000_000) ?? 10
        let prefix = arguments.value("prefix") ?? "qa-user-"
        guard let allocation = setup.allocation else {
            throw Failure(.usage, "--find needs the variants: give --variants or --bundle")
        }
        guard let index = allocation.ranges.firstIndex(where: { $0.variant == target }) else {
            throw Failure(.usage, "--find: no variant '\(target)'; the variants are " + allocation.ranges.map(\.variant).joined(separator: ", "))
        }
        guard allocation.ranges[index].bucketCount > 0 else {
            throw Failure(.usage, "--find: variant '\(target)' owns no buckets, so no user lands in it")
        }
        // A variant owning b of 10,000 buckets needs about 10,000/b tries per id; allow far more
        // before concluding that eligibility keeps everyone out.
        let limit = wanted * Int(allocation.bucketCount / allocation.ranges[index].bucketCount) * 50 + 100_000
        var found: [String] = []
        var candidate = 0
        while found.count < wanted && candidate < limit {
            let user = prefix + String(candidate)
            candidate += 1
            let assignment = setup.scheme.assign(user: user, experiment: setup.experiment, salt: setup.salt)
            guard allocation.variantIndex(forBucket: assignment.bucket) == index, setup.rules(for: user).failed == nil else { continue }
            found.append(user)
            if !arguments.has("json") {
                invocation.stdout.writeLine(user)
                if invocation.stdout.isBroken { return .success }
            }
        }
        if arguments.has("json") {
            invocation.stdout.write(JSONWriter(indent: 2).write(["variant": .string(target), "users": .array(found.map(JSONValue.string))]))
            invocation.stdout.writeLine()
        }
        if found.count < wanted {
            let reason = setup.rules(for: prefix + "0").failed.map { "; the first failing rule is \($0.rule): \($0.detail)" } ?? ""
            invocation.io.stderr.writeLine("appdna: --find: only \(found.count) of \(wanted) ids in \(candidate) tries landed in '\(target)'\(reason)")
            return .negative
        }
        return .success
    }
}
