/// A structural diff of two parsed JSON documents.
///
/// Objects are compared by key. Arrays whose elements are all objects with a unique `id`
/// (else `key`, else `name`) on both sides are matched by that field: removed, added, changed
/// and moved elements (moves are the elements outside a longest run kept in order). Other
/// arrays are compared with a linear-space sequence diff (`SequenceDiff`), pairing a removed
/// element with an inserted one at the same place as one change.
///
/// Two results come out of one walk: `changes`, what differs (paths into OLD for removals and
/// move sources, into NEW otherwise), and `patch`, RFC 6902 operations that turn OLD into NEW
/// when applied in order. Values are equal when they are the same JSON value: object member
/// order and white space do not matter, strings compare after unescaping, numbers compare as
/// written (`1.0` and `1` differ).
public struct JSONDiff {
    public struct Change {
        public enum Kind: String, Sendable {
            case add, remove, replace, move
        }
        public let kind: Kind
        public let path: JSONPointer
        /// For moves: where the element was in OLD.
        public let from: JSONPointer?
        public let old: JSONNode?
        public let new: JSONNode?
    }

    public struct PatchOperation {
        public let op: Change.Kind
        public let path: JSONPointer
        public let from: JSONPointer?
        /// The value to add or replace with (a node of NEW).
        public let value: JSONNode?
    }

    public private(set) var changes: [Change] = []
    public private(set) var patch: [PatchOperation] = []
    private let ignore: [JSONPointer]

    /// Fields that identify elements of an array of objects, in order of preference.
    public static let identityFields = ["id", "key", "name"]

    public init(old: JSONNode, new: JSONNode, ignore: [JSONPointer] = []) {
        self.ignore = ignore
        compare(old, new, oldPath: .root, newPath: .root, patchPath: .root)
    }

    public var isEmpty: Bool { changes.isEmpty }

    // MARK: - Equality and hashing

    /// Whether two values are the same JSON value (see the type's documentation).
    public static func equal(_ a: JSONNode, _ b: JSONNode) -> Bool {
        let ka = a.kind
        guard ka == b.kind else { return false }
        if bytesEqual(a, b) { return true }
        switch ka {
        case .null: return true
        case .bool: return a.bool == b.bool
        case .number: return a.numberText == b.numberText
        case .string: return Array(a.string!.utf8) == Array(b.string!.utf8)
        case .array:
            var ia = a.elements.makeIterator(), ib = b.elements.makeIterator()
            while true {
                switch (ia.next(), ib.next()) {
                case (nil, nil): return true
                case let (x?, y?): if !equal(x, y) { return false }
                default: return false
                }
            }
        case .object:
            let members = Array(b.members)
            guard a.count == members.count else { return false }
            let lookup = MemberLookup(members)
            for member in a.members {
                guard let other = lookup[member.key], equal(member.value, other) else { return false }
            }
            return true
        }
    }

    static func bytesEqual(_ a: JSONNode, _ b: JSONNode) -> Bool {
        let ra = a.byteRange, rb = b.byteRange
        guard ra.count == rb.count else { return false }
        if a.document === b.document && ra == rb { return true }
        return a.document.withBytes { pa in
            b.document.withBytes { pb in
                RawMemory.compare(pa.baseAddress! + ra.lowerBound, pb.baseAddress! + rb.lowerBound, count: ra.count) == 0
            }
        }
    }

