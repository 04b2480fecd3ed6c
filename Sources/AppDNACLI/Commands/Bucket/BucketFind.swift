import AppDNACore

/// `bucket --find VARIANT`: QA user ids (`PREFIX0`, `PREFIX1`, …) that land in a variant,
/// eligibility included when a bundle is given.
enum BucketFind {
    /// The most hashes a search is expected to take (a few seconds): a rarer variant or a
    /// larger --count is refused with the count that fits.
    static let maxExpectedTries = 20_000_000
    /// Searches expected to take at least this many tries show progress on a terminal.
    static let progressThreshold = 1_000_000

    static func run(_ invocation: Invocation, setup: BucketSetup) throws -> ExitStatus {
        let arguments = invocation.arguments
        let target = arguments[BucketFlags.find]!
        let wanted = try BucketFlags.modeCount(in: arguments, BucketFlags.findCount)
        let prefix = arguments[BucketFlags.prefix]
        guard let allocation = setup.allocation else {
            throw Failure(.usage, "--find needs the variants: give --variants or --bundle")
        }
        guard let index = allocation.ranges.firstIndex(where: { $0.variant == target }) else {
            throw Failure(.usage, "--find: no variant '\(target)'; the variants are " + allocation.ranges.map(\.variant).joined(separator: ", "))
        }
        guard allocation.ranges[index].bucketCount > 0 else {
            throw Failure(.usage, "--find: variant '\(target)' owns no buckets, so no user lands in it")
        }
        // A variant owning b of 10,000 buckets needs about 10,000/b tries per id. Refuse a search
        // expected to take longer than `maxExpectedTries`; otherwise allow far more than expected
        // (up to a hard cap) before concluding that eligibility keeps everyone out.
        let owned = Int(allocation.ranges[index].bucketCount), buckets = Int(allocation.bucketCount)
        let (product, overflow) = wanted.multipliedReportingOverflow(by: buckets)
        let expected = overflow ? Int.max : (product + owned - 1) / owned
        guard expected <= maxExpectedTries else {
            throw Failure(.usage, "--find: '\(target)' owns \(owned) of \(buckets) buckets, so \(wanted) id(s) take about \(expected) tries, more than the \(maxExpectedTries) allowed",
                          hint: "ask for at most --count \(max(1, maxExpectedTries / max(1, buckets / owned))) ids for this variant")
        }
        let limit = min(expected * 50 + 100_000, 2 * maxExpectedTries)
        let progress = ProgressBar(total: expected, enabled: invocation.io.stderr.isTerminal && !invocation.options.quiet && expected >= progressThreshold,
                                   sink: invocation.io.stderr, unit: "tries")
        defer { progress.clear() }
        var found: [String] = []
        var candidate = 0
        while found.count < wanted && candidate < limit {
            let user = prefix + String(candidate)
            candidate += 1
            if candidate & 0xFFFF == 0 { progress.update(min(candidate, expected)) }
            let assignment = setup.scheme.assign(user: user, experiment: setup.experiment, salt: setup.salt)
            guard allocation.variantIndex(forBucket: assignment.bucket) == index, setup.rules(for: user).failed == nil else { continue }
            found.append(user)
            if !arguments[BucketFlags.json] {
                invocation.stdout.writeLine(user)
                if invocation.stdout.isBroken { return .success }
            }
        }
        if arguments[BucketFlags.json] {
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
