import Foundation
import XCTest
import TestSupport
@testable import AppDNACLI
@testable import AppDNACore

/// `bucket -` on several threads writes exactly the bytes one thread writes (stdout, stderr,
/// status), in input order: 1,000,000 hostile ids (blank and CR-only lines, CRLF, NUL and other
/// controls, invalid UTF-8, lines of 64 KiB and longer, one longer than a whole chunk, NFC and
/// NFD spellings, tabs, commas, quotes, backslashes) with crafted lines across every chunk
/// boundary (a CRLF, a UTF-8 sequence, a combining mark, an invalid sequence split by it, an
/// empty line right after it), in every format, one experiment and a whole bundle. The
/// single-thread run (`APPDNA_THREADS=1`) reads the file line by line (`LineReader`); the
/// parallel one reads a pipe fed in uneven writes, in chunks (`LineChunkReader`), so the two
/// share none of the reading. Outputs go to files and are compared there (hundreds of MB).
/// The built binary runs them (the chunk sizes the corpus aims at are read from this build's
/// code): the optimised one `.ci/run` names, so the suite's debug-built tests still read the
/// full million quickly.
final class BucketBatchParallelTests: XCTestCase {
    /// Without an optimised binary (a local `swift test` with no release build newer than the
    /// debug one) the debug binary reads fewer ids: it is ~20 times slower.
    static let binary = BuiltBinary.optimised ?? BuiltBinary.url
    static let count = BuiltBinary.optimised == nil ? 200_000 : 1_000_000
    static let variants = ["--variants", "control=0.5,b=0.3,c\tt=0.2"]
    static let bundle = """
    {"bundle_version": 1, "experiments": {"experiments": {
      "alloc": {"status": "running", "salt": "s1", "platforms": ["ios"], "traffic_allocation": 0.4,
                "variants": [{"id": "control", "weight": 0.5}, {"id": "b,\\"q\\"", "weight": 0.5}]},
      "caf\\u00e9": {"status": "running", "salt": "s2", "targeting": {"countries": ["DE"]},
                "variants": [{"id": "cafe\\u0301", "weight": 0.7}, {"id": "tab\\there", "weight": 0.3}]},
      "paused": {"status": "paused", "salt": "s3", "variants": [{"id": "a", "weight": 1}]}
    }}}
    """
    static let bundleExperiments = 3

    // A failed run may stop reading: the feeding thread's write must then fail, not kill the
    // test process. Restored afterwards: child processes of later tests inherit the setting.
    private var previousSIGPIPE: (@convention(c) (Int32) -> Void)?

    override func setUp() {
        previousSIGPIPE = signal(SIGPIPE, SIG_IGN)
    }

    override func tearDown() {
        signal(SIGPIPE, previousSIGPIPE)
    }

    func testOneExperimentEveryFormat() throws {
        let scratch = try ScratchDirectory("batch-parallel")
        defer { scratch.remove() }
        let corpus = HostileBatchCorpus.make(count: Self.count, chunkSize: BucketBatch.chunkSize)
        XCTAssertGreaterThanOrEqual(corpus.boundaries, Self.count / 50_000, "crafted lines sit across the chunk boundaries")
        let input = try scratch.file("ids.txt", corpus.bytes)
        for format in ["tsv", "csv", "ndjson"] {
            try assertSameOnEveryThreadCount(["bucket", "-", "checkout", "s3cr3t", "--format", format] + Self.variants, input: input, scratch: scratch)
        }
        let bundle = try scratch.file("bundle.json", Array(Self.bundle.utf8))
        // One bundle experiment: eligibility per user (traffic allocation on iOS), and --summary's counts.
        try assertSameOnEveryThreadCount(["bucket", "-", "alloc", "--bundle", bundle, "--platform", "ios", "--format", "ndjson"], input: input, scratch: scratch)
        try assertSameOnEveryThreadCount(["bucket", "-", "alloc", "--bundle", bundle, "--platform", "ios", "--summary", "--json"], input: input, scratch: scratch)
        try assertSameOnEveryThreadCount(["bucket", "-", "checkout", "s3cr3t", "--summary"] + Self.variants, input: input, scratch: scratch)
    }

    func testEveryExperimentOfABundleEveryFormat() throws {
        let scratch = try ScratchDirectory("batch-parallel-bundle")
        defer { scratch.remove() }
        let corpus = HostileBatchCorpus.make(count: Self.count, chunkSize: BucketAllExperiments.chunkSize(experiments: Self.bundleExperiments))
        XCTAssertGreaterThanOrEqual(corpus.boundaries, Self.count / 25_000)
        let input = try scratch.file("ids.txt", corpus.bytes)
        let bundle = try scratch.file("bundle.json", Array(Self.bundle.utf8))
        for format in ["tsv", "csv", "ndjson"] {
            try assertSameOnEveryThreadCount(["bucket", "-", "--bundle", bundle, "--platform", "ios", "--format", format], input: input, scratch: scratch, threads: [2])
        }
    }

