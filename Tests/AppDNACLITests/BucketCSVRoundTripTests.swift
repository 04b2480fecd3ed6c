import Foundation
import XCTest
@testable import AppDNACLI
@testable import AppDNACore

/// Issue 44: `bucket -`'s CSV must give every id back. It escapes as TSV does (a backslash
/// doubled, then `\t`, `\r`, `\n`, `\xHH`, `\uHHHH` for what would act on a terminal), then
/// quotes per RFC 4180; before, it escaped without doubling backslashes, so an id holding a tab
/// and the id `a\tb` typed literally printed the same bytes. Every byte value is put in ids (alone,
/// between letters, next to a backslash; a byte beyond ASCII inside a valid UTF-8 character of
/// each lead and continuation byte), and each row's fields are read back with an RFC 4180 reader
/// and the TSV unescaping (`CSVReading` below), in both batch modes.
final class BucketCSVRoundTripTests: XCTestCase {
    /// Ids holding every byte that can be in one (a line cannot hold a LF; a CR only before
    /// something else, since a last CR is the line end's), and ids that spell escapes literally.
    static func ids() -> [[UInt8]] {
        var ids: [[UInt8]] = []
        for byte in UInt8(0)...0x7F where byte != 10 {
            if byte != 13 { ids.append([byte]) }
            ids.append([0x61, byte, 0x7A])
            ids.append([byte, 0x5C, byte, 0x7A])
        }
        // Each byte from 0x80 inside a valid character: as a continuation byte (U+0080…U+00BF,
        // the C1 controls among them, and in three- and four-byte forms), or as a lead byte.
        for byte in UInt8(0x80)...0xBF {
            ids.append([0x61, 0xC2, byte, 0x7A])
            ids.append([0xE2, 0x80, byte])  // U+2000…U+203F: the bidi controls and separators
            ids.append([0xF0, 0x9F, 0x98, byte])
        }
        for lead in UInt8(0xC2)...0xF4 {
            switch lead {
            case ..<0xE0: ids.append([lead, 0x80])
            case 0xE0: ids.append([lead, 0xA0, 0x80])
            case ..<0xF0: ids.append([lead, 0x80, 0x80, 0x2C])
            case 0xF0: ids.append([lead, 0x90, 0x80, 0x80])
            default: ids.append([lead, 0x80, 0x80, 0x80])
            }
        }
        // Escapes spelled literally beside the characters they stand for.
        for text in ["a\\tb", "a\tb", "a\\\\tb", "a\\\tb", "\\", "\\\\", "\\x1B", "\u{1B}", "\\u202E", "\u{202E}", "\\U0001F600",
                     "\\uFDD0", "\u{2028}", "\\n", "\r\u{85}", "\\r", "\"", "\"\"", ",", "\",\\\"", "\\\"", "a,\"b\\c\"\t"] {
            ids.append(Array(text.utf8))
        }
        ids.append([0xEF, 0xB7, 0x90])  // U+FDD0, a noncharacter (Swift spells none in a literal)
        return ids
    }

    /// The ids as the batch's input; a trailing CR is part of the line end, so such an id is
    /// followed by a letter.
    static func input(_ ids: [[UInt8]]) -> [UInt8] {
        ids.flatMap { $0 + [10] }
    }

    func testEveryIDComesBackFromTheCSVOfOneExperiment() throws {
        let ids = Self.ids().filter { $0.last != 13 }
        // One thread and several: each id is judged plain or not (`PlainLines`) on both paths.
        for threads in ["1", "3"] {
            let run = runCLIBytes(["bucket", "-", "exp", "salt", "--variants", "a\\tb=0.5,a\tb=0.5", "--format", "csv"],
                                  environment: [BatchRunner.threadsVariable: threads], stdin: Self.input(ids))
            try checkOneExperiment(run, ids: ids)
        }
    }

    func checkOneExperiment(_ run: CapturedRun, ids: [[UInt8]]) throws {
        XCTAssertEqual(run.status, 0, run.stderr)
        let rows = try CSVReading.rows(Array(run.stdout.utf8))
        XCTAssertEqual(rows.first, ["user", "hash", "bucket", "variant"].map { Array($0.utf8) })
        XCTAssertEqual(rows.count, ids.count + 1)
        for (id, row) in zip(ids, rows.dropFirst()) {
            XCTAssertEqual(row.count, 4, "\(id): \(row)")
            XCTAssertEqual(try CSVReading.unescaped(row[0]), id, "id \(id) came back as \(row[0])")
            let variant = try CSVReading.unescaped(row[3])
            XCTAssertTrue(variant == Array("a\\tb".utf8) || variant == Array("a\tb".utf8), "\(variant)")
        }
        // The two variants differ only in a tab spelled or held: both must be read back.
        let variants = Set(try rows.dropFirst().map { try CSVReading.unescaped($0[3]) })
        XCTAssertEqual(variants, [Array("a\\tb".utf8), Array("a\tb".utf8)])
    }

