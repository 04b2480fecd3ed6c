import XCTest
@testable import AppDNACore

/// `JSONDocument.pointers(toNodes:)` finds the pointers of many nodes in one descent (the
/// validator's repeated keys and unsafe integers): every pointer it gives must lead back to its
/// node, on documents of every shape, whichever nodes are asked for together.
final class JSONDocumentPointersTests: XCTestCase {
    func testEveryPointerLeadsBackToItsNode() throws {
        var generator = SeededShapes(seed: 36)
        for _ in 0..<300 {
            let text = generator.value(depth: 0)
            let document = try JSONDocument(bytes: Array(text.utf8))
            let all = Array(0..<document.nodeCount)
            // All nodes at once, and a random half (so targets skip whole subtrees).
            for targets in [all, all.filter { _ in generator.next(2) == 0 }] {
                let pointers = document.pointers(toNodes: targets)
                XCTAssertEqual(pointers.count, Set(targets).count, text)
                for target in targets {
                    let pointer = try XCTUnwrap(pointers[target], "no pointer for node \(target) of \(text)")
                    let resolved = try XCTUnwrap(document.root.resolve(pointer), "\(pointer) does not resolve in \(text)")
                    if isKey(target, in: document) {
                        // A key's pointer is its object's.
                        XCTAssertEqual(resolved.kind, .object, text)
                        XCTAssertTrue(resolved.index < target && target < resolved.subtreeEnd, text)
                    } else {
                        XCTAssertEqual(resolved.index, target, "\(pointer) in \(text)")
                    }
                }
            }
        }
    }

    func testKeysThatRepeatAreFoundUnderTheRightObject() throws {
        // The object pointers of repeated keys, found together for objects far apart.
        let text = #"{"a": {"x": 1, "x": 2}, "b": [{"y": 1}, {"z": 1, "z": 2}], "c": {"d": {"w": 0, "w": 1}}}"#
        var options = JSONParseOptions()
        options.duplicateKeys = .record
        let document = try JSONDocument(bytes: Array(text.utf8), options: options)
        XCTAssertEqual(document.duplicateKeys.map(\.objectPointer.description), ["/a", "/b/1", "/c/d"])
    }

    private func isKey(_ index: Int, in document: JSONDocument) -> Bool {
        // Keys are the children at even positions of an object.
        var stack = [document.root]
        while let node = stack.popLast() {
            if node.kind == .object {
                for member in node.members {
                    if member.keyNode.index == index { return true }
                    stack.append(member.value)
                }
            } else if node.kind == .array {
                stack.append(contentsOf: node.elements)
            }
        }
        return false
    }
}

/// Random JSON texts of nested objects and arrays (the same for the same seed).
private struct SeededShapes {
    var rng: SplitMix64
    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func next(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    mutating func value(depth: Int) -> String {
        switch depth > 4 ? next(3) : next(6) {
        case 0: return String(next(1000))
        case 1: return "\"s\(next(50))\""
        case 2: return ["true", "false", "null"][next(3)]
        case 3, 4:
            let n = next(5)
            return "{" + (0..<n).map { "\"k\(next(4) == 0 ? "~/" : "")\($0)\": \(value(depth: depth + 1))" }.joined(separator: ",") + "}"
        default:
            let n = next(5)
            return "[" + (0..<n).map { _ in value(depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }
}
