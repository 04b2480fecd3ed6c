import Foundation
import XCTest
@testable import AppDNACore

/// An RFC 6902 applier written here, independent of JSONDiff, over owned JSONValues.
enum IndependentPatch {
    struct Failure: Error { let reason: String }

    static func tokens(_ pointer: String) throws -> [String] {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { throw Failure(reason: "bad pointer \(pointer)") }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    static func apply(_ operations: [JSONValue], to document: JSONValue) throws -> JSONValue {
        var doc = document
        for operation in operations {
            guard case let .string(op)? = operation["op"], case let .string(path)? = operation["path"] else { throw Failure(reason: "bad op") }
            let target = try tokens(path)
            switch op {
            case "add": doc = try add(doc, target[...], operation["value"]!)
            case "remove": doc = try remove(doc, target[...]).0
            case "replace": doc = try add(try remove(doc, target[...]).0, target[...], operation["value"]!)
            case "move":
                guard case let .string(from)? = operation["from"] else { throw Failure(reason: "move without from") }
                let (rest, value) = try remove(doc, try tokens(from)[...])
                doc = try add(rest, target[...], value)
            default: throw Failure(reason: "unknown op \(op)")
            }
        }
        return doc
    }

    static func add(_ node: JSONValue, _ path: ArraySlice<String>, _ value: JSONValue) throws -> JSONValue {
        guard let head = path.first else { return value }
        let rest = path.dropFirst()
        switch node {
        case var .object(object):
            if rest.isEmpty { object[head] = value; return .object(object) }
            guard let child = object[head] else { throw Failure(reason: "no member \(head)") }
            object[head] = try add(child, rest, value)
            return .object(object)
        case var .array(items):
            if rest.isEmpty {
                let index = head == "-" ? items.count : Int(head) ?? -1
                guard index >= 0 && index <= items.count else { throw Failure(reason: "add index \(head) of \(items.count)") }
                items.insert(value, at: index)
                return .array(items)
            }
            guard let index = Int(head), items.indices.contains(index) else { throw Failure(reason: "index \(head)") }
            items[index] = try add(items[index], rest, value)
            return .array(items)
        default:
            throw Failure(reason: "add into a scalar")
        }
    }

    static func remove(_ node: JSONValue, _ path: ArraySlice<String>) throws -> (JSONValue, JSONValue) {
        guard let head = path.first else { throw Failure(reason: "remove the root") }
        let rest = path.dropFirst()
        switch node {
        case var .object(object):
            guard let child = object[head] else { throw Failure(reason: "remove: no member \(head)") }
            if rest.isEmpty { object[head] = nil; return (.object(object), child) }
            let (updated, removed) = try remove(child, rest)
            object[head] = updated
            return (.object(object), removed)
        case var .array(items):
            guard let index = Int(head), items.indices.contains(index) else { throw Failure(reason: "remove index \(head) of \(items.count)") }
            if rest.isEmpty { let removed = items.remove(at: index); return (.array(items), removed) }
            let (updated, removed) = try remove(items[index], rest)
            items[index] = updated
            return (.array(items), removed)
        default:
            throw Failure(reason: "remove from a scalar")
        }
    }

    /// JSON equality: member order does not count; numbers compare as written.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.object(x), .object(y)):
            return x.count == y.count && x.allSatisfy { member in y[member.key].map { same(member.value, $0) } ?? false }
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (.string(x), .string(y)):
            return Array(x.unicodeScalars) == Array(y.unicodeScalars)
        default:
            return a == b
        }
    }
}

/// Random bundles and random edits of them.
struct BundleGenerator {
    var rng: SplitMix64

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    mutating func scalar() -> JSONValue {
        switch int(0...5) {
        case 0: return .null
        case 1: return .bool(chance(0.5))
        case 2: return .number(JSONNumber(int(-5...5)))
        case 3: return .number(JSONNumber(Double(int(0...100)) / 8))
        case 4: return .string(pick(["a", "b", "c", "é", "e\u{301}", "x/y", "t~1", ""]))
        default: return .string("s\(int(0...9))")
        }
    }

