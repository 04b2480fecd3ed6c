import AppDNACore

/// `bundle diff --fail-on-switch PERCENT`: a CI gate. Exit 1 when an experiment running in both
/// bundles would move more than PERCENT of its users to another variant, else 0 whatever else
/// changed.
enum BundleDiffGate {
    /// The exit status, with one stderr line per experiment over the threshold.
    static func status(_ switching: [SwitchingShare], threshold: Double, invocation: Invocation) -> ExitStatus {
        let over = switching.filter { $0.running && $0.exceeds(percent: threshold) }
        for entry in over {
            invocation.io.stderr.writeLine("appdna: --fail-on-switch \(number(threshold))%: \"\(entry.experiment)\" moves \(percentText(entry.share)) of its users to another variant")
        }
        return over.isEmpty ? .success : .negative
    }

    static func percentText(_ share: Double) -> String {
        let value = (share * 10_000).rounded() / 100
        return number(value) + "%"
    }

    /// 20 rather than 20.0; 12.5 as it is.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