    func testEveryIDComesBackFromTheCSVOfABundle() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-csv-roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("bundle.json").path
        // Experiment and variant names of the same confusable shapes as the ids.
        try Data(#"""
        {"bundle_version": 1, "experiments": {
          "e\\t,\"x\"": {"status": "running", "salt": "s", "variants": [{"id": "a\\\\tb", "weight": 0.5}, {"id": "a\tb", "weight": 0.5}]},
          "e\t,\"x\"": {"status": "running", "salt": "s", "variants": [{"id": "\u001b", "weight": 0.5}, {"id": "\\x1B", "weight": 0.5}]}
        }}
        """#.utf8).write(to: URL(fileURLWithPath: bundle))
        let ids = Self.ids().filter { $0.last != 13 }
        for threads in ["1", "3"] {
            let run = runCLIBytes(["bucket", "-", "--bundle", bundle, "--format", "csv"], environment: [BatchRunner.threadsVariable: threads],
                                  stdin: Self.input(ids))
            XCTAssertEqual(run.status, 0, run.stderr)
            let rows = try CSVReading.rows(Array(run.stdout.utf8))
            XCTAssertEqual(rows.count, 2 * ids.count + 1)
            let experiments: [[UInt8]] = [Array("e\\t,\"x\"".utf8), Array("e\t,\"x\"".utf8)]
            for (index, row) in rows.dropFirst().enumerated() {
                XCTAssertEqual(row.count, 6, "\(row)")
                XCTAssertEqual(try CSVReading.unescaped(row[0]), ids[index / 2])
                XCTAssertEqual(try CSVReading.unescaped(row[1]), experiments[index % 2])
                let variant = try CSVReading.unescaped(row[4])
                let names: [[UInt8]] = index % 2 == 0 ? [Array("a\\\\tb".utf8), Array("a\tb".utf8)] : [[0x1B], Array("\\x1B".utf8)]
                XCTAssertTrue(names.contains(variant), "\(variant)")
            }
        }
    }

    /// A byte that is never part of valid UTF-8 is no id: its line is skipped and reported,
    /// never written in a form another id could have.
    func testBytesThatAreNeverUTF8AreSkippedNotWritten() {
        let bad: [UInt8] = [0xC0, 0xC1] + Array(0xF5...0xFF)
        let run = runCLIBytes(["bucket", "-", "exp", "salt", "--format", "csv"], stdin: bad.flatMap { [0x61, $0, 10] })
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.stdout, "user,hash,bucket\n")
        XCTAssertTrue(run.stderr.contains("\(bad.count) line(s) are not valid UTF-8"), run.stderr)
    }
}

/// A reader of what the CSV promises (docs/experiments.md): RFC 4180 records, then each field's
/// escapes undone (`\\`, `\t`, `\r`, `\n`, `\xHH`, `\uHHHH`, `\UHHHHHHHH`). Strict: anything
/// else is an error, so output no reader could undo fails the test.
enum CSVReading {
    struct Malformed: Error, CustomStringConvertible { let description: String }

    /// The records, each a list of fields with the quoting undone. Every record ends in LF.
    static func rows(_ bytes: [UInt8]) throws -> [[[UInt8]]] {
        var rows: [[[UInt8]]] = []
        var row: [[UInt8]] = []
        var field: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 34 {
                guard field.isEmpty else { throw Malformed(description: "a quote inside an unquoted field at \(i)") }
                i += 1
                while true {
                    guard i < bytes.count else { throw Malformed(description: "an unclosed quote") }
                    if bytes[i] == 34 {
                        if i + 1 < bytes.count && bytes[i + 1] == 34 { field.append(34); i += 2; continue }
                        i += 1
                        break
                    }
                    field.append(bytes[i])
                    i += 1
                }
                guard i < bytes.count, bytes[i] == 44 || bytes[i] == 10 else { throw Malformed(description: "text after a closing quote at \(i)") }
                continue
            }
            switch bytes[i] {
            case 44: row.append(field); field = []
            case 10: row.append(field); field = []; rows.append(row); row = []
            case 13: throw Malformed(description: "a bare CR at \(i)")
            default: field.append(bytes[i])
            }
            i += 1
        }
        guard row.isEmpty, field.isEmpty else { throw Malformed(description: "a last record without its LF") }
        return rows
    }

    /// The field's escapes undone.
    static func unescaped(_ field: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        func hex(_ digits: Int) throws -> UInt32 {
            guard i + 2 + digits <= field.count, let value = UInt32(String(decoding: field[(i + 2)..<(i + 2 + digits)], as: UTF8.self), radix: 16) else {
                throw Malformed(description: "a bad escape in \(field)")
            }
            return value
        }
        while i < field.count {
            guard field[i] == 92 else {
                guard field[i] >= 0x20, field[i] != 0x7F else { throw Malformed(description: "a raw control byte in \(field)") }
                out.append(field[i]); i += 1; continue
            }
            guard i + 1 < field.count else { throw Malformed(description: "a lone backslash ends \(field)") }
            switch field[i + 1] {
            case 92: out.append(92); i += 2
            case 116: out.append(9); i += 2
            case 114: out.append(13); i += 2
            case 110: out.append(10); i += 2
            case 120: out.append(UInt8(try hex(2))); i += 4
            case 117: out += Array(String(Unicode.Scalar(try hex(4))!).utf8); i += 6
            case 85: out += Array(String(Unicode.Scalar(try hex(8))!).utf8); i += 10
            default: throw Malformed(description: "an unknown escape in \(field)")
            }
        }
        return out
    }
}
