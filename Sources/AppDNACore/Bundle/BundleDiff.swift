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
        /// The experiment's id in OLD when it differs from `experiment` (a rename in Unicode
        /// normalisation only), so the gate reads its old status under the old bytes.
        public var previousExperiment: String? = nil
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

    public static func show(_ node: JSONNode?, limit: Int = 60) -> String {
        guard let node else { return "(absent)" }
        let text = String(decoding: JSONWriter().write(node.value), as: UTF8.self)
        return ShortenedText.shortened(text, limit: limit)
    }

    private mutating func experimentNotes(_ before: BundleModel, _ after: BundleModel) {
        // Keyed by bytes: an id re-encoded in another Unicode normalisation is another
        // experiment to every device (its bytes are hashed), though Swift's == calls it equal.
        let oldList = before.experimentList, newList = after.experimentList
        var oldByID: [ByteKey: BundleModel.Located] = [:]
        for (id, e) in oldList { oldByID[ByteKey(id)] = e }
        let newIDs = Set(newList.map { ByteKey($0.id) })
        // An id that is new in bytes but reads like an old one that is gone: renamed only in
        // Unicode normalisation.
        func lookalike(of id: String, among list: [(id: String, experiment: BundleModel.Located)], goneFrom ids: Set<ByteKey>) -> (id: String, experiment: BundleModel.Located)? {
            list.first { !ids.contains(ByteKey($0.id)) && ByteIdentity.normalisationDifference(id, from: $0.id) != nil }
        }
        for (id, located) in newList {
            guard let previous = oldByID[ByteKey(id)] else {
                let old = lookalike(of: id, among: oldList, goneFrom: newIDs)
                let why = old.flatMap { ByteIdentity.normalisationDifference(id, from: $0.id) }.map { " (it \($0): a new experiment to devices, which hash the bytes)" } ?? ""
                notes.append(Note(kind: .experimentAdded, path: located.pointer, message: "experiment \"\(id)\" added\(why)"))
                if let old, old.experiment.node.kind == .object, located.node.kind == .object {
                    renamedExperimentNote(from: old.id, old.experiment, to: id, located)
                }
                continue
            }
            guard previous.node.kind == .object, located.node.kind == .object, !JSONDiff.equal(previous.node, located.node) else { continue }
            compareExperiment(id: id, previous, located)
        }
        let oldIDs = Set(oldList.map { ByteKey($0.id) })
        for (id, e) in oldList where !newIDs.contains(ByteKey(id)) {
            let why = lookalike(of: id, among: newList, goneFrom: oldIDs).flatMap { ByteIdentity.normalisationDifference(id, from: $0.id) }.map { " (it \($0))" } ?? ""
            notes.append(Note(kind: .experimentRemoved, path: e.pointer, message: "experiment \"\(id)\" removed\(why): devices stop assigning it"))
        }
    }

    /// An experiment whose id changed only in Unicode normalisation keeps its users' ids but
    /// not their hashes (devices hash `experiment.salt.user`, and a blank salt is the id): every
    /// user is re-randomised, like a salt change. The gate sees it through this note.
    private mutating func renamedExperimentNote(from oldID: String, _ previous: BundleModel.Located, to id: String, _ current: BundleModel.Located) {
        let a = ExperimentDefinition(id: oldID, node: previous.node), b = ExperimentDefinition(id: id, node: current.node)
        let share = AssignmentChange.expectedShareAfterResalt(old: a.allocation, new: b.allocation)
        var note = Note(kind: .saltChanged, path: current.pointer,
                        message: "\"\(id)\" was \"\(oldID)\" (\(ByteIdentity.form(of: oldID)) → \(ByteIdentity.form(of: id))): devices hash the id's bytes, so every user is re-randomised; about \(NumberText.sentencePercent(share)) change variant",
                        share: share, experiment: id)
        note.previousExperiment = oldID
        notes.append(note)
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
        // Variant ids by bytes: devices report the variant id as written, and analytics joins on it.
        let oldIDs = a.variants.map { ByteKey($0.variant) }, newIDs = b.variants.map { ByteKey($0.variant) }
        for v in newIDs where !oldIDs.contains(v) {
            let why = oldIDs.lazy.compactMap { ByteIdentity.normalisationDifference(v.text, from: $0.text) }.first.map { " (it \($0))" } ?? ""
            notes.append(Note(kind: .variantAdded, path: path.appending(key: "variants"), message: "\"\(id)\" variant \"\(v)\" added\(why)"))
        }
        for v in oldIDs where !newIDs.contains(v) {
            notes.append(Note(kind: .variantRemoved, path: path.appending(key: "variants"), message: "\"\(id)\" variant \"\(v)\" removed: its users move to other variants"))
        }
        let oldAllocation = a.allocation, newAllocation = b.allocation
        let oldSalt = BucketingScheme.sdk.effectiveSalt(a.salt, experiment: id)
        let newSalt = BucketingScheme.sdk.effectiveSalt(b.salt, experiment: id)
        let saltChanged = !ByteIdentity.same(oldSalt, newSalt)
        if saltChanged {
            let share = AssignmentChange.expectedShareAfterResalt(old: oldAllocation, new: newAllocation)
            let lookalike = ByteIdentity.normalisationDifference(newSalt, from: oldSalt).map { " (the new salt \($0))" } ?? ""
            notes.append(Note(kind: .saltChanged, path: path.appending(key: "salt"),
                              message: "\"\(id)\" salt \(Self.show(previous.node["salt"])) → \(Self.show(current.node["salt"]))\(lookalike): every user is re-randomised; about \(NumberText.sentencePercent(share)) change variant (1 − Σ p_old·p_new over the buckets each variant owns); traffic allocation is re-drawn too",
                              share: share, experiment: id))
        } else {
            let change = AssignmentChange(old: oldAllocation, new: newAllocation)
            if change.switchedBuckets > 0 {
                let detail = change.transitions.prefix(6).map { "\($0.from) → \($0.to) \($0.buckets)" }.joined(separator: ", ")
                notes.append(Note(kind: .assignmentChanged, path: path.appending(key: "variants"),
                                  message: "\"\(id)\": \(NumberText.sentencePercent(change.share)) of users in the experiment change variant (\(change.switchedBuckets) of 10000 buckets: \(detail)\(change.transitions.count > 6 ? ", …" : ""))",
                                  share: change.share, buckets: change.switchedBuckets, experiment: id))
            }
        }
        let t0 = AssignmentChange.allocationThreshold(a.trafficAllocation), t1 = AssignmentChange.allocationThreshold(b.trafficAllocation)
        if t0 != t1 || saltChanged && (t0 != 10_000 || t1 != 10_000) {
            let message: String
            var note = Note(kind: .trafficAllocationChanged, path: path.appending(key: "traffic_allocation"), message: "")
            if !saltChanged {
                let entering = max(0, t1 - t0), leaving = max(0, t0 - t1)
                message = "\"\(id)\" traffic allocation \(t0) → \(t1) of 10000 buckets: " + (entering > 0
                    ? "\(NumberText.sentencePercent(Double(entering) / 10_000)) of all users enter the experiment"
                    : "\(NumberText.sentencePercent(Double(leaving) / 10_000)) of all users leave the experiment")
                note.share = Double(max(entering, leaving)) / 10_000
                note.buckets = max(entering, leaving)
            } else {
                let p0 = Double(t0) / 10_000, p1 = Double(t1) / 10_000
                message = "\"\(id)\" traffic allocation \(t0) → \(t1) of 10000 buckets with a new salt: about \(NumberText.sentencePercent((1 - p0) * p1)) of all users enter and \(NumberText.sentencePercent(p0 * (1 - p1))) leave"
            }
            notes.append(Note(kind: note.kind, path: note.path, message: message, share: note.share, buckets: note.buckets))
        }
    }

    private mutating func flagNotes(_ before: BundleModel, _ after: BundleModel) {
        guard let oldFlags = before.flags?.node, let newFlags = after.flags?.node,
              oldFlags.kind == .object, newFlags.kind == .object, let pointer = after.flags?.pointer else { return }
        let oldMembers = JSONDiff.MemberLookup(Array(oldFlags.members)), newMembers = JSONDiff.MemberLookup(Array(newFlags.members))
        // A key that is new in bytes but reads like one that is gone: renamed only in Unicode
        // normalisation (the same note experiments get).
        func lookalike(of key: String, in members: JSONNode.Members, goneFrom lookup: JSONDiff.MemberLookup) -> String? {
            members.lazy.filter { lookup[$0.key] == nil }.compactMap { ByteIdentity.normalisationDifference(key, from: $0.key) }.first
        }
        for member in newFlags.members {
            if let previous = oldMembers[member.key] {
                if !JSONDiff.equal(previous, member.value) {
                    notes.append(Note(kind: .flagChanged, path: pointer.appending(key: member.key),
                                      message: "flag \"\(member.key)\" \(Self.show(previous, limit: 30)) → \(Self.show(member.value, limit: 30))"))
                }
            } else {
                let why = lookalike(of: member.key, in: oldFlags.members, goneFrom: newMembers)
                    .map { " (it \($0): a new flag to devices, which look keys up by their bytes)" } ?? ""
                notes.append(Note(kind: .flagAdded, path: pointer.appending(key: member.key),
                                  message: "flag \"\(member.key)\" added\(why): \(Self.show(member.value, limit: 30))"))
            }
        }
        for member in oldFlags.members where newMembers[member.key] == nil {
            let why = lookalike(of: member.key, in: newFlags.members, goneFrom: oldMembers).map { " (it \($0))" } ?? ""
            notes.append(Note(kind: .flagRemoved, path: (before.flags?.pointer ?? pointer).appending(key: member.key),
                              message: "flag \"\(member.key)\" removed\(why): the app falls back to its default"))
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