    /// A hash consistent with `equal` (member order does not count).
    public static func hash(_ node: JSONNode) -> UInt64 {
        func mix(_ h: UInt64, _ v: UInt64) -> UInt64 {
            var z = (h ^ v) &* 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 29)) &* 0xBF58_476D_1CE4_E5B9
            return z ^ (z >> 32)
        }
        func bytesHash(_ s: String) -> UInt64 {
            var h: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in s.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return h
        }
        switch node.kind {
        case .null: return 1
        case .bool: return node.bool! ? 2 : 3
        case .number: return mix(4, bytesHash(node.numberText!))
        case .string: return mix(5, bytesHash(node.string!))
        case .array:
            var h: UInt64 = 6
            for element in node.elements { h = mix(h, hash(element)) }
            return h
        case .object:
            var sum: UInt64 = 0
            for member in node.members { sum &+= mix(bytesHash(member.key), hash(member.value)) }
            return mix(7, sum)
        }
    }

    /// Finds object members by key: linear for small objects, a dictionary for large ones.
    struct MemberLookup {
        let members: [(key: String, keyNode: JSONNode, value: JSONNode)]
        let index: [ByteKey: Int]?

        init(_ members: [(key: String, keyNode: JSONNode, value: JSONNode)]) {
            self.members = members
            if members.count > 16 {
                var index: [ByteKey: Int] = [:]
                index.reserveCapacity(members.count)
                for (i, member) in members.enumerated() { index[ByteKey(member.key)] = i }
                self.index = index
            } else {
                index = nil
            }
        }

        subscript(key: String) -> JSONNode? {
            // By bytes: "café" and "cafe\u{301}" are two members (two experiments to a device).
            if let index { return index[ByteKey(key)].map { members[$0].value } }
            return members.last { ByteIdentity.same($0.key, key) }?.value
        }
    }

    // MARK: - Walk

    private func ignored(_ path: JSONPointer) -> Bool {
        ignore.contains { $0.tokens.count <= path.tokens.count && Array(path.tokens.prefix($0.tokens.count)) == $0.tokens }
    }

    private mutating func record(_ kind: Change.Kind, path: JSONPointer, from: JSONPointer? = nil, old: JSONNode?, new: JSONNode?,
                                 patchPath: JSONPointer, patchFrom: JSONPointer? = nil) {
        if ignored(path) || from.map(ignored) == true { return }
        changes.append(Change(kind: kind, path: path, from: from, old: old, new: new))
        patch.append(PatchOperation(op: kind, path: patchPath, from: patchFrom, value: kind == .remove || kind == .move ? nil : new))
    }

    private mutating func compare(_ a: JSONNode, _ b: JSONNode, oldPath: JSONPointer, newPath: JSONPointer, patchPath: JSONPointer) {
        if ignored(newPath) { return }
        if a.kind != b.kind {
            record(.replace, path: newPath, old: a, new: b, patchPath: patchPath)
            return
        }
        if Self.bytesEqual(a, b) { return }
        switch a.kind {
        case .object:
            compareObjects(a, b, oldPath: oldPath, newPath: newPath, patchPath: patchPath)
        case .array:
            if let field = Self.identityField(a, b) {
                compareKeyedArrays(a, b, field: field, oldPath: oldPath, newPath: newPath, patchPath: patchPath)
            } else {
                compareSequences(a, b, oldPath: oldPath, newPath: newPath, patchPath: patchPath)
            }
        default:
            if !Self.equal(a, b) { record(.replace, path: newPath, old: a, new: b, patchPath: patchPath) }
        }
    }

    private mutating func compareObjects(_ a: JSONNode, _ b: JSONNode, oldPath: JSONPointer, newPath: JSONPointer, patchPath: JSONPointer) {
        let oldMembers = Array(a.members), newMembers = Array(b.members)
        let newLookup = MemberLookup(newMembers), oldLookup = MemberLookup(oldMembers)
        for member in oldMembers {
            if let other = newLookup[member.key] {
                compare(member.value, other, oldPath: oldPath.appending(key: member.key),
                        newPath: newPath.appending(key: member.key), patchPath: patchPath.appending(key: member.key))
            } else {
                record(.remove, path: oldPath.appending(key: member.key), old: member.value, new: nil,
                       patchPath: patchPath.appending(key: member.key))
            }
        }
        for member in newMembers where oldLookup[member.key] == nil {
            record(.add, path: newPath.appending(key: member.key), old: nil, new: member.value,
                   patchPath: patchPath.appending(key: member.key))
        }
    }

    /// The identity field both arrays can be matched by, if any.
    static func identityField(_ a: JSONNode, _ b: JSONNode) -> String? {
        guard a.count + b.count > 0 else { return nil }
        for field in identityFields {
            if identities(a, field: field) != nil && identities(b, field: field) != nil { return field }
        }
        return nil
    }

    /// The identities of the elements, or nil when one is not an object or lacks a unique
    /// string or integer `field`.
    static func identities(_ array: JSONNode, field: String) -> [ByteKey]? {
        var seen = Set<ByteKey>()
        var out: [ByteKey] = []
        for element in array.elements {
            guard element.kind == .object, let value = element[field] else { return nil }
            let identity: String
            if let text = value.string {
                identity = "s" + text
            } else if value.isInteger, let text = value.numberText {
                identity = "n" + text
            } else {
                return nil
            }
            guard seen.insert(ByteKey(identity)).inserted else { return nil }
            out.append(ByteKey(identity))
        }
        return out
    }

    private mutating func compareKeyedArrays(_ a: JSONNode, _ b: JSONNode, field: String, oldPath: JSONPointer, newPath: JSONPointer, patchPath: JSONPointer) {
        let oldIDs = Self.identities(a, field: field)!, newIDs = Self.identities(b, field: field)!
        let oldElements = Array(a.elements), newElements = Array(b.elements)
        var oldIndex: [ByteKey: Int] = [:]
        for (i, id) in oldIDs.enumerated() { oldIndex[id] = i }
        var newIndex: [ByteKey: Int] = [:]
        for (j, id) in newIDs.enumerated() { newIndex[id] = j }

        // 1. Removals, from the end so earlier indices stay valid.
        for i in oldIDs.indices.reversed() where newIndex[oldIDs[i]] == nil {
            record(.remove, path: oldPath.appending(index: i), old: oldElements[i], new: nil, patchPath: patchPath.appending(index: i))
        }
        // 2. Common elements in new order; those on a longest increasing run of old positions stay.
        let common = newIDs.compactMap { oldIndex[$0] }
        let stable = Self.longestIncreasingSubsequence(common)
        // 3. Place moved and added elements in new order, each right after its new predecessor.
        //    Positions in the array as the patch leaves it come from an order-statistics tree
        //    (re-indexing the array after every move was quadratic: a reversed keyed array of
        //    100,000 elements never finished).
        let placement = KeyedPlacement(oldIDs: oldIDs, newIDs: newIDs, oldIndex: oldIndex, newIndex: newIndex, stable: stable)
        var present = placement.initialTree()
        for (j, id) in newIDs.enumerated() {
            if let i = oldIndex[id] {
                if stable.contains(i) { continue }
                let oldSlot = placement.slotOfOld[i]
                let from = present.countBefore(oldSlot)
                present.add(oldSlot, -1)
                let to = present.countBefore(placement.slotOfPlaced[j])
                present.add(placement.slotOfPlaced[j], 1)
                record(.move, path: newPath.appending(index: j), from: oldPath.appending(index: i), old: oldElements[i], new: newElements[j],
                       patchPath: patchPath.appending(index: to), patchFrom: patchPath.appending(index: from))
            } else {
                let target = present.countBefore(placement.slotOfPlaced[j])
                present.add(placement.slotOfPlaced[j], 1)
                record(.add, path: newPath.appending(index: j), old: nil, new: newElements[j], patchPath: patchPath.appending(index: target))
            }
        }
        // 4. Changes inside common elements, at their NEW index (the array is in new order now).
        for (j, id) in newIDs.enumerated() {
            guard let i = oldIndex[id] else { continue }
            compare(oldElements[i], newElements[j], oldPath: oldPath.appending(index: i),
                    newPath: newPath.appending(index: j), patchPath: patchPath.appending(index: j))
        }
    }

    /// The values on one longest strictly increasing subsequence (patience sorting, O(n log n)).
    static func longestIncreasingSubsequence(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []       // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, v) in values.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if values[tails[mid]] < v { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { previous[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var result = Set<Int>()
        var k = tails.last ?? -1
        while k >= 0 {
            result.insert(values[k])
            k = previous[k]
        }
        return result
    }

    private mutating func compareSequences(_ a: JSONNode, _ b: JSONNode, oldPath: JSONPointer, newPath: JSONPointer, patchPath: JSONPointer) {
        let oldElements = Array(a.elements), newElements = Array(b.elements)
        let oldHashes = oldElements.map(Self.hash), newHashes = newElements.map(Self.hash)
        let edits = SequenceDiff.edits(oldElements.count, newElements.count) { i, j in
            oldHashes[i] == newHashes[j] && Self.equal(oldElements[i], newElements[j])
        }
        var index = 0  // position in the array as the patch has left it
        var k = 0
        while k < edits.count {
            if case .keep = edits[k] {
                index += 1
                k += 1
                continue
            }
            // A run of deletions and insertions between kept elements.
            var deleted: [Int] = [], inserted: [Int] = []
            while k < edits.count {
                switch edits[k] {
                case let .delete(i): deleted.append(i)
                case let .insert(j): inserted.append(j)
                case .keep: break
                }
                if case .keep = edits[k] { break }
                k += 1
            }
            let paired = min(deleted.count, inserted.count)
            for p in 0..<paired {
                let i = deleted[p], j = inserted[p]
                compare(oldElements[i], newElements[j], oldPath: oldPath.appending(index: i),
                        newPath: newPath.appending(index: j), patchPath: patchPath.appending(index: index))
                index += 1
            }
            for i in deleted.dropFirst(paired) {
                record(.remove, path: oldPath.appending(index: i), old: oldElements[i], new: nil, patchPath: patchPath.appending(index: index))
            }
            for j in inserted.dropFirst(paired) {
                record(.add, path: newPath.appending(index: j), old: nil, new: newElements[j], patchPath: patchPath.appending(index: index))
                index += 1
            }
        }
    }
}