    /// Runs `arguments` on one thread from the file and on `threads` worker threads from a
    /// pipe, and compares the outputs byte for byte.
    private func assertSameOnEveryThreadCount(_ arguments: [String], input: String, scratch: ScratchDirectory, threads counts: [Int] = [2, 3],
                                              file: StaticString = #filePath, line: UInt = #line) throws {
        let single = try run(arguments, input: input, threads: 1, scratch: scratch)
        XCTAssertGreaterThan(single.stdoutBytes, 0, file: file, line: line)
        XCTAssertEqual(single.status, 65, "the corpus has lines that are not UTF-8 and over-long lines", file: file, line: line)
        for threads in counts {
            let parallel = try run(arguments, input: input, threads: threads, scratch: scratch)
            let what = "\(arguments.joined(separator: " ")) with APPDNA_THREADS=\(threads)"
            XCTAssertEqual(parallel.status, single.status, what, file: file, line: line)
            XCTAssertEqual(parallel.stderr, single.stderr, what, file: file, line: line)
            XCTAssertEqual(parallel.stdoutBytes, single.stdoutBytes, what, file: file, line: line)
            if let offset = try Self.firstDifference(single.stdoutPath, parallel.stdoutPath) {
                XCTFail("\(what): stdout differs from one thread's at byte \(offset)", file: file, line: line)
            }
        }
    }

    private struct Run {
        let status: Int32
        let stdoutPath: String
        let stdoutBytes: Int
        let stderr: String
    }

    /// One run of the binary with stdout and stderr to files; with more than one thread, stdin
    /// is a pipe fed from `input` in writes of uneven sizes (reads then return partial chunks).
    private func run(_ arguments: [String], input: String, threads: Int, scratch: ScratchDirectory) throws -> Run {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.binary.path), "no built binary at \(Self.binary.path)")
        let outPath = scratch.url.appendingPathComponent("out-\(threads).bin").path
        let errPath = scratch.url.appendingPathComponent("err-\(threads).txt").path
        XCTAssertTrue(FileManager.default.createFile(atPath: outPath, contents: nil))
        XCTAssertTrue(FileManager.default.createFile(atPath: errPath, contents: nil))
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", BatchRunner.threadsVariable: String(threads)]
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer { try? out.close(); try? err.close() }
        process.standardOutput = out
        process.standardError = err
        let fed = DispatchSemaphore(value: 0)
        if threads > 1 {
            let pipe = Pipe()
            let bytes = try Data(contentsOf: URL(fileURLWithPath: input))
            let writeEnd = pipe.fileHandleForWriting.fileDescriptor
            let feeder = Thread {
                var offset = 0
                var size = 1
                bytes.withUnsafeBytes { raw in
                    while offset < raw.count {
                        size = size * 7 % 200_003 + 1
                        let n = write(writeEnd, raw.baseAddress! + offset, min(size, raw.count - offset))
                        if n <= 0 { break }
                        offset += n
                    }
                }
                try? pipe.fileHandleForWriting.close()
                fed.signal()
            }
            process.standardInput = pipe
            try process.run()
            // Only the child reads: with our read end open, a child that stopped reading would
            // leave the feeder blocked instead of failing its write.
            try? pipe.fileHandleForReading.close()
            feeder.start()
        } else {
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
            defer { try? file.close() }
            process.standardInput = file
            try process.run()
            fed.signal()
        }
        process.waitUntilExit()
        fed.wait()
        var info = stat()
        XCTAssertEqual(stat(outPath, &info), 0)
        let kept = scratch.url.appendingPathComponent("out-\(threads)-kept.bin").path
        try? FileManager.default.removeItem(atPath: kept)
        try FileManager.default.moveItem(atPath: outPath, toPath: kept)
        return Run(status: process.terminationStatus, stdoutPath: kept, stdoutBytes: Int(info.st_size),
                   stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }

    /// The first byte offset where two files differ, or nil when they are equal.
    static func firstDifference(_ a: String, _ b: String) throws -> Int? {
        let left = try FileHandle(forReadingFrom: URL(fileURLWithPath: a))
        let right = try FileHandle(forReadingFrom: URL(fileURLWithPath: b))
        defer { try? left.close(); try? right.close() }
        var offset = 0
        while true {
            let x = try left.read(upToCount: 1 << 20) ?? Data()
            let y = try right.read(upToCount: 1 << 20) ?? Data()
            if x != y {
                let index = zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(x.count, y.count)
                return offset + index
            }
            if x.isEmpty { return nil }
            offset += x.count
        }
    }
}

