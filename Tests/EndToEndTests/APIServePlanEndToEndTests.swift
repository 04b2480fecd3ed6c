import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// Issue 54.1: `api serve` refuses a command line from its plan, before it acts: no state file,
/// no lock, no discovery file, and no port bound. The port it asks for is held by a listener of
/// the test, so a start that bound before refusing would say the port is in use (69) instead of
/// the usage error (64).
final class APIServePlanEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("api-serve-plan")
        addTeardownBlock { [scratch] in scratch?.remove() }
    }

    /// Runs the binary, stopped (and failed) if it has not ended within 20 s: a start that went
    /// on to serve would otherwise never end.
    func runBounded(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let errorPath = scratch.url.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: errorPath)
        defer { try? errorHandle.close() }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errorHandle
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        if ended.wait(timeout: .now() + 20) == .timedOut {
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            XCTFail("\(arguments) started serving instead of refusing its command line")
        }
        return (process.terminationStatus, (try? String(contentsOf: errorPath, encoding: .utf8)) ?? "")
    }

    func testARefusedCommandLineLeavesNothingBehindAndBindsNothing() throws {
        let bundle = try scratch.file("bundle.json", Array(DevServerEndToEndTests.source.utf8))
        let state = scratch.path + "/appdna-overrides.json"
        let runtime = scratch.path + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        let taken = try LoopbackHTTPServer { _, _ in .init(status: 404) }
        defer { taken.stop() }
        let inspectorTaken = try LoopbackHTTPServer { _, _ in .init(status: 404) }
        defer { inspectorTaken.stop() }
        let lines: [(arguments: [String], words: String)] = [
            (["--override", "experiment:other=x", "--fail", "bogus"], "--fail takes STATUS or STATUS:COUNT"),
            (["--override", "experiment:other=x", "--inspect-keep", "5"], "--inspect-keep goes with --inspect PORT"),
            (["--inspect-max-bytes", "2MiB", "--record", scratch.path + "/events.ndjson"], "--inspect-max-bytes goes with --inspect PORT"),
            (["--override", "experiment:other=nope", "--inspect", String(inspectorTaken.port)], "no variant 'nope'"),
            (["--refetch", "1m"], "--refetch goes with --bundle @remote"),
        ]
        for (arguments, words) in lines {
            let result = try runBounded(["api", "serve", "--bundle", bundle, "--port", String(taken.port), "--state", state] + arguments,
                                        environment: ["XDG_RUNTIME_DIR": runtime])
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(words), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("in use"), "\(arguments) bound a port before refusing: \(result.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { !$0.hasPrefix("stderr-") }.sorted(),
                           ["bundle.json", "runtime"], "\(arguments) left a file (state, lock, record) behind")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: runtime), [], "\(arguments) left a discovery file behind")
        }
    }
}
