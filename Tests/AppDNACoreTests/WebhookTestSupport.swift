import Foundation
import XCTest
@testable import AppDNACore
import TestSupport

/// Shared by the SHA-256, HMAC and webhook tests: fixture loading, a seeded generator and
/// an independent reference implementation (python3's hashlib/hmac) run as a subprocess.
enum TestSupport {
    /// `Tests/AppDNACoreTests/Fixtures`, found relative to this source file.
    static let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent(name))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func bytes(hex: String) -> [UInt8] {
        try! Hex.decode(hex)
    }

    /// A fresh temporary directory, removed at the end of the test.
    static func temporaryDirectory(_ test: XCTestCase) throws -> URL {
        let directory = try ScratchDirectory("hash")
        test.addTeardownBlock { directory.remove() }
        return directory.url
    }

    /// Runs python3 over a list of (data file, optional key file) pairs and returns one
    /// lower-case hex digest per pair: SHA-256 when there is no key, HMAC-SHA256 otherwise
    /// (or `algorithm` instead of sha256). Keys go through files, never argv.
    static func pythonReference(_ cases: [(data: URL, key: URL?)], algorithm: String = "sha256") throws -> [String] {
        let script = """
        import hashlib, hmac, sys
        alg = sys.argv[1]
        for line in sys.stdin:
            parts = line.rstrip("\\n").split("\\t")
            data = open(parts[0], "rb").read()
            if len(parts) > 1:
                key = open(parts[1], "rb").read()
                print(hmac.new(key, data, alg).hexdigest())
            else:
                print(hashlib.new(alg, data).hexdigest())
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try requireTool("python3", because: "the independent hashlib/hmac reference"))
        process.arguments = ["-c", script, algorithm]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let list = cases.map { [$0.data.path, $0.key?.path].compactMap { $0 }.joined(separator: "\t") }.joined(separator: "\n") + "\n"
        input.fileHandleForWriting.write(Data(list.utf8))
        try input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("the python3 reference failed with status \(process.terminationStatus)") }
        return String(decoding: result, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
