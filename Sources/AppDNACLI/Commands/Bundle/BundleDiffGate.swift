import AppDNACore

/// `bundle diff --fail-on-switch PERCENT`: a CI gate. Exit 1 when an experiment running in both
/// bundles would move more than PERCENT of its users to another variant, else 0 whatever else
/// changed.
enum BundleDiffGate {
    /// The exit status, with one stderr line per experiment over the threshold.
    static func status(_ switching: [SwitchingShare], threshold: Double, invocation: Invocation) -> ExitStatus {
        let over = switching.filter { $0.running && $0.exceeds(percent: threshold) }
        for entry in over {
            invocation.io.stderr.writeLine("appdna: --fail-on-switch \(NumberText.shortest(threshold))%: \"\(entry.experiment)\" moves \(NumberText.roundedPercent(entry.share)) of its users to another variant")
        }
        return over.isEmpty ? .success : .negative
    }
}
