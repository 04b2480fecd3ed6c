import Foundation
import XCTest
@testable import AppDNACore

/// Seeded random tests: mutated documents never crash the parser and fail at a position inside
/// the input; whatever parses round-trips through the writer; and generated documents read the
/// same as Foundation's JSONSerialization reads them.
final class JSONRandomizedTests: XCTestCase {
    private let seeds: [String] = [
        #"{"a": [1, 2.5, -3e-2, true, false, null], "b": {"c": "d\n\u00e9\ud83d\ude80"}, "é": "日本語"}"#,
        #"[[], {}, [[[]]], {"x": {"y": {"z": [0]}}}]"#,
        "\u{FEFF}{\"bom\": 1}",
        #""just a string with \"escapes\" and \\ and \/""#,
        "123456789012345678901234567890",
        #"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17}"#,
        "{\n  \"experiments\": [\n    {\"id\": \"exp_1\", \"weight\": 0.25, \"variants\": [{\"key\": \"control\"}, {\"key\": \"tr\\u00e9atment\"}]}\n  ]\n}",
    ]

    func testMutatedDocumentsFailCleanlyOrRoundTrip() throws {
        var rng = SplitMix64(seed: 0xA11CE)
        let interesting: [UInt8] = Array("{}[],:\"\\0123456789-+.eEtfnu \n\t".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xC3, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
        var parsed = 0, failed = 0
        for iteration in 0..<4000 {
            var bytes = Array(seeds[iteration % seeds.count].utf8)
            let mutations = Int.random(in: 1...4, using: &rng)
            for _ in 0..<mutations {
                let at = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<6, using: &rng) {
                case 0 where !bytes.isEmpty: bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
                case 1: bytes.insert(interesting.randomElement(using: &rng)!, at: at)
                case 2 where !bytes.isEmpty: bytes.remove(at: at)
                case 3: bytes.removeSubrange(at..<bytes.count)
                case 4 where !bytes.isEmpty:
                    let end = min(bytes.count, at + Int.random(in: 1...8, using: &rng))
                    bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &rng))
                default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                }
            }
            for options in [JSONParseOptions(), JSONParseOptions(duplicateKeys: .record, maxDepth: 3)] {
                do {
                    let document = try JSONDocument(bytes: bytes, options: options)
                    parsed += 1
                    let value = document.root.value
                    let written = JSONWriter().write(value)
                    let again = try JSONValue(parsing: written)
                    XCTAssertEqual(again, value, "round trip of \(String(decoding: bytes, as: UTF8.self))")
                    XCTAssertEqual(JSONWriter().write(again), written)
                    XCTAssertEqual(try JSONValue(parsing: JSONWriter(indent: 2, sortKeys: true).write(value)).kind, value.kind)
                    // Every node's location is computable and inside the input.
                    XCTAssertGreaterThanOrEqual(document.root.location.line, 1)
                } catch {
                    failed += 1
                    XCTAssertGreaterThanOrEqual(error.byteOffset, 0)
                    XCTAssertLessThanOrEqual(error.byteOffset, bytes.count, error.message)
                    XCTAssertGreaterThanOrEqual(error.line, 1)
                    XCTAssertGreaterThanOrEqual(error.column, 1)
                    XCTAssertTrue(error.message.hasPrefix("line \(error.line), column \(error.column): "))
                    // The reported position agrees with the document's own line index.
                    let expected = bytes.withUnsafeBufferPointer {
                        SourceLocation.scan($0, to: error.byteOffset, contentStart: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
                    }
                    XCTAssertEqual(error.location, expected)
                }
            }
        }
        print("fuzz: \(parsed) parsed, \(failed) rejected")
        XCTAssertGreaterThan(parsed, 200, "the mutator should leave some documents valid")
        XCTAssertGreaterThan(failed, 2000)
    }

    /// Foundation rejects some inputs we accept only where RFC 8259 leaves room (we reject
    /// duplicates, it does not); on these generated valid documents both must agree on values.
    func testGeneratedDocumentsMatchJSONSerialization() throws {
        var rng = SplitMix64(seed: 2024)
        for iteration in 0..<2000 {
            var text = ""
            var generator = DocumentGenerator(rng: rng)
            generator.value(depth: 0, into: &text)
            rng = generator.rng
            let bytes = Array(text.utf8)
            let document: JSONDocument
            do {
                document = try JSONDocument(bytes: bytes)
            } catch {
                XCTFail("\(iteration): \(error.message) in \(text)")
                continue
            }
            let foundation = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            if let difference = difference(document.root, foundation, at: "") {
                XCTFail("\(iteration): \(difference)")
            }
            XCTAssertEqual(try JSONValue(parsing: JSONWriter(indent: iteration % 4).write(document.root.value)), document.root.value)
        }
    }

    /// Where and how the two readings differ, or nil when they agree.
    private func difference(_ node: JSONNode, _ other: Any, at path: String) -> String? {
        switch node.kind {
        case .array:
            guard let items = other as? [Any], items.count == node.count else { return "\(path): array vs \(other)" }
            for (i, (element, item)) in zip(node.elements, items).enumerated() {
                if let d = difference(element, item, at: path + "/\(i)") { return d }
            }
            return nil
        case .object:
            guard let dictionary = other as? [String: Any], dictionary.count == node.count else {
                return "\(path): object with keys \(node.members.map(\.key)) vs \((other as? [String: Any]).map { Array($0.keys) } ?? [])"
            }
            for member in node.members {
                guard let item = dictionary[member.key] else { return "\(path): missing key \(member.key.debugDescription)" }
                if let d = difference(member.value, item, at: path + "/" + member.key) { return d }
            }
            return nil
        default:
            return same(node, other) ? nil : "\(path): \(node.value) vs \(other)"
        }
    }

    private func same(_ node: JSONNode, _ other: Any) -> Bool {
        switch node.kind {
        case .null: return other is NSNull
        case .bool:
            guard let n = other as? NSNumber else { return false }
            return n.boolValue == node.bool
        case .number:
            guard let n = other as? NSNumber else { return false }
            return n.doubleValue == node.double
        case .string: return (other as? String) == node.string
        case .array:
            guard let items = other as? [Any], items.count == node.count else { return false }
            return zip(node.elements, items).allSatisfy { same($0, $1) }
        case .object:
            guard let dictionary = other as? [String: Any], dictionary.count == node.count else { return false }
            return node.members.allSatisfy { member in dictionary[member.key].map { same(member.value, $0) } ?? false }
        }
    }
}

