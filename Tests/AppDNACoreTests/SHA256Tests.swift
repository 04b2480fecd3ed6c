import Foundation
import XCTest
import TestSupport
@testable import AppDNACore

final class SHA256Tests: XCTestCase {
    /// Every NIST and padding-boundary vector in the fixture file.
    func testFixtureVectors() throws {
        let vectors = try XCTUnwrap(try TestSupport.fixture("sha256_hmac.json")["sha256"] as? [[String: Any]])
        XCTAssertEqual(vectors.count, 13)
        for vector in vectors {
            let input: [UInt8]
            if let repeatSpec = vector["input_repeat"] as? [String: Any] {
                let byte = try XCTUnwrap((repeatSpec["byte"] as? String)?.utf8.first)
                input = [UInt8](repeating: byte, count: try XCTUnwrap(repeatSpec["count"] as? Int))
            } else {
                input = Array(try XCTUnwrap(vector["input_utf8"] as? String).utf8)
            }
            let expected = try XCTUnwrap(vector["sha256"] as? String)
            XCTAssertEqual(Hex.encode(SHA256.hash(input)), expected, "length \(input.count)")
            // The same through the streaming interface, one byte at a time for short inputs.
            var hasher = SHA256()
            if input.count <= 256 {
                for byte in input { hasher.update([byte]) }
            } else {
                hasher.update(input)
            }
            XCTAssertEqual(Hex.encode(hasher.finalize()), expected, "streamed, length \(input.count)")
        }
    }

    /// Every length 0…200 (all padding boundaries twice over) against python's hashlib.
    func testAllShortLengthsAgainstPython() throws {
        var generator = SplitMix64(seed: 0x5a5)
        let directory = try TestSupport.temporaryDirectory(self)
        var cases: [(data: URL, key: URL?)] = []
        var inputs: [[UInt8]] = []
        for length in 0...200 {
            let bytes = generator.bytes(length)
            let url = directory.appendingPathComponent("d\(length)")
            try Data(bytes).write(to: url)
            cases.append((url, nil))
            inputs.append(bytes)
        }
        let reference = try TestSupport.pythonReference(cases)
        XCTAssertEqual(reference.count, inputs.count)
        for (input, expected) in zip(inputs, reference) {
            XCTAssertEqual(Hex.encode(SHA256.hash(input)), expected, "length \(input.count)")
        }
    }

    /// Random bodies up to 10 MB against openssl's command line (a second, independent reference).
    func testRandomBodiesAgainstOpenSSL() throws {
        var generator = SplitMix64(seed: 42)
        let openssl = try requireTool("openssl", because: "the independent SHA-256 reference")
        let directory = try TestSupport.temporaryDirectory(self)
        for size in [0, 1, 63, 64, 65, 4095, 65_537, 1_000_003, 10_000_000] {
            let bytes = generator.bytes(size)
            let url = directory.appendingPathComponent("body")
            try Data(bytes).write(to: url)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = ["dgst", "-sha256", "-r", url.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let expected = String(text.prefix(64))
            XCTAssertEqual(Hex.encode(SHA256.hash(bytes)), expected, "size \(size)")
        }
    }

    /// Streaming in awkward chunk sizes equals one-shot, across block boundaries.
    func testStreamingInOddChunksEqualsOneShot() {
        var generator = SplitMix64(seed: 7)
        let input = generator.bytes(100_003)
        let expected = SHA256.hash(input)
        for chunkSizes in [[1], [3], [63], [64], [65], [127, 1, 5], [1000], [7, 64, 129, 1, 0, 4096]] {
            var hasher = SHA256()
            var offset = 0
            var turn = 0
            while offset < input.count {
                let size = min(chunkSizes[turn % chunkSizes.count], input.count - offset)
                input[offset..<offset + size].withUnsafeBytes { hasher.update($0) }
                offset += size
                turn += 1
            }
            XCTAssertEqual(hasher.finalize(), expected, "chunks \(chunkSizes)")
        }
    }

    /// The SHA-NI path (when this CPU has it) and the portable Swift path agree on every length
    /// 0…300 and in odd chunkings; the other tests cover whichever path the CPU selects.
    func testPortableAndHardwarePathsAgree() {
        var generator = SplitMix64(seed: 0x51a)
        let input = generator.bytes(70_000)
        for length in Array(0...300) + [4096, 65_537, 70_000] {
            var portable = SHA256(portableOnly: true)
            var selected = SHA256()
            input[0..<length].withUnsafeBytes { portable.update($0); selected.update($0) }
            XCTAssertEqual(Hex.encode(portable.finalize()), Hex.encode(selected.finalize()), "length \(length)")
        }
        // The portable path against a NIST vector, in case both paths were wrong the same way.
        var portable = SHA256(portableOnly: true)
        portable.update(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
        XCTAssertEqual(Hex.encode(portable.finalize()), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        print("SHA-256 hardware acceleration in use: \(SHA256.usesHardwareAcceleration)")
    }

    func testNonContiguousCollectionAndStrings() {
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        XCTAssertEqual(Hex.encode(SHA256.hash(utf8: "abc")), expected)
        XCTAssertEqual(Hex.encode(SHA256.hash("abc".utf8)), expected)
        XCTAssertEqual(Hex.encode(SHA256.hash(AnyCollection(Array("abc".utf8)))), expected)
    }

    /// SHA-1 exists only for the explainer, but a wrong SHA-1 would make it name wrong causes.
    func testSHA1AgainstPython() throws {
        XCTAssertEqual(Hex.encode(SHA1.hash(utf8: "abc")), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(Hex.encode(SHA1.hash(utf8: "")), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        var generator = SplitMix64(seed: 11)
        let directory = try TestSupport.temporaryDirectory(self)
        var cases: [(data: URL, key: URL?)] = []
        var inputs: [[UInt8]] = []
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 100_000] {
            let bytes = generator.bytes(length)
            let url = directory.appendingPathComponent("s\(length)")
            try Data(bytes).write(to: url)
            cases.append((url, nil))
            inputs.append(bytes)
        }
        let reference = try TestSupport.pythonReference(cases, algorithm: "sha1")
        for (input, expected) in zip(inputs, reference) {
            XCTAssertEqual(Hex.encode(SHA1.hash(input)), expected, "length \(input.count)")
        }
    }
}
