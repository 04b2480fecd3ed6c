import XCTest
@testable import AppDNACore

/// The JSON string scanner and the tombstone search read eight bytes at a time (SWAR) — the
/// same Swift code on x86-64 and arm64, both little-endian, with no x86-only branch to force
/// off. What can differ between the two is where a word load lands, so these tests put every
/// kind of byte the word tricks must notice in every lane of the word, at every alignment of
/// the input, and hold the answer to one decided byte by byte. A lane or borrow bug would show
/// up here on this machine as it would on Apple silicon.
final class PortableWordScanTests: XCTestCase {
    /// What the scanner must conclude for one byte sequence placed inside a string.
    enum Expected: Equatable {
        case decodes(String)
        case controlCharacter(UInt8)
        case invalidUTF8
    }

    /// Bytes the string scanner's word test must stop at (or must not), with the verdict a
    /// byte-at-a-time reading of RFC 8259 gives for them.
    static let probes: [(name: String, bytes: [UInt8], expected: Expected)] = [
        ("escaped quote", Array(#"\""#.utf8), .decodes("\"")),
        ("escaped backslash", Array(#"\\"#.utf8), .decodes("\\")),
        ("unicode escape", Array(#"\u00e9"#.utf8), .decodes("é")),
        ("control 0x1F", [0x1F], .controlCharacter(0x1F)),
        ("control 0x00", [0x00], .controlCharacter(0x00)),
        ("space 0x20 (the control boundary)", [0x20], .decodes(" ")),
        ("! 0x21 (next to the quote)", [0x21], .decodes("!")),
        ("# 0x23", [0x23], .decodes("#")),
        ("[ 0x5B and ] 0x5D (next to the backslash)", [0x5B, 0x5D], .decodes("[]")),
        ("DEL 0x7F (allowed raw)", [0x7F], .decodes("\u{7F}")),
        ("two-byte é", [0xC3, 0xA9], .decodes("é")),
        ("three-byte 日", [0xE6, 0x97, 0xA5], .decodes("日")),
        ("four-byte 🚀", [0xF0, 0x9F, 0x9A, 0x80], .decodes("🚀")),
        ("0xFF", [0xFF], .invalidUTF8),
        ("lone continuation 0x80", [0x80], .invalidUTF8),
    ]

    func testEveryProbeInEveryLaneAtEveryAlignmentGivesTheByteAtATimeVerdict() throws {
        var checked = 0
        for probe in Self.probes {
            for alignment in 0..<8 {            // leading spaces move the string's start in the word
                for lane in 0..<20 {            // bytes of filler before the probe
                    let before = String(repeating: "a", count: lane), after = String(repeating: "b", count: 19 - lane)
                    let text = Array(String(repeating: " ", count: alignment).utf8) + [0x22] + Array(before.utf8)
                        + probe.bytes + Array(after.utf8) + [0x22]
                    let context = "\(probe.name), alignment \(alignment), lane \(lane)"
                    switch probe.expected {
                    case .decodes(let middle):
                        let document = try JSONDocument(bytes: text)
                        XCTAssertEqual(document.root.string.map { Array($0.utf8) }, Array((before + middle + after).utf8), context)
                    case .controlCharacter(let byte):
                        XCTAssertThrowsError(try JSONDocument(bytes: text), context) { error in
                            guard let syntax = error as? JSONSyntaxError else { return XCTFail("\(error)") }
                            XCTAssertEqual(syntax.reason, .controlCharacterInString(byte), context)
                            XCTAssertEqual(syntax.byteOffset, alignment + 1 + lane, context)
                        }
                    case .invalidUTF8:
                        XCTAssertThrowsError(try JSONDocument(bytes: text), context) { error in
                            guard let syntax = error as? JSONSyntaxError, case .invalidUTF8 = syntax.reason else { return XCTFail("\(context): \(error)") }
                            XCTAssertEqual(syntax.byteOffset, alignment + 1 + lane, context)
                        }
                    }
                    checked += 1
                }
            }
        }
        XCTAssertEqual(checked, Self.probes.count * 8 * 20)
    }

    /// The closing quote itself in every lane: the string must end exactly there, and what
    /// follows must be read as the next token (here, the rest of an array).
    func testTheClosingQuoteIsFoundInEveryLaneAtEveryAlignment() throws {
        for alignment in 0..<8 {
            for length in 0..<24 {
                let content = String((0..<length).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
                let text = String(repeating: " ", count: alignment) + "[\"" + content + "\",\"x\"]"
                let document = try JSONDocument(bytes: Array(text.utf8))
                XCTAssertEqual(document.root.elements.map { $0.string ?? "?" }, [content, "x"], "alignment \(alignment), length \(length)")
            }
        }
    }

    /// The tombstone search finds `appdna_removed` with word loads around each underscore; a
    /// plain substring search over the same lines is the reference.
    func testTombstoneSearchMatchesALineByLineSubstringSearch() {
        var random = SplitMix64(seed: 0x70AB)
        let pieces = ["appdna_removed", "appdna_remove", "ppdna_removed", "_", "__", "appdna__removed", "x", "é", "\r", "\n", "\n", "\n", "{\"id\":\"e\"}"]
        for round in 0..<400 {
            var text = ""
            for _ in 0..<Int(random.next() % 40) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            let bytes = Array(text.utf8)
            for offset in 0..<8 {
                let padded = [UInt8](repeating: 0x2E, count: offset) + bytes
                var found: [Int] = []
                padded.withUnsafeBytes { raw in
                    let region = UnsafeRawBufferPointer(rebasing: raw[offset...])
                    TombstoneSearch.forEachLine(containing: region) { line, start in
                        found.append(start)
                        XCTAssertTrue(line.count <= region.count - start)
                    }
                }
                XCTAssertEqual(found, Self.linesContainingTombstone(bytes), "round \(round), offset \(offset): \(text.debugDescription)")
            }
        }
    }

    /// Offsets of the lines (split at `\n`) that contain the key, byte by byte.
    static func linesContainingTombstone(_ bytes: [UInt8]) -> [Int] {
        let key = Array("appdna_removed".utf8)
        var result: [Int] = []
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = Array(bytes[start..<end])
            if line.count >= key.count, (0...(line.count - key.count)).contains(where: { Array(line[$0..<$0 + key.count]) == key }) {
                result.append(start)
            }
            start = end + 1
        }
        return result
    }
}
