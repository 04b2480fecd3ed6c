import Foundation
import XCTest
import LoopbackHTTPServer

/// `queue replay` at the edges of issue 9: a gigabyte answer, private state with the key
/// redacted, SIGINT/SIGTERM, and --verbose retry notes from many workers at once.
extension QueueReplayEndToEndTests {
    /// Starts the binary and returns at once; stderr goes to a file read by `finish`.
    final class Running {
        let process = Process()
        let stderrPath = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-stderr-\(UUID().uuidString)").path

        init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: stderrPath)
            try process.run()
        }

        func finish() -> (status: Int32, stderr: String) {
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(atPath: stderrPath) }
            return (process.terminationStatus, (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
        }
    }

    func replayArguments(_ extra: [String]) -> [String] {
        ["queue", "replay", queuePath, "--now", String(Self.now), "--yes"] + extra
    }

    /// A 200 with a 1 GiB body once cost up to 512 MiB per request in flight; now 4 KiB are
    /// kept and the rest is dropped as it arrives. Peak RSS measured by /usr/bin/time.
    func testGigabyteAnswerIsDroppedAsItArrives() throws {
        let time = try Binary.gnuTime()
        try writeQueue(Self.queue(1...2))
        let server = try IngestServer(key: Self.key) { _, _ in
            var reply = LoopbackHTTPServer.Reply(status: 200)
            reply.streamedBodyBytes = 1 << 30
            return reply
        }
        let run = try Running(time, ["-f", "peak-rss-kb=%M", Binary.url.path] + replayArguments(["--timeout", "120"]),
                              environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL])
        let (status, stderr) = run.finish()
        XCTAssertEqual(status, 0, stderr)
        XCTAssertEqual(server.receivedIDs.count, 2)
        let line = try XCTUnwrap(stderr.split(separator: "\n").last { $0.hasPrefix("peak-rss-kb=") }, stderr)
        let kilobytes = try XCTUnwrap(Int(line.dropFirst("peak-rss-kb=".count)))
        XCTAssertLessThan(kilobytes, 64 * 1024, "peak RSS \(kilobytes) kB")
    }

    /// With umask 022 the state was 0755/0644 and a gateway echoing x-api-key put the key into
    /// the dead-letter file.
    func testStateIsPrivateAndTheKeyIsRedactedFromDeadLetters() throws {
        try writeQueue(Self.queue(1...3))
        let server = try IngestServer(key: Self.key) { _, _ in
            LoopbackHTTPServer.Reply(status: 400, json: #"{"error":"rejected","echo":{"x-api-key":"\#(Self.key)"}}"#)
        }
        let command = "umask 022; exec \"$0\" \"$@\""
        let run = try Running("/bin/sh", ["-c", command, Binary.url.path] + replayArguments([]),
                              environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL])
        let (status, stderr) = run.finish()
        XCTAssertEqual(status, 1, stderr)
        func mode(_ path: String) throws -> Int {
            try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int)
        }
        XCTAssertEqual(try mode(stateDir), 0o700)
        for name in ["journal", "lock", "dead-letter.ndjson"] {
            XCTAssertEqual(try mode(stateDir + "/" + name), 0o600, name)
        }
        let letters = try String(contentsOfFile: stateDir + "/dead-letter.ndjson", encoding: .utf8)
        XCTAssertFalse(letters.contains(Self.key), "the key is in the dead-letter file")
        XCTAssertFalse(letters.contains(String(Self.key.dropFirst(9).prefix(12))), "part of the key is in the dead-letter file")
        XCTAssertTrue(letters.contains("adn_live_…3f9a"), letters)
    }

    /// Ctrl-C or SIGTERM mid-run: a last line says what was delivered and that a re-run
    /// resumes; 130 / 143; the re-run sends the rest.
    func testInterruptedReplaySaysWhatWasDeliveredAndResumes() throws {
        try writeQueue(Self.queue(1...40))
        for (signal, expected) in [(SIGTERM, Int32(143)), (SIGINT, Int32(130))] {
            try? FileManager.default.removeItem(atPath: stateDir)
            let server = try IngestServer(key: Self.key) { _, _ in
                var reply = LoopbackHTTPServer.Reply(status: 200, json: "{}")
                reply.delay = 0.1
                return reply
            }
            let run = try Running(Binary.url.path, replayArguments(["--batch-size", "1", "--retries", "0"]),
                                  environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL])
            for _ in 0..<500 where server.received.count < 3 { usleep(10_000) }
            kill(run.process.processIdentifier, signal)
            let (status, stderr) = run.finish()
            XCTAssertEqual(status, expected, stderr)
            let last = String(stderr.split(separator: "\n").last ?? "")
            XCTAssertTrue(last.hasPrefix("appdna: interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM"): "), stderr)
            XCTAssertTrue(last.contains(" of 40 events delivered"), last)
            XCTAssertTrue(last.hasSuffix("run the same command again to resume"), last)
            XCTAssertLessThan(server.received.count, 40, "stopped early")

            let resumed = try replay(server, ["--yes"])
            XCTAssertEqual(resumed.status, 0, resumed.stderr)
            XCTAssertEqual(Set(server.receivedIDs), Set((1...40).map(Self.id)))
        }
    }

    /// The scenario the TSan script runs: --verbose retry notes from 4, 8 and 16 workers with
    /// faults injected. Every line arrives whole; under `--sanitize=thread` no report appears.
    func testVerboseRetriesFromManyWorkersAreWholeLines() throws {
        try writeQueue(Self.queue(1...120))
        for concurrency in [4, 8, 16] {
            try? FileManager.default.removeItem(atPath: stateDir)
            let server = try IngestServer(key: Self.key) { index, _ in
                // Retry-After: 0 keeps the test fast; one dropped connection backs off.
                if index == 5 { var reply = LoopbackHTTPServer.Reply(); reply.closeWithoutAnswer = true; return reply }
                switch index % 3 {
                case 1: return LoopbackHTTPServer.Reply(status: 503, headers: [("Retry-After", "0")])
                case 2: return LoopbackHTTPServer.Reply(status: 429, headers: [("Retry-After", "0")])
                default: return LoopbackHTTPServer.Reply(status: 200, json: "{}")
                }
            }
            let result = try replay(server, ["--yes", "--verbose", "--batch-size", "2", "--concurrency", String(concurrency), "--retries", "30"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(Set(server.receivedIDs).count, 120)
            XCTAssertFalse(result.stderr.contains("ThreadSanitizer"), result.stderr)
            let notes = result.stderr.split(separator: "\n").filter { $0.contains("retrying in") }
            XCTAssertGreaterThan(notes.count, 0)
            for note in notes {
                XCTAssertTrue(note.hasPrefix("attempt ") || note.hasPrefix("\u{1B}[2mattempt "), String(note))
                XCTAssertEqual(note.components(separatedBy: "retrying in").count, 2, "one note per line: \(note)")
            }
        }
    }
}