/// Writes random valid JSON text directly (not through JSONWriter), with random whitespace,
/// escapes of every form, surrogate pairs, non-ASCII text and number shapes. U+FEFF is left
/// out of strings: swift-corelibs-foundation drops it inside strings, the parser here keeps it.
struct DocumentGenerator {
    var rng: SplitMix64

    mutating func space(into text: inout String) {
        for _ in 0..<Int.random(in: 0...2, using: &rng) { text += [" ", "\n", "\t", "\r\n"].randomElement(using: &rng)! }
    }

    mutating func string(into text: inout String, prefix: String = "") {
        text += "\"" + prefix
        for _ in 0..<Int.random(in: 0...12, using: &rng) {
            let pick = Int.random(in: 0..<10, using: &rng)
            switch pick {
            case 0: text += ["\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r"].randomElement(using: &rng)!
            case 1: text += hexEscape(Int.random(in: 0...0xD7FF, using: &rng))
            case 2:
                let scalar = Int.random(in: 0x10000...0x10FFFF, using: &rng) - 0x10000
                text += hexEscape(0xD800 + (scalar >> 10), uppercase: true) + hexEscape(0xDC00 + (scalar & 0x3FF))
            case 3: text += ["é", "日本", "🚀", "ß", "\u{2028}", "\u{7F}"].randomElement(using: &rng)!
            default: text.append(Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng))))
                if text.hasSuffix("\\") || text.hasSuffix("\"") { text.removeLast(); text += "x" }
            }
        }
        text += "\""
    }

    func hexEscape(_ unit: Int, uppercase: Bool = false) -> String {
        let digits = String(unit, radix: 16, uppercase: uppercase)
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    mutating func number(into text: inout String) {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: text += String(Int.random(in: -1_000_000_000_000...1_000_000_000_000, using: &rng))
        case 1: text += String(format: "%.*f", Int.random(in: 1...6, using: &rng), Double.random(in: -1000...1000, using: &rng))
        case 2: text += String(format: "%d.%de%@%d", Int.random(in: 0...9, using: &rng), Int.random(in: 0...999, using: &rng),
                               ["", "+", "-"].randomElement(using: &rng)!, Int.random(in: 0...300, using: &rng))
        default: text += ["0", "-0", "0.0", "1E2", "-1e-2"].randomElement(using: &rng)!
        }
    }

    mutating func value(depth: Int, into text: inout String) {
        space(into: &text)
        let limit = depth > 3 ? 4 : 6
        switch Int.random(in: 0..<limit, using: &rng) {
        case 0: text += ["null", "true", "false"].randomElement(using: &rng)!
        case 1: number(into: &text)
        case 2, 3: string(into: &text)
        case 4:
            text += "["
            let n = Int.random(in: 0...5, using: &rng)
            for i in 0..<n {
                if i > 0 { text += "," }
                value(depth: depth + 1, into: &text)
            }
            space(into: &text)
            text += "]"
        default:
            text += "{"
            // Mostly small objects, sometimes one big enough for the parser's hashed key check.
            let n = Int.random(in: 0..<10, using: &rng) == 0 ? Int.random(in: 17...30, using: &rng) : Int.random(in: 0...6, using: &rng)
            for i in 0..<n {
                if i > 0 { text += "," }
                space(into: &text)
                string(into: &text, prefix: "k\(i)_")
                space(into: &text)
                text += ":"
                value(depth: depth + 1, into: &text)
            }
            space(into: &text)
            text += "}"
        }
        space(into: &text)
    }
}
