/// How many users of each experiment running in both bundles would end up in another variant:
/// the share `bundle diff` computes (exact over the 10,000 buckets when weights or variants
/// change, the expectation when the salt changes). `bundle diff --fail-on-switch` gates on it.
public struct SwitchingShare: Sendable, Equatable {
    public let experiment: String
    public let share: Double
    /// Buckets of 10,000 that switch, when exact; nil after a salt change (an expectation).
    public let buckets: Int?
    /// Running in OLD and in NEW: only then do users already assigned move.
    public let running: Bool
    public let status: String?

    /// One entry per experiment with an assignment or salt note, in note order.
    public static func all(in diff: BundleDiff, old: JSONNode, new: JSONNode) -> [SwitchingShare] {
        func status(_ root: JSONNode, _ id: String) -> String? {
            BundleExperiments.map(in: root)?[id]?["status"]?.string
        }
        return diff.notes.compactMap { note in
            guard note.kind == .assignmentChanged || note.kind == .saltChanged,
                  let id = note.experiment, let share = note.share else { return nil }
            let before = status(old, note.previousExperiment ?? id), after = status(new, id)
            return SwitchingShare(experiment: id, share: share, buckets: note.buckets,
                                  running: before == "running" && after == "running", status: after)
        }
    }

    /// Whether more than `percent` % of the experiment's users switch. Exact shares compare
    /// buckets (20 % is 2000 of 10,000, not a rounded double).
    public func exceeds(percent: Double) -> Bool {
        if let buckets { return Double(buckets) > percent * 100 }
        return share * 100 > percent
    }
}