    mutating func value(depth: Int) -> JSONValue {
        if depth <= 0 || chance(0.4) { return scalar() }
        switch int(0...3) {
        case 0: return .array((0..<int(0...6)).map { _ in scalar() })
        case 1: return keyedArray(depth: depth - 1)
        case 2: return .array((0..<int(0...4)).map { _ in value(depth: depth - 1) })
        default:
            var object = JSONObject()
            for _ in 0..<int(0...5) { object[pick(["a", "b", "c", "d", "e/f", "g~h", "café", "cafe\u{301}"])] = value(depth: depth - 1) }
            return .object(object)
        }
    }

    mutating func keyedArray(depth: Int) -> JSONValue {
        let field = pick(["id", "key", "name"])
        // "ké" twice, NFC and NFD: two ids to devices, one to Swift's ==.
        let ids = Array(Set((0..<int(0...7)).map { _ in ["k\(int(0...7))", "ké", "ke\u{301}"][int(0...2)] }.map { ByteKey($0) })).sorted().map(\.text)
        return .array(ids.map { id in .object(JSONObject([(field, .string(id)), ("v", scalar()), ("w", value(depth: max(0, depth - 1)))])) })
    }

    mutating func variants() -> JSONValue {
        let count = int(1...4)
        var buckets = [Int](repeating: 0, count: count)
        for _ in 0..<100 { buckets[int(0...count - 1)] += 1 }
        return .array((0..<count).map { i in .object(JSONObject([("id", .string("v\(i)")), ("weight", .number(JSONNumber(Double(buckets[i]) / 100)))])) })
    }

    mutating func bundle() -> JSONValue {
        var experiments = JSONObject()
        for i in 0..<int(0...4) {
            experiments["exp\(i)"] = .object(JSONObject([("status", .string(pick(["running", "paused"]))), ("salt", .string("salt\(int(0...3))")),
                                                         ("variants", variants()), ("traffic_allocation", .number(JSONNumber(Double(int(0...10)) / 10)))]))
        }
        var flags = JSONObject()
        for i in 0..<int(0...5) { flags["flag\(i)"] = scalar() }
        return .object(JSONObject([("bundle_version", .number(JSONNumber(int(0...9)))), ("experiments", .object(experiments)),
                                   ("remote_config", .object(flags)), ("data", value(depth: 4)), ("list", keyedArray(depth: 2))]))
    }

    /// A random edit somewhere in the tree.
    mutating func mutate(_ node: JSONValue, depth: Int = 0) -> JSONValue {
        switch node {
        case var .object(object):
            if object.isEmpty || chance(0.2) {
                if chance(0.5), let key = object.keys.randomElement(using: &rng) { object[key] = nil } else { object[pick(["a", "b", "z", "new", "café", "cafe\u{301}"])] = value(depth: 2) }
                return .object(object)
            }
            let key = object.keys.randomElement(using: &rng)!
            object[key] = mutate(object[key]!, depth: depth + 1)
            return .object(object)
        case var .array(items):
            if items.isEmpty || chance(0.3) {
                switch int(0...3) {
                case 0 where !items.isEmpty: items.remove(at: int(0...items.count - 1))
                case 1: items.insert(items.first.map { _ in items.randomElement(using: &rng)! } ?? scalar(), at: int(0...items.count))
                case 2: items.shuffle(using: &rng)
                default: items.insert(scalar(), at: int(0...items.count))
                }
                return .array(items)
            }
            let i = int(0...items.count - 1)
            items[i] = mutate(items[i], depth: depth + 1)
            return .array(items)
        default:
            return chance(0.2) ? value(depth: 2) : scalar()
        }
    }
}

final class BundleDiffTests: XCTestCase {
    static func document(_ value: JSONValue) -> JSONDocument {
        try! JSONDocument(bytes: JSONWriter(indent: 1).write(value))
    }

