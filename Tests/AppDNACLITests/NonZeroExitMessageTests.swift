import Foundation
import XCTest
@testable import AppDNACLI

/// The contract: every non-zero exit prints at least one `appdna: …` line on stderr. Found
/// broken for `queue inspect` on an unreadable Android database (65, the reason only on
/// stdout). This walks failing invocations of every command: generic ones built from the
/// command table (unknown flag, missing operands, a missing file, an empty file, a binary
/// file, a directory as each operand) and the known command-specific failures.
final class NonZeroExitMessageTests: XCTestCase {
    var directory: ScratchDirectory!

    override func setUpWithError() throws { directory = try ScratchDirectory("exit") }
    override func tearDown() { directory.remove() }

    func file(_ name: String, _ bytes: [UInt8]) throws -> String { try directory.file(name, bytes) }

    func assertMessage(_ arguments: [String], environment: [String: String] = [:], stdin: [UInt8]? = nil,
                       expecting status: Int32? = nil, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let result = runCLIBytes(arguments, environment: environment, stdin: stdin)
        if let status { XCTAssertEqual(result.status, status, "appdna \(arguments)\n\(result.stderr)", file: file, line: line) }
        guard result.status != 0 else { return false }
        XCTAssertTrue(result.stderrLines.contains { $0.hasPrefix("appdna: ") },
                      "appdna \(arguments.joined(separator: " ")) exited \(result.status) without an appdna: line on stderr:\n\(result.stderr)",
                      file: file, line: line)
        return true
    }

    func testEveryCommandsFailuresSayWhyOnStderr() throws {
        let missing = directory.url.appendingPathComponent("missing/none.json").path
        let empty = try file("empty.json", [])
        let binary = try file("binary.db", [0x53, 0x51, 0x4C, 0xFF, 0x00, 0xFE] + [UInt8](repeating: 0x5A, count: 4096))
        // An API that refuses connections (port 1 on loopback) so network commands fail fast.
        let offline = ["APPDNA_API_URL": "http://127.0.0.1:1", "APPDNA_SDK_KEY": "adn_live_0123456789abcdef3f9a"]
        var failures = 0
        for command in CommandTable.appdna.commands {
            let path = command.path
            failures += assertMessage(path + ["--no-such-flag"]) ? 1 : 0
            failures += assertMessage(path) ? 1 : 0
            let count = max(command.operands.count, 1)
            for value in [missing, empty, binary, directory.path] {
                for index in 0..<count {
                    var operands = command.operands.map { _ in empty }
                    if operands.isEmpty { operands = [empty] }
                    operands[index] = value
                    failures += assertMessage(path + operands + ["--retries", "0"], environment: offline) ? 1 : 0
                    failures += assertMessage(path + operands, environment: offline) ? 1 : 0
                    failures += assertMessage(path + operands + ["--quiet"], environment: offline) ? 1 : 0
                }
            }
        }
        XCTAssertGreaterThan(failures, 60, "the walk exercises failures")
    }

    func testKnownCommandSpecificFailuresSayWhyOnStderr() throws {
        let bundleA = try file("a.json", Array(#"{"bundle_version": 1, "experiments": {}}"#.utf8))
        let bundleB = try file("b.json", Array(#"{"bundle_version": 2, "experiments": {}, "remote_config": {"x": 1}}"#.utf8))
        let invalid = try file("invalid.json", Array(#"{"bundle_version": -1}"#.utf8))
        let damaged = try file("appdna_events.db", Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0x5A, count: 8192))
        let body = try file("body.json", Array(#"{"type": "x"}"#.utf8))
        let secret = ["APPDNA_WEBHOOK_SECRET": "whsec_test"]

        _ = assertMessage(["queue", "inspect", damaged], expecting: 65)
        _ = assertMessage(["queue", "inspect", damaged, "--json"], expecting: 65)
        _ = assertMessage(["queue", "inspect", damaged, "--events"], expecting: 65)
        _ = assertMessage(["bundle", "validate", invalid], expecting: 1)
        _ = assertMessage(["bundle", "validate", invalid, "--quiet"], expecting: 1)
        _ = assertMessage(["bundle", "validate", invalid, "--format", "json"], expecting: 1)
        _ = assertMessage(["bundle", "validate", invalid, "--format", "github", "--quiet"], expecting: 1)
        _ = assertMessage(["bundle", "diff", bundleA, bundleB], expecting: 1)
        _ = assertMessage(["bundle", "diff", bundleA, bundleB, "--format", "patch"], expecting: 1)
        _ = assertMessage(["bundle", "diff", bundleA, bundleB, "--stat"], expecting: 1)
        _ = assertMessage(["bundle", "diff", bundleA, bundleB, "--quiet"], expecting: 1)
        _ = assertMessage(["webhook", "verify", body, "--header", "X-AppDNA-Signature: sha256=" + String(repeating: "0", count: 64)],
                          environment: secret, expecting: 1)
        _ = assertMessage(["webhook", "verify", body, "--header", "X-AppDNA-Signature: nonsense"], environment: secret)
        _ = assertMessage(["bucket", "-", "exp", "salt"], stdin: [0xFF, 0x0A], expecting: 65)
        _ = assertMessage(["bucket", "--find", "b", "--variants", "a=1,b=0", "exp", "salt"])
        _ = assertMessage(["bucket", "--find", "b", "--variants", "a=0.9999,b=0.0001", "--count", "1000000", "exp", "salt"])
        _ = assertMessage(["bundle", "fetch", "-o", directory.url.appendingPathComponent("out.json").path, "--retries", "0"],
                          environment: ["APPDNA_API_URL": "http://127.0.0.1:1", "APPDNA_SDK_KEY": "adn_live_0123456789abcdef3f9a"])
        _ = assertMessage(["bundle", "fetch"])
    }
}