/// A deterministic mix of hostile ids, and crafted lines across the places where the chunked
/// reader will cut the input (each chunk is filled to `chunkSize` bytes, then cut after its last
/// line end: the simulation below follows that rule, so the crafted lines land on the cuts).
enum HostileBatchCorpus {
    static func make(count: Int, chunkSize: Int) -> (bytes: [UInt8], boundaries: Int) {
        var generator = SplitMix64(seed: 0x5EED_0BAD_1D5E_0001)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 30)
        // Where the current chunk starts; it is cut once more than `chunkSize` bytes follow.
        var chunkStart = 0
        var boundaries = 0
        for index in 0..<count {
            let remaining = chunkStart + chunkSize - bytes.count
            if remaining > 0 && remaining < 1200 {
                bytes += straddler(remaining: remaining, kind: boundaries)
                boundaries += 1
            } else {
                bytes += ordinary(index, generator.next())
            }
            if index < count - 1 { bytes.append(10) }
            // The reader's rule: a chunk ends after its last line end before `chunkSize`
            // bytes, else after its first line end.
            while bytes.count > chunkStart + chunkSize {
                var end = chunkStart + chunkSize
                while end > chunkStart && bytes[end - 1] != 10 { end -= 1 }
                if end == chunkStart {
                    guard let newline = bytes[(chunkStart + chunkSize)...].firstIndex(of: 10) else { break }
                    end = newline + 1
                }
                chunkStart = end
            }
        }
        return (bytes, boundaries)
    }

    /// A line that runs across the fill end `remaining` bytes ahead, in one of several ways.
    static func straddler(remaining: Int, kind: Int) -> [UInt8] {
        let pad = [UInt8](repeating: UInt8(ascii: "x"), count: max(0, remaining - 1))
        switch kind % 9 {
        case 0: return pad + [13]                                   // CR before the fill end, LF after it
        case 1: return pad + [0xC3, 0xA9] + Array("-e".utf8)        // é split by it
        case 2: return pad + Array("e\u{301}-nfd".utf8)             // a combining mark after it
        case 3: return pad + [0xC3, 0x28]                            // an invalid sequence split by it
        case 4: return pad + [0xF0, 0x9F, 0x9A, 0x80]                // a four-byte sequence split by it
        case 5: return pad + [0, 0x61]                               // a NUL on it
        case 6: return pad + [10]                                    // an empty line right after it
        case 7: return pad + [10, 13]                                // a CR-only line right after it
        default: return pad + [UInt8](repeating: 0x79, count: 70_000) // an over-long line across it
        }
    }

    /// Lone continuation bytes, an over-long form, a surrogate, beyond U+10FFFF, a cut sequence.
    static let invalid: [[UInt8]] = [[0xFF], [0x80, 0x41], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x75, 0xE2, 0x82]]

    static func ordinary(_ index: Int, _ random: UInt64) -> [UInt8] {
        switch index % 40 {
        case 0: return []                                                       // blank
        case 1: return [13]                                                     // CR only
        case 2: return Array("caf\u{E9}-\(random % 1000)".utf8)                 // NFC
        case 3: return Array("cafe\u{301}-\(random % 1000)".utf8)               // NFD
        case 4: return Array("tab\there-\(random % 100)".utf8)
        case 5: return Array("a,\"b\"\\c-\(random % 100)".utf8)
        case 6: return Array("nul\u{0}byte-\(random % 100)".utf8)
        case 7: return Array("ctl\u{1}\u{1F}\u{7F}-\(random % 100)".utf8)
        case 8: return Array("crlf-\(random % 100_000)\r".utf8)
        case 9: return Array("mid\rcr-\(random % 100)".utf8)
        case 10: return invalid[Int(random % UInt64(invalid.count))]
        case 11: return Array("🚀-\u{202E}bidi-\(random % 100)".utf8)
        case 12 where index % 40_000 == 12: return [UInt8](repeating: 0x61, count: UserIDLines.maxLineLength)       // the longest id
        case 13 where index % 40_000 == 13: return [UInt8](repeating: 0x62, count: UserIDLines.maxLineLength + 1)   // one byte too long
        case 14 where index % 40_000 == 14: return [UInt8](repeating: 0x63, count: UserIDLines.maxLineLength) + [13] // the longest, CRLF
        case 15 where index % 200_000 == 15: return [UInt8](repeating: 0x64, count: 1_300_000)                    // longer than a chunk
        case 16: return [UInt8](repeating: 0x6C, count: Int(random % 300) + 100)
        case 17: return [13, 13]
        default:
            return Array("user-\(String(random % 10_000_000))-\(String((random >> 32) % 100_000))".utf8)
        }
    }
}