    static func patchValues(_ diff: JSONDiff) -> [JSONValue] {
        diff.patch.map { op in
            var object = JSONObject()
            object["op"] = .string(op.op.rawValue)
            object["path"] = .string(op.path.description)
            if let from = op.from { object["from"] = .string(from.description) }
            if let value = op.value { object["value"] = value.value }
            // Round-trip through text, as a user of --format patch would.
            return try! JSONValue(parsing: JSONWriter().write(.object(object)))
        }
    }

    func testPatchTurnsOldIntoNewOnRandomBundlePairs() throws {
        var generator = BundleGenerator(rng: SplitMix64(seed: 6902))
        var operations = 0, moves = 0
        for n in 0..<3000 {
            let old = generator.bundle()
            var new = old
            for _ in 0..<generator.int(0...6) { new = generator.mutate(new) }
            if n % 5 == 0 { new = generator.bundle() }
            let diff = JSONDiff(old: Self.document(old).root, new: Self.document(new).root)
            let patch = Self.patchValues(diff)
            operations += patch.count
            moves += diff.changes.filter { $0.kind == .move }.count
            let patched: JSONValue
            do {
                patched = try IndependentPatch.apply(patch, to: old)
            } catch {
                XCTFail("pair \(n): \(error)\nOLD \(JSONWriter().writeString(old))\nNEW \(JSONWriter().writeString(new))\nPATCH \(patch.map { JSONWriter().writeString($0) })")
                return
            }
            XCTAssertTrue(IndependentPatch.same(patched, new), "pair \(n)\nOLD \(JSONWriter().writeString(old))\nNEW \(JSONWriter().writeString(new))\nGOT \(JSONWriter().writeString(patched))")
            XCTAssertEqual(diff.isEmpty, IndependentPatch.same(old, new), "pair \(n)")
        }
        XCTAssertGreaterThan(operations, 3000)
        XCTAssertGreaterThan(moves, 50, "the generator exercises moves")
    }

