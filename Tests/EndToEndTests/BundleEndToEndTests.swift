import Foundation
import XCTest

final class BundleValidateEndToEndTests: XCTestCase {
    /// Streams `megabytes` of blank 80-column lines into `appdna bundle validate -` and
    /// returns the result and the child's peak RSS in KiB (ru_maxrss over waited children: an
    /// upper bound, as earlier children count too).
    func streamWhitespace(megabytes: Int) throws -> (status: Int32, stdout: String, maxRSSKiB: Int) {
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = ["bundle", "validate", "-"]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = input.fileHandleForWriting
        let writer = Thread {
            var line = Data(repeating: 0x20, count: 79)
            line.append(0x0A)
            var chunk = Data()
            for _ in 0..<13107 { chunk.append(line) }
            for _ in 0..<megabytes { handle.write(chunk) }
            try? handle.close()
        }
        writer.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        #else
        getrusage(RUSAGE_CHILDREN, &usage)
        #endif
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), usage.ru_maxrss)
    }

    func test200MBOfWhitespaceOnStdinIsAFindingInBoundedMemory() throws {
        let result = try streamWhitespace(megabytes: 200)
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.stdout, "<stdin>:\(200 * 13107 + 1):1: error: not JSON: empty input: expected a JSON value [E001]\n")
        XCTAssertLessThan(result.maxRSSKiB, 64 * 1024, "peak RSS \(result.maxRSSKiB) KiB for 200 MB of input")
    }

    func testMalformedFilesGiveDocumentedStatuses() throws {
        let cases: [(Data, String)] = [
            (Data("{\"bundle_version\": 1".utf8), "E001"),
            (Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]), "E002"),
            (Data(String(repeating: "[", count: 100_000).utf8), "E001"),
            (Data("{\"a\": 1\u{0}}".utf8), "E001"),
            (Data("{\"bundle_version\": 1e999999}".utf8), "E005"),
        ]
        for (bytes, code) in cases {
            let result = try Binary.run(["bundle", "validate", "-"], stdin: bytes)
            XCTAssertEqual(result.status, 1, code)
            XCTAssertTrue(result.text.hasSuffix("[\(code)]\n"), result.text)
        }
        let missing = try Binary.run(["bundle", "validate", "/nonexistent.json"])
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "appdna: /nonexistent.json: no such file or directory\n")
    }
}
