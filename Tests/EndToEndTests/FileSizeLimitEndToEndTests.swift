import Foundation
import TestSupport
import XCTest

/// The servers under a file size limit (`ulimit -f`, issue 49): a write past it is an EFBIG
/// (SIGXFSZ is ignored, as SIGPIPE is), never a signal that kills the server. The request whose
/// write failed is answered 500 and changes nothing: `api serve --state` keeps the file it had
/// (no temporary file left beside it) and serves the bundle it served; a record file
/// (`api serve --record`, `webhook listen --record`) keeps whole lines only. The server goes on
/// serving.
final class FileSizeLimitEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!
    var processes: [Process] = []

    /// `ulimit -f` in the shell's blocks (512 bytes in POSIX sh, 1024 in bash): 8 or 16 KB, far
    /// above what the small requests write and far below what the large ones do.
    static let fileSizeBlocks = 16
    /// A value larger than the limit in either unit, and within the inspector's 64 KiB body limit.
    static let large = String(repeating: "x", count: 40_000)

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("file-size-limit")
        _ = try requireTool("curl", because: "the servers are driven with curl")
        addTeardownBlock { [self] in
            for process in processes where process.isRunning { process.terminate(); process.waitUntilExit() }
            scratch?.remove()
        }
    }

    /// Starts `appdna ARGUMENTS --port 0 --inspect 0` under `ulimit -f`, and waits for its ports.
    func start(_ arguments: [String]) throws -> (process: Process, listener: String, inspector: String, stderr: String) {
        let name = UUID().uuidString
        let stdoutPath = scratch.path + "/server-\(name).out", stderrPath = scratch.path + "/server-\(name).err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -f \(Self.fileSizeBlocks) && exec \"$0\" \"$@\"", Binary.url.path] + arguments + ["--port", "0", "--inspect", "0"]
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.currentDirectoryURL = scratch.url
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        processes.append(process)
        let started = Date()
        while Date().timeIntervalSince(started) < 20 && process.isRunning {
            if let ports = InspectedProcess.ports(in: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "") {
                return (process, "http://127.0.0.1:\(ports.listener)", "http://127.0.0.1:\(ports.inspector)", stderrPath)
            }
            usleep(20_000)
        }
        throw TestFailure("the server did not start: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
    }

    func contents(_ path: String) -> Data { (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }

    /// Files a replacement left behind (`.NAME.appdna-PID-N.tmp`).
    var temporaryFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).filter { $0.hasSuffix(".tmp") }
    }

    func testAPIServeAnswers500AndKeepsItsStateAndRecordPastTheFileSizeLimit() throws {
        let source = try scratch.file("bundle.json", Array(#"{"bundle_version": 7, "experiments": {"experiments": {}}, "remote_config": {}, "feature_flags": {"new_paywall": false, "welcome_message": "Hello"}}"#.utf8))
        let state = scratch.path + "/overrides.json", record = scratch.path + "/events.ndjson"
        let server = try start(["api", "serve", "--bundle", source, "--state", state, "--record", record])
        let token = try inspectorToken(server.inspector, in: scratch.url)
        func put(_ path: String, _ body: String) throws -> CurlExchange {
            try curl(server.inspector + path, ["-X", "PUT", "-H", "Content-Type: application/json", "-H", "X-AppDNA-Inspector-Token: \(token)",
                                               "--data-binary", body], in: scratch.url)
        }
        func version() throws -> Int? {
            try curl(server.listener + "/api/v1/sdk/config-bundle/version", ["-H", "x-api-key: adn_test_k"], in: scratch.url).json["bundle_version"] as? Int
        }

        let small = try put("/api/overrides/flag/new_paywall", #"{"value": true}"#)
        XCTAssertEqual(small.status, 200, small.text)
        let kept = contents(state)
        XCTAssertFalse(kept.isEmpty)
        let served = try version()
        XCTAssertEqual(served, 8)

        // The state file would grow past the limit: 500, nothing changed, nothing left behind.
        let large = try put("/api/overrides/config/welcome_message", #"{"value": "\#(Self.large)"}"#)
        XCTAssertEqual(large.status, 500, "a state file that cannot be written is the server's failure: \(large.text)")
        XCTAssertTrue(server.process.isRunning, "SIGXFSZ must not end the server")
        XCTAssertEqual(contents(state), kept, "the state file is as it was")
        XCTAssertEqual(temporaryFiles, [], "no temporary file is left")
        XCTAssertEqual(try version(), served, "the bundle served is the one before the failed change")

        // The record file: a small batch is kept, a large one is refused whole.
        func ingest(_ events: [String]) throws -> CurlExchange {
            try curl(server.listener + "/api/v1/ingest/events", ["-X", "POST", "-H", "x-api-key: adn_test_k", "-H", "Content-Type: application/json",
                                                                  "--data-binary", #"{"batch":[\#(events.joined(separator: ","))]}"#], in: scratch.url)
        }
        XCTAssertEqual(try ingest([TestEvents.stored(1, ts: 1_771_400_000_000)]).status, 200)
        let recorded = contents(record)
        XCTAssertFalse(recorded.isEmpty)
        let refused = try ingest([TestEvents.stored(2, ts: 1_771_400_000_000, properties: #"{"big": "\#(Self.large)"}"#)])
        XCTAssertEqual(refused.status, 500, refused.text)
        XCTAssertTrue(server.process.isRunning)
        XCTAssertEqual(contents(record), recorded, "no part of the refused batch is in the record file")

        // Still serving: the event refused is accepted once it fits, the next change is saved.
        XCTAssertEqual(try ingest([TestEvents.stored(2, ts: 1_771_400_000_000)]).json["accepted"] as? Int, 1)
        XCTAssertEqual(try put("/api/overrides/config/welcome_message", #"{"value": "Hi"}"#).status, 200)
        XCTAssertEqual(try version(), 9)
        XCTAssertNotEqual(contents(state), kept)
        XCTAssertEqual(temporaryFiles, [])
    }

    func testWebhookListenAnswers500AndKeepsWholeRecordLinesPastTheFileSizeLimit() throws {
        let secret = try scratch.file("secret.txt", Array("whsec_file_size_limit_0123456789\n".utf8))
        let record = scratch.path + "/deliveries.ndjson"
        let server = try start(["webhook", "listen", "--secret-file", secret, "--record", record])
        func deliver(_ body: String) throws -> CurlExchange {
            // Unsigned: answered 401, and recorded all the same (as invalid).
            try curl(server.listener + "/hooks", ["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", body], in: scratch.url)
        }
        XCTAssertEqual(try deliver(#"{"id": "evt_1"}"#).status, 401)
        let recorded = contents(record)
        XCTAssertFalse(recorded.isEmpty)

        let large = try deliver(#"{"id": "evt_2", "data": "\#(Self.large)"}"#)
        XCTAssertEqual(large.status, 500, "not acknowledged, so that the sender delivers it again: \(large.text)")
        XCTAssertTrue(server.process.isRunning, "SIGXFSZ must not end the listener")
        XCTAssertEqual(contents(record), recorded, "the record file holds whole lines only")

        XCTAssertEqual(try deliver(#"{"id": "evt_3"}"#).status, 401)
        let after = contents(record)
        XCTAssertTrue(after.starts(with: recorded) && after.count > recorded.count)
        XCTAssertEqual(after.split(separator: 0x0A).count, 2, "two whole lines")
        XCTAssertEqual(temporaryFiles, [])
    }
}