    func testKeyedArraysReportMovesAsMoves() throws {
        let old = Self.document(try JSONValue(parsing: Array(#"{"l": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]}"#.utf8)))
        let new = Self.document(try JSONValue(parsing: Array(#"{"l": [{"id": "b"}, {"id": "c"}, {"id": "d"}, {"id": "a", "x": 1}]}"#.utf8)))
        let diff = JSONDiff(old: old.root, new: new.root)
        XCTAssertEqual(diff.changes.map { "\($0.kind) \($0.from?.description ?? "") \($0.path)" }, ["move /l/0 /l/3", "add  /l/3/x"])
    }

    func testSequenceDiffIsMinimal() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<400 {
            let a = (0..<Int.random(in: 0...30, using: &rng)).map { _ in Int.random(in: 0...4, using: &rng) }
            let b = (0..<Int.random(in: 0...30, using: &rng)).map { _ in Int.random(in: 0...4, using: &rng) }
            let edits = SequenceDiff.edits(a.count, b.count) { a[$0] == b[$1] }
            // Replaying the edits gives b, and the kept count is the LCS length (quadratic check).
            var rebuilt: [Int] = []
            var kept = 0, nextOld = 0, nextNew = 0
            for edit in edits {
                switch edit {
                case let .keep(i, j):
                    XCTAssertEqual(a[i], b[j]); XCTAssertEqual(i, nextOld); XCTAssertEqual(j, nextNew)
                    rebuilt.append(b[j]); kept += 1; nextOld += 1; nextNew += 1
                case let .delete(i): XCTAssertEqual(i, nextOld); nextOld += 1
                case let .insert(j): XCTAssertEqual(j, nextNew); rebuilt.append(b[j]); nextNew += 1
                }
            }
            XCTAssertEqual(rebuilt, b)
            XCTAssertEqual(nextOld, a.count)
            var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
            for i in stride(from: a.count - 1, through: 0, by: -1) {
                for j in stride(from: b.count - 1, through: 0, by: -1) {
                    table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
                }
            }
            XCTAssertEqual(kept, table[0][0], "\(a) → \(b)")
        }
    }

    /// How much work a diff is, counted rather than timed: calls of the comparison.
    static func comparisons(_ a: [Int], _ b: [Int]) -> (edits: [SequenceDiff.Edit], comparisons: Int) {
        var count = 0
        let edits = SequenceDiff.edits(a.count, b.count) { count += 1; return a[$0] == b[$1] }
        return (edits, count)
    }

    func testAFewEditsInALargeArrayCostComparisonsInProportionToItsLength() {
        let a = (0..<200_000).map { $0 }
        var b = a
        for k in stride(from: 0, to: b.count, by: 1000) { b[k] = -k - 1 }
        let (edits, comparisons) = Self.comparisons(a, b)
        XCTAssertEqual(edits.filter { if case .keep = $0 { return false } else { return true } }.count, 400)
        XCTAssertLessThan(comparisons, 10 * (a.count + b.count), "\(comparisons) comparisons")
    }

    /// Myers alone compares N × D times: reversing 40,000 numbers took 52 s, 200,000 never
    /// ended (8 × 10^10 comparisons). The search budget keeps it in proportion to the length.
    func testAReversedArrayCostsComparisonsInProportionToItsLength() {
        let a = (0..<200_000).map { $0 }, b = Array(a.reversed())
        let (edits, comparisons) = Self.comparisons(a, b)
        var rebuilt: [Int] = []
        for edit in edits {
            switch edit {
            case let .keep(_, j), let .insert(j): rebuilt.append(b[j])
            case .delete: break
            }
        }
        XCTAssertEqual(rebuilt, b, "a correct script, even if not the shortest")
        XCTAssertLessThan(comparisons, 100 * (a.count + a.count), "\(comparisons) comparisons (about 75 per element)")
    }

    /// Applies a patch to a top-level array in place (O(1) per replacement; the generic
    /// applier copies the whole document per operation, too slow for 200,000 operations).
    static func applyToArray(_ operations: [JSONValue], _ array: [JSONValue]) throws -> [JSONValue] {
        var items = array
        for operation in operations {
            guard case let .string(op)? = operation["op"], case let .string(path)? = operation["path"] else { throw IndependentPatch.Failure(reason: "bad op") }
            let tokens = try IndependentPatch.tokens(path)
            guard let head = tokens.first, let index = Int(head) else { throw IndependentPatch.Failure(reason: "not an array path \(path)") }
            let rest = tokens.dropFirst()
            if !rest.isEmpty {
                guard items.indices.contains(index) else { throw IndependentPatch.Failure(reason: "index \(index)") }
                items[index] = try IndependentPatch.apply([operation.replacingPath("/" + rest.joined(separator: "/"))], to: items[index])
                continue
            }
            switch op {
            case "replace":
                guard items.indices.contains(index) else { throw IndependentPatch.Failure(reason: "replace \(index)") }
                items[index] = operation["value"]!
            case "remove":
                guard items.indices.contains(index) else { throw IndependentPatch.Failure(reason: "remove \(index)") }
                items.remove(at: index)
            case "add":
                guard index <= items.count else { throw IndependentPatch.Failure(reason: "add \(index)") }
                items.insert(operation["value"]!, at: index)
            case "move":
                guard case let .string(from)? = operation["from"], let source = Int(try IndependentPatch.tokens(from).first ?? "") else { throw IndependentPatch.Failure(reason: "move") }
                let value = items.remove(at: source)
                items.insert(value, at: index)
            default: throw IndependentPatch.Failure(reason: "op \(op)")
            }
        }
        return items
    }

    /// Diffs two top-level arrays and checks the patch turns OLD into NEW. (How long a diff
    /// takes is bench/diff.sh's: shuffled, reversed and keyed arrays at 25 and 50 MB.)
    func assertArrayPatchApplies(_ old: [JSONValue], _ new: [JSONValue], file: StaticString = #filePath, line: UInt = #line) throws {
        let oldDocument = Self.document(.array(old)), newDocument = Self.document(.array(new))
        let diff = JSONDiff(old: oldDocument.root, new: newDocument.root)
        let patched = try Self.applyToArray(Self.patchValues(diff), old)
        XCTAssertTrue(IndependentPatch.same(.array(patched), .array(new)), "the patch turns OLD into NEW", file: file, line: line)
    }

    func testReversedLargeArrayGivesAPatchThatApplies() throws {
        let old = (0..<50_000).map { JSONValue.number(JSONNumber($0)) }
        try assertArrayPatchApplies(old, old.reversed())
    }

    func testShuffledArraysOfObjectsWithoutIdsGiveAPatchThatApplies() throws {
        var rng = SplitMix64(seed: 42)
        let old = (0..<20_000).map { (i: Int) -> JSONValue in
            .object(["n": .number(JSONNumber(i)), "tag": .string(["a", "b", "c"][i % 3])])
        }
        try assertArrayPatchApplies(old, old.shuffled(using: &rng))
        // Shuffled numbers with repeats, and a partly shuffled array (small edits stay small).
        let numbers = (0..<50_000).map { _ in JSONValue.number(JSONNumber(Int.random(in: 0...50, using: &rng))) }
        try assertArrayPatchApplies(numbers, numbers.shuffled(using: &rng))
        var partly = numbers
        for _ in 0..<3000 { partly.swapAt(Int.random(in: 0..<partly.count, using: &rng), Int.random(in: 0..<partly.count, using: &rng)) }
        try assertArrayPatchApplies(numbers, partly)
    }

    /// Keyed arrays were re-indexed after every move: reversing 100,000 objects with ids never
    /// finished (bench/diff.sh times the keyed case).
    func testReorderedKeyedArraysReportTheMovesAndThePatchApplies() throws {
        let keyed = (0..<50_000).map { (i: Int) -> JSONValue in .object(["id": .string("e\(i)"), "v": .number(JSONNumber(i % 7))]) }
        let oldDocument = Self.document(.array(keyed)), newDocument = Self.document(.array(keyed.reversed()))
        let diff = JSONDiff(old: oldDocument.root, new: newDocument.root)
        XCTAssertEqual(diff.changes.filter { $0.kind == .move }.count, 49_999)
        // Smaller, so the applier's O(n) moves stay quick: shuffled, with removals, additions and edits.
        var rng = SplitMix64(seed: 3)
        let old = Array(keyed.prefix(4000))
        var new = old.shuffled(using: &rng).filter { _ in Int.random(in: 0..<10, using: &rng) > 0 }
        for k in stride(from: 0, to: new.count, by: 97) { new[k] = .object(["id": .string("new\(k)")]) }
        for k in stride(from: 5, to: new.count, by: 89) { new[k] = new[k].replacingPath("changed") }
        try assertArrayPatchApplies(old, new)
    }

    /// A few edits in a long sequence stay minimal; a hopeless pair still gives a correct script.
    func testBoundedSequenceDiffStaysCorrect() {
        var rng = SplitMix64(seed: 7)
        for round in 0..<60 {
            let n = Int.random(in: 0...3000, using: &rng)
            let a = (0..<n).map { _ in Int.random(in: 0...(round % 2 == 0 ? 3 : 100_000), using: &rng) }
            let b = round % 3 == 0 ? a.shuffled(using: &rng) : (0..<Int.random(in: 0...3000, using: &rng)).map { _ in Int.random(in: 0...3, using: &rng) }
            let edits = SequenceDiff.edits(a.count, b.count) { a[$0] == b[$1] }
            var rebuilt: [Int] = [], nextOld = 0, nextNew = 0
            for edit in edits {
                switch edit {
                case let .keep(i, j):
                    XCTAssertEqual(a[i], b[j]); XCTAssertEqual(i, nextOld); XCTAssertEqual(j, nextNew)
                    rebuilt.append(b[j]); nextOld += 1; nextNew += 1
                case let .delete(i): XCTAssertEqual(i, nextOld); nextOld += 1
                case let .insert(j): XCTAssertEqual(j, nextNew); rebuilt.append(b[j]); nextNew += 1
                }
            }
            XCTAssertEqual(rebuilt, b)
            XCTAssertEqual(nextOld, a.count)
        }
    }

    // MARK: - Share of users who change variant

    /// The devices' walk, written again here: truncating cumulative sums, last variant catches the rest.
    static func variantOf(bucket: Int, _ weights: [(String, Double)]) -> String {
        var cumulative = 0
        for (id, w) in weights {
            cumulative += Int(w * 10_000)
            if bucket < cumulative { return id }
        }
        return weights.last!.0
    }

    func testSwitchShareIsExactOverTheBucketsAndAgreesWithUsers() {
        let cases: [([(String, Double)], [(String, Double)])] = [
            ([("control", 0.5), ("b", 0.5)], [("control", 0.4), ("b", 0.6)]),
            ([("control", 0.57), ("b", 0.43)], [("control", 0.5), ("b", 0.5)]),
            ([("a", 0.34), ("b", 0.33), ("c", 0.33)], [("a", 0.25), ("b", 0.25), ("c", 0.25), ("d", 0.25)]),
            ([("a", 0.5), ("b", 0.5)], [("b", 0.5), ("a", 0.5)]),
            ([("a", 0.69), ("b", 0.31)], [("a", 0.69), ("c", 0.31)]),
        ]
        var rng = SplitMix64(seed: 42)
        let users = (0..<100_000).map { _ in "user-\(rng.next() % 1_000_000_000)" }
        for (old, new) in cases {
            let change = AssignmentChange(old: VariantAllocation(weights: old), new: VariantAllocation(weights: new))
            let exact = (0..<10_000).filter { Self.variantOf(bucket: $0, old) != Self.variantOf(bucket: $0, new) }.count
            XCTAssertEqual(change.switchedBuckets, exact, "\(old) → \(new)")
            var switched = 0
            for user in users {
                let bucket = Int(BucketingScheme.sdk.assign(user: user, experiment: "exp", salt: "s1").bucket)
                if Self.variantOf(bucket: bucket, old) != Self.variantOf(bucket: bucket, new) { switched += 1 }
            }
            let observed = Double(switched) / Double(users.count)
            let sigma = (change.share * (1 - change.share) / Double(users.count)).squareRoot()
            XCTAssertLessThanOrEqual(abs(observed - change.share), 4 * sigma + 1e-12, "\(old) → \(new): \(observed) vs \(change.share)")
        }
        let truncated = AssignmentChange(old: VariantAllocation(weights: [("control", 0.57), ("b", 0.43)]), new: VariantAllocation(weights: [("control", 0.5), ("b", 0.5)]))
        XCTAssertEqual(truncated.switchedBuckets, 699, "5699 → 5000 control buckets: 699, not 700")
    }

    func testResaltShareAgreesWithUsers() {
        let weights = [("a", 0.2), ("b", 0.3), ("c", 0.5)]
        let allocation = VariantAllocation(weights: weights)
        let expected = AssignmentChange.expectedShareAfterResalt(old: allocation, new: allocation)
        XCTAssertEqual(expected, 1 - (0.04 + 0.09 + 0.25), accuracy: 1e-12)
        var rng = SplitMix64(seed: 9)
        var switched = 0
        let n = 100_000
        for _ in 0..<n {
            let user = "u\(rng.next())"
            let before = allocation.variant(forBucket: BucketingScheme.sdk.assign(user: user, experiment: "e", salt: "old").bucket)
            let after = allocation.variant(forBucket: BucketingScheme.sdk.assign(user: user, experiment: "e", salt: "new").bucket)
            if before != after { switched += 1 }
        }
        let sigma = (expected * (1 - expected) / Double(n)).squareRoot()
        XCTAssertLessThan(abs(Double(switched) / Double(n) - expected), 4 * sigma)
    }

    // MARK: - Domain notes

    func notes(_ old: String, _ new: String, ignore: [String] = []) throws -> [String] {
        let a = try JSONDocument(bytes: Array(old.utf8)), b = try JSONDocument(bytes: Array(new.utf8))
        return BundleDiff(old: a.root, new: b.root, ignore: try ignore.map { try JSONPointer(parsing: $0) }).notes.map { "\($0.kind.rawValue) \($0.path): \($0.message)" }
    }

    func testNotes() throws {
        let old = #"{"bundle_version": 3, "experiments": {"e": {"status": "running", "salt": "s", "traffic_allocation": 0.5, "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}}, "remote_config": {"k": 1}}"#
        XCTAssertEqual(try notes(old, old), [])
        let weights = #"{"bundle_version": 4, "experiments": {"e": {"status": "running", "salt": "s", "traffic_allocation": 0.5, "variants": [{"id": "a", "weight": 0.57}, {"id": "b", "weight": 0.43}]}}, "remote_config": {"k": 1}}"#
        XCTAssertEqual(try notes(old, weights), ["assignment_changed /experiments/e/variants: \"e\": 6.99% of users in the experiment change variant (699 of 10000 buckets: b → a 699)"])
        let salt = old.replacingOccurrences(of: #""salt": "s""#, with: #""salt": " ""#).replacingOccurrences(of: "\"bundle_version\": 3", with: "\"bundle_version\": 4")
        XCTAssertEqual(try notes(old, salt), ["salt_changed /experiments/e/salt: \"e\" salt \"s\" → \" \": every user is re-randomised; about 50.0% change variant (1 − Σ p_old·p_new over the buckets each variant owns); traffic allocation is re-drawn too",
                                              "traffic_allocation_changed /experiments/e/traffic_allocation: \"e\" traffic allocation 5000 → 5000 of 10000 buckets with a new salt: about 25.0% of all users enter and 25.0% leave"])
        let traffic = old.replacingOccurrences(of: "0.5, \"variants\"", with: "0.55, \"variants\"").replacingOccurrences(of: "\"status\": \"running\"", with: "\"status\": \"completed\"")
        XCTAssertEqual(try notes(old, traffic), ["status_changed /experiments/e/status: \"e\" status \"running\" → \"completed\": devices stop assigning users",
                                                 "traffic_allocation_changed /experiments/e/traffic_allocation: \"e\" traffic allocation 5000 → 5500 of 10000 buckets: 5.0% of all users enter the experiment",
                                                 "bundle_version_not_increased /bundle_version: bundle_version did not increase (3 → 3) while the content changed: devices and caches that compare versions keep the old bundle"])
        let flags = old.replacingOccurrences(of: #"{"k": 1}"#, with: #"{"k": 2, "j": true}"#).replacingOccurrences(of: "\"bundle_version\": 3", with: "\"bundle_version\": 2")
        XCTAssertEqual(try notes(old, flags), ["flag_changed /remote_config/k: flag \"k\" 1 → 2", "flag_added /remote_config/j: flag \"j\" added: true",
                                               "bundle_version_not_increased /bundle_version: bundle_version did not increase (3 → 2) while the content changed: devices and caches that compare versions keep the old bundle"])
        XCTAssertEqual(try notes(old, flags, ignore: ["/remote_config"]), [])
        let api = #"{"bundle_version": 3, "content": {"experiments": {"e": {"status": "running", "salt": "s", "variants": [{"id": "a", "weight": 1}]}}}}"#
        let api2 = api.replacingOccurrences(of: #"[{"id": "a", "weight": 1}]"#, with: #"[{"id": "a", "weight": 0.9}, {"id": "c", "weight": 0.1}]"#).replacingOccurrences(of: "3", with: "4")
        XCTAssertEqual(try notes(api, api2), ["variant_added /content/experiments/e/variants: \"e\" variant \"c\" added",
                                              "assignment_changed /content/experiments/e/variants: \"e\": 10.0% of users in the experiment change variant (1000 of 10000 buckets: a → c 1000)"])
    }
}

extension JSONValue {
    /// A copy of a patch operation with another `path`.
    func replacingPath(_ path: String) -> JSONValue {
        guard case var .object(object) = self else { return self }
        object["path"] = .string(path)
        return .object(object)
    }
}
