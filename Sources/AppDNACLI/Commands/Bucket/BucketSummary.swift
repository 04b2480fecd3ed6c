import AppDNACore

/// `bucket - … --summary`: users per variant against the split devices really use (the
/// truncated bucket shares), with a chi-square sample-ratio-mismatch test.
enum BucketSummary {
    /// Below this p-value the split is called a sample-ratio mismatch (a common SRM threshold).
    static let mismatchThreshold = 0.001

    /// Beyond `DistinctCounter.exactLimit` the distinct count is an estimate (about 1.6 %
    /// standard error): call ids repeated only when it is clearly (three errors) below the total.
    static let estimateTolerance = 0.95

    static func print(_ invocation: Invocation, json: Bool, setup: BucketSetup, counts: [Int], total: Int, ineligible: Int, distinct: DistinctCounter) {
        let out = invocation.stdout
        let distinctCount = distinct.count
        if distinct.isApproximate ? Double(distinctCount) < Double(total) * estimateTolerance : distinctCount < total {
            invocation.warn("ids repeat: \(distinct.isApproximate ? "about " : "")\(distinctCount) distinct ids in \(total) lines; "
                + "a repeated user is counted once per line, which skews the split and the sample-ratio test (deduplicate, e.g. with sort -u)")
        }
        guard let allocation = setup.allocation else {
            if json {
                out.write(JSONWriter(indent: 2).write(["users": .integer(total), "distinct_users": .integer(distinctCount),
                                                       "distinct_users_approximate": .bool(distinct.isApproximate)]))
                out.writeLine()
            } else {
                out.writeLine("users  \(total)")
                out.writeLine("(no variants: give --variants or --bundle for per-variant counts)")
            }
            return
        }
        let shares = allocation.ranges.map { Double($0.bucketCount) / Double(allocation.bucketCount) }
        let test = SampleRatioMismatch(observed: counts, expectedShare: shares)
        let assigned = counts.reduce(0, +)
        let mismatch = test.pValue < mismatchThreshold

        if json {
            var object: JSONObject = [
                "users": .integer(total),
                "assigned": .integer(assigned),
                "variants": .array(zip(allocation.ranges, zip(counts, shares)).map { range, pair in
                    ["id": .string(range.variant), "users": .integer(pair.0),
                     "share": .decimal(assigned > 0 ? Double(pair.0) / Double(assigned) : 0),
                     "expected_share": .decimal(pair.1), "weight": .decimal(range.weight)]
                }),
                "chi_square": .decimal(test.statistic),
                "degrees_of_freedom": .integer(test.degreesOfFreedom),
                "p_value": .decimal(test.pValue),
                "sample_ratio_mismatch": .bool(mismatch),
            ]
            if setup.definition != nil { object["not_eligible"] = .integer(ineligible) }
            object["distinct_users"] = .integer(distinctCount)
            object["distinct_users_approximate"] = .bool(distinct.isApproximate)
            out.write(JSONWriter(indent: 2).write(.object(object)))
            out.writeLine()
            return
        }

        let width = max(7, allocation.ranges.map(\.variant.count).max() ?? 0)
        out.writeLine("users".padding(width) + "  \(total)" + (setup.definition != nil ? " (\(ineligible) not eligible)" : ""))
        out.writeLine("variant".padding(width) + "  " + "users".padding(12) + "share".padding(10) + "expected")
        for (index, range) in allocation.ranges.enumerated() {
            let share = assigned > 0 ? Double(counts[index]) / Double(assigned) : 0
            out.writeLine(range.variant.padding(width) + "  " + String(counts[index]).padding(12)
                          + NumberText.fixedPercent(share).padding(10) + NumberText.fixedPercent(shares[index]))
        }
        let verdict = mismatch
            ? invocation.options.stdoutStyle.apply(.red, "sample-ratio mismatch (p < \(mismatchThreshold))")
            : "no sample-ratio mismatch"
        out.writeLine("chi-square \(NumberText.fixed(test.statistic, places: 3)) with \(test.degreesOfFreedom) degree(s) of freedom, p = \(NumberText.fixed(test.pValue, places: 4)): \(verdict)")
    }
}