/// Where each element of a keyed array sits while the patch reorders it, as a slot in one fixed
/// order. Common elements start at their old places (in old order, removed ones gone); a moved
/// or added element is placed right after its predecessor in NEW, so its slot follows the last
/// stable element before it in NEW (its anchor), after the anchor's earlier followers. Present
/// slots, read in order, are always the array as the patch has left it; a Fenwick tree over
/// them gives any element's index in O(log n).
struct KeyedPlacement {
    /// Slot of each old element that stays (by old index; -1 for removed ones).
    var slotOfOld: [Int]
    /// Slot each moved or added element is placed at (by new index; -1 for stable ones).
    var slotOfPlaced: [Int]
    var slotCount = 0

    init(oldIDs: [ByteKey], newIDs: [ByteKey], oldIndex: [ByteKey: Int], newIndex: [ByteKey: Int], stable: Set<Int>) {
        var rankOfOld = [Int](repeating: -1, count: oldIDs.count)
        var rank = 0
        for (i, id) in oldIDs.enumerated() where newIndex[id] != nil {
            rankOfOld[i] = rank
            rank += 1
        }
        // Followers of each anchor (index anchor rank + 1; 0: before every stable element).
        var followers = [[Int]](repeating: [], count: rank + 1)
        var anchor = -1
        for (j, id) in newIDs.enumerated() {
            if let i = oldIndex[id], stable.contains(i) {
                anchor = rankOfOld[i]
            } else {
                followers[anchor + 1].append(j)
            }
        }
        slotOfPlaced = [Int](repeating: -1, count: newIDs.count)
        var slotOfRank = [Int](repeating: 0, count: rank)
        for j in followers[0] { slotOfPlaced[j] = slotCount; slotCount += 1 }
        for r in 0..<rank {
            slotOfRank[r] = slotCount
            slotCount += 1
            for j in followers[r + 1] { slotOfPlaced[j] = slotCount; slotCount += 1 }
        }
        slotOfOld = rankOfOld.map { $0 < 0 ? -1 : slotOfRank[$0] }
    }

    /// The tree with every remaining old element present.
    func initialTree() -> FenwickTree {
        var tree = FenwickTree(count: slotCount)
        for slot in slotOfOld where slot >= 0 { tree.add(slot, 1) }
        return tree
    }
}

/// Counts per slot with prefix sums in O(log n).
struct FenwickTree {
    private var tree: [Int]

    init(count: Int) { tree = [Int](repeating: 0, count: count + 1) }

    mutating func add(_ slot: Int, _ delta: Int) {
        var i = slot + 1
        while i < tree.count {
            tree[i] += delta
            i += i & -i
        }
    }

    /// The sum over the slots before `slot`.
    func countBefore(_ slot: Int) -> Int {
        var i = slot, sum = 0
        while i > 0 {
            sum += tree[i]
            i -= i & -i
        }
        return sum
    }
}
