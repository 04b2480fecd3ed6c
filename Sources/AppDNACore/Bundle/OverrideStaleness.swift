/// Which overrides of a state apply to a source, and why the others do not: an override names
/// an experiment and variant, a flag or a flow of the bundle it was set against, and the
/// source can lose it (an edit of the file, a refetch of the live bundle). Such an override is
/// stale: kept (the source may get it back), never applied (forcing a variant the experiment
/// no longer has would give every variant weight 0; activating a flow the bundle does not list
/// fails E016), and listed with the reason wherever overrides are shown.
public struct OverrideStaleness: Sendable, Equatable {
    /// The overrides that apply, in the state's order.
    public let applied: BundleOverrides
    /// The overrides that do not, with why (the check's own words).
    public let stale: [Entry]

    public struct Entry: Sendable, Equatable {
        public let item: BundleOverride
        public let reason: String
    }

    /// Sorts `overrides` against the bundle `root` (either shape), as `BundleOverrides.check` judges a new one.
    public init(_ overrides: BundleOverrides, against root: JSONNode, name: String) {
        var applied = BundleOverrides()
        var stale: [Entry] = []
        for item in overrides.list {
            do {
                try BundleOverrides.check(item, against: root, name: name)
                applied.set(item)
            } catch {
                stale.append(Entry(item: item, reason: error.message))
            }
        }
        self.applied = applied
        self.stale = stale
    }

    /// Why `item` is stale; nil when it applies.
    public func reason(for item: BundleOverride) -> String? {
        stale.first { $0.item.sameTarget(item) }?.reason
    }
}
