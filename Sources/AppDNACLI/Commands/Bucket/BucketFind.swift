import AppDNACore

/// `bucket --find VARIANT`: QA user ids (`PREFIX0`, `PREFIX1`, …) that land in a variant,
/// eligibility included when a bundle is given.
enum BucketFind {
    /// Searches expected to take at least this many tries show progress on a terminal.
    static let progressThreshold = 1_000_000

    static func run(_ invocation: Invocation, _ plan: BucketPlan, variant target: String, setup: BucketSetup) throws -> ExitStatus {
        let wanted = try BucketFlags.modeCount(plan.count, BucketFlags.findCount)
        let prefix = plan.prefix
        guard let allocation = setup.allocation else {
            throw Failure(.usage, "--find needs the variants: give --variants or --bundle")
        }
        let search = try VariantSearch(variant: target, in: allocation, wanted: wanted)
        let expected = search.expectedTries
        let progress = ProgressBar(total: expected, enabled: invocation.io.stderr.isTerminal && !invocation.options.quiet && expected >= progressThreshold,
                                   sink: invocation.io.stderr, unit: "tries")
        defer { progress.clear() }
        let json = plan.json
        var users: [String] = []
        let (count, tries) = search.run(prefix: prefix, wanted: wanted, scheme: setup.scheme, experiment: setup.experiment, salt: setup.salt,
                                        allocation: allocation, isEligible: { setup.rules(for: $0).failed == nil },
                                        progress: { progress.update($0) }) { user in
            if json { users.append(user); return true }
            invocation.stdout.writeLine(user)
            return !invocation.stdout.isBroken
        }
        if invocation.stdout.isBroken { return .success }
        if json {
            invocation.stdout.write(JSONWriter(indent: 2).write(["variant": .string(target), "users": .array(users.map(JSONValue.string))]))
            invocation.stdout.writeLine()
        }
        if count < wanted {
            let reason = setup.rules(for: prefix + "0").failed.map { "; the first failing rule is \($0.rule): \($0.detail)" } ?? ""
            invocation.io.stderr.writeLine("appdna: --find: only \(count) of \(wanted) ids in \(tries) tries landed in '\(target)'\(reason)")
            return .negative
        }
        return .success
    }
}
