/// `bundle diff`: the structural diff of two bundles plus what the changes mean on devices.
public struct BundleDiff {
    public struct Note {
        public enum Kind: String, Sendable {
            case experimentAdded = "experiment_added"
            case experimentRemoved = "experiment_removed"
            case statusChanged = "status_changed"
            case saltChanged = "salt_changed"
            case assignmentChanged = "assignment_changed"
            case variantAdded = "variant_added"
            case variantRemoved = "variant_removed"
            case trafficAllocationChanged = "traffic_allocation_changed"
            case flagChanged = "flag_changed"
            case flagAdded = "flag_added"
            case flagRemoved = "flag_removed"
            case bundleVersionNotIncreased = "bundle_version_not_increased"
        }
        public let kind: Kind
        public let path: JSONPointer
        public let message: String
        /// The share of users concerned (exact over the 10,000 buckets, or the expectation
        /// after a salt change), when the note is about assignment.
        public var share: Double? = nil
        /// Buckets (of 10,000) concerned, when exact.
        public var buckets: Int? = nil
        /// The experiment the note is about (assignment and salt notes), for the CI gate.
        public var experiment: String? = nil
    }

    public let structure: JSONDiff
    public private(set) var notes: [Note] = []

    public var changes: [JSONDiff.Change] { structure.changes }
    public var isEmpty: Bool { structure.isEmpty }

    public init(old: JSONNode, new: JSONNode, ignore: [JSONPointer] = []) {
        structure = JSONDiff(old: old, new: new, ignore: ignore)
        guard !structure.isEmpty else { return }
        let before = BundleModel(root: old), after = BundleModel(root: new)
        let ignored = { (p: JSONPointer) in ignore.contains { $0.tokens.count <= p.tokens.count && Array(p.tokens.prefix($0.tokens.count)) == $0.tokens } }
        experimentNotes(before, after)
        flagNotes(before, after)
        versionNote(before, after)
        notes.removeAll { ignored($0.path) }
    }

    static func percent(_ share: Double) -> String {
        let value = share * 100
        if value == 0 || value == 100 { return "\(Int(value))%" }
        let scaled = (value * 100).rounded() / 100
        return "\(scaled)%"
    }

    public static func show(_ node: JSONNode?, limit: Int = 60) -> String {
        guard let node else { return "(absent)" }
        let text = String(decoding: JSONWriter().write(node.value), as: UTF8.self)
        return ShortenedText.shortened(text, limit: limit)
    }

    private mutating func experimentNotes(_ before: BundleModel, _ after: BundleModel) {
        let oldList = before.experimentList, newList = after.experimentList
        var oldByID: [String: BundleModel.Located] = [:]
        for (id, e) in oldList { oldByID[id] = e }
        var newIDs = Set<String>()
        for (id, located) in newList {
            newIDs.insert(id)
            guard let previous = oldByID[id] else {
                notes.append(Note(kind: .experimentAdded, path: located.pointer, message: "experiment \"\(id)\" added"))
                continue
            }
            guard previous.node.kind == .object, located.node.kind == .object, !JSONDiff.equal(previous.node, located.node) else { continue }
            compareExperiment(id: id, previous, located)
        }
        for (id, e) in oldList where !newIDs.contains(id) {
            notes.append(Note(kind: .experimentRemoved, path: e.pointer, message: "experiment \"\(id)\" removed: devices stop assigning it"))
        }
    }

