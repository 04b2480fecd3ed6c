import AppDNACore

/// `bundle diff --fail-on-switch PERCENT`: a CI gate. Exit 1 when an experiment running in both
/// bundles would move more than PERCENT of its users to another variant, else 0 whatever else
/// changed. The verdict is the same in every output: the stderr lines, the markdown's `gate`
/// column and the JSON's `gate` object.
enum BundleDiffGate {
    /// Every experiment whose users switch variant, judged against the threshold.
    struct Verdict {
        let threshold: Double
        let switching: [SwitchingShare]

        init(_ switching: [SwitchingShare], threshold: Double) {
            self.switching = switching
            self.threshold = threshold
        }

        /// Running in both bundles and over the threshold: what fails the gate.
        func isOver(_ entry: SwitchingShare) -> Bool { entry.running && entry.exceeds(percent: threshold) }
        var over: [SwitchingShare] { switching.filter(isOver) }

        /// `{"fail_on_switch", "passed", "failed": [ids], "experiments": [{experiment, status, running, share, buckets?, over}]}`.
        var json: JSONValue {
            let experiments: [JSONValue] = switching.map { entry in
                var object = JSONObject([("experiment", .string(entry.experiment)), ("status", entry.status.map(JSONValue.string) ?? .null),
                                         ("running", .bool(entry.running)), ("share", .decimal(entry.share))])
                if let buckets = entry.buckets { object["buckets"] = .integer(buckets) }
                object["over"] = .bool(isOver(entry))
                return .object(object)
            }
            return .object(JSONObject([("fail_on_switch", .decimal(threshold)), ("passed", .bool(over.isEmpty)),
                                       ("failed", .array(over.map { .string($0.experiment) })), ("experiments", .array(experiments))]))
        }
    }

    /// The exit status, with one stderr line per experiment over the threshold (under GitHub
    /// Actions an annotation at `place(experiment)`: where NEW defines it).
    static func status(_ switching: [SwitchingShare], threshold: Double, invocation: Invocation,
                       place: (String) -> GitHubWorkflowText.Place?) -> ExitStatus {
        let over = Verdict(switching, threshold: threshold).over
        for entry in over {
            let place = place(entry.experiment)
            invocation.error("--fail-on-switch \(NumberText.shortest(threshold))%: \"\(entry.experiment)\" moves \(NumberText.roundedPercent(entry.share)) of its users to another variant",
                             place: place)
        }
        return over.isEmpty ? .success : .negative
    }
}
