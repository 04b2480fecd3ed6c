import Foundation
import TestSupport
import XCTest

/// `webhook verify` given a pipe, a FIFO or a device where a file is expected: the body of a
/// pipe is hashed whole (never drained by a look at it first), and a record file that is not a
/// regular file is refused instead of read forever. Run through bash (process substitution,
/// `timeout` so that a regression that blocks cannot hang the suite).
final class WebhookVerifyInputKindsEndToEndTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-verify-kinds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// Runs `script` with bash in the scratch directory, `$APPDNA` the built binary.
    func shell(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = scratch
        process.environment = ["PATH": "/usr/bin:/bin", "APPDNA": Binary.url.path]
        let out = scratch.appendingPathComponent("out-\(UUID().uuidString)"), err = scratch.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    func writeBodyAndSecret() throws {
        try Data(#"{"id":"evt_1","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}"#.utf8)
            .write(to: scratch.appendingPathComponent("d1.json"))
        try Data("whsec_kinds_secret\n".utf8).write(to: scratch.appendingPathComponent("s.txt"))
    }

    /// Fix 1: a body from a pipe (`<(cat d1.json)`) is verified over its exact bytes.
    func testABodyFromAPipeIsHashedWhole() throws {
        try writeBodyAndSecret()
        let run = try shell(#"""
        sig=$("$APPDNA" webhook sign d1.json --secret-file s.txt) || exit 90
        timeout 60 "$APPDNA" webhook verify <(cat d1.json) --signature "$sig" --secret-file s.txt
        """#)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("valid"), run.stdout)
    }

    /// Fix 3: `--recorded` refuses a device and a FIFO (66) before reading either.
    func testARecordedFileThatIsNotARegularFileIsRefused() throws {
        try writeBodyAndSecret()
        for target in ["/dev/zero", "fifo"] {
            let run = try shell("""
            rm -f fifo; mkfifo fifo || exit 90
            ulimit -v 4000000
            timeout 60 "$APPDNA" webhook verify --recorded \(target) --secret-file s.txt
            """)
            XCTAssertEqual(run.status, 66, "\(target): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("not a webhook listen --record file"), run.stderr)
        }
        let stdin = try shell(#"timeout 60 "$APPDNA" webhook verify --recorded - --secret-file s.txt < /dev/zero"#)
        XCTAssertEqual(stdin.status, 66, stdin.stderr)
        XCTAssertTrue(stdin.stderr.contains("standard input is a character device"), stdin.stderr)
    }
}