    private mutating func compareExperiment(id: String, _ previous: BundleModel.Located, _ current: BundleModel.Located) {
        let a = ExperimentDefinition(id: id, node: previous.node), b = ExperimentDefinition(id: id, node: current.node)
        let path = current.pointer
        if a.status != b.status {
            let effect: String
            switch (a.status == "running", b.status == "running") {
            case (true, false): effect = ": devices stop assigning users"
            case (false, true): effect = ": devices start assigning users"
            default: effect = ""
            }
            notes.append(Note(kind: .statusChanged, path: path.appending(key: "status"),
                              message: "\"\(id)\" status \(Self.show(previous.node["status"])) → \(Self.show(current.node["status"]))\(effect)"))
        }
        let oldIDs = a.variants.map(\.variant), newIDs = b.variants.map(\.variant)
        for v in newIDs where !oldIDs.contains(v) {
            notes.append(Note(kind: .variantAdded, path: path.appending(key: "variants"), message: "\"\(id)\" variant \"\(v)\" added"))
        }
        for v in oldIDs where !newIDs.contains(v) {
            notes.append(Note(kind: .variantRemoved, path: path.appending(key: "variants"), message: "\"\(id)\" variant \"\(v)\" removed: its users move to other variants"))
        }
        let oldAllocation = a.allocation, newAllocation = b.allocation
        let oldSalt = BucketingScheme.sdk.effectiveSalt(a.salt, experiment: id)
        let newSalt = BucketingScheme.sdk.effectiveSalt(b.salt, experiment: id)
        if oldSalt != newSalt {
            let share = AssignmentChange.expectedShareAfterResalt(old: oldAllocation, new: newAllocation)
            notes.append(Note(kind: .saltChanged, path: path.appending(key: "salt"),
                              message: "\"\(id)\" salt \(Self.show(previous.node["salt"])) → \(Self.show(current.node["salt"])): every user is re-randomised; about \(Self.percent(share)) change variant (1 − Σ p_old·p_new over the buckets each variant owns); traffic allocation is re-drawn too",
                              share: share, experiment: id))
        } else {
            let change = AssignmentChange(old: oldAllocation, new: newAllocation)
            if change.switchedBuckets > 0 {
                let detail = change.transitions.prefix(6).map { "\($0.from) → \($0.to) \($0.buckets)" }.joined(separator: ", ")
                notes.append(Note(kind: .assignmentChanged, path: path.appending(key: "variants"),
                                  message: "\"\(id)\": \(Self.percent(change.share)) of users in the experiment change variant (\(change.switchedBuckets) of 10000 buckets: \(detail)\(change.transitions.count > 6 ? ", …" : ""))",
                                  share: change.share, buckets: change.switchedBuckets, experiment: id))
            }
        }
        let t0 = AssignmentChange.allocationThreshold(a.trafficAllocation), t1 = AssignmentChange.allocationThreshold(b.trafficAllocation)
        if t0 != t1 || oldSalt != newSalt && (t0 != 10_000 || t1 != 10_000) {
            let message: String
            var note = Note(kind: .trafficAllocationChanged, path: path.appending(key: "traffic_allocation"), message: "")
            if oldSalt == newSalt {
                let entering = max(0, t1 - t0), leaving = max(0, t0 - t1)
                message = "\"\(id)\" traffic allocation \(t0) → \(t1) of 10000 buckets: " + (entering > 0
                    ? "\(Self.percent(Double(entering) / 10_000)) of all users enter the experiment"
                    : "\(Self.percent(Double(leaving) / 10_000)) of all users leave the experiment")
                note.share = Double(max(entering, leaving)) / 10_000
                note.buckets = max(entering, leaving)
            } else {
                let p0 = Double(t0) / 10_000, p1 = Double(t1) / 10_000
                message = "\"\(id)\" traffic allocation \(t0) → \(t1) of 10000 buckets with a new salt: about \(Self.percent((1 - p0) * p1)) of all users enter and \(Self.percent(p0 * (1 - p1))) leave"
            }
            notes.append(Note(kind: note.kind, path: note.path, message: message, share: note.share, buckets: note.buckets))
        }
    }

    private mutating func flagNotes(_ before: BundleModel, _ after: BundleModel) {
        guard let oldFlags = before.flags?.node, let newFlags = after.flags?.node,
              oldFlags.kind == .object, newFlags.kind == .object, let pointer = after.flags?.pointer else { return }
        let oldMembers = JSONDiff.MemberLookup(Array(oldFlags.members)), newMembers = JSONDiff.MemberLookup(Array(newFlags.members))
        for member in newFlags.members {
            if let previous = oldMembers[member.key] {
                if !JSONDiff.equal(previous, member.value) {
                    notes.append(Note(kind: .flagChanged, path: pointer.appending(key: member.key),
                                      message: "flag \"\(member.key)\" \(Self.show(previous, limit: 30)) → \(Self.show(member.value, limit: 30))"))
                }
            } else {
                notes.append(Note(kind: .flagAdded, path: pointer.appending(key: member.key),
                                  message: "flag \"\(member.key)\" added: \(Self.show(member.value, limit: 30))"))
            }
        }
        for member in oldFlags.members where newMembers[member.key] == nil {
            notes.append(Note(kind: .flagRemoved, path: (before.flags?.pointer ?? pointer).appending(key: member.key),
                              message: "flag \"\(member.key)\" removed: the app falls back to its default"))
        }
    }

    private mutating func versionNote(_ before: BundleModel, _ after: BundleModel) {
        let versionPath = JSONPointer(tokens: ["bundle_version"])
        let contentChanged = changes.contains { $0.path != versionPath && $0.from != versionPath }
        guard contentChanged else { return }
        let old = before.bundleVersion?.node, new = after.bundleVersion?.node
        let increased: Bool
        if let o = old?.int64, let n = new?.int64 { increased = n > o } else { increased = false }
        if !increased {
            notes.append(Note(kind: .bundleVersionNotIncreased, path: versionPath,
                              message: "bundle_version did not increase (\(Self.show(old)) → \(Self.show(new))) while the content changed: devices and caches that compare versions keep the old bundle"))
        }
    }
}
