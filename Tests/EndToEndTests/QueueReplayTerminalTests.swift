import Foundation
import XCTest
import TestSupport
import LoopbackHTTPServer

/// On a terminal, replay asks before sending and draws a progress bar. `script` (util-linux)
/// gives the binary a pseudo-terminal; the answer is typed into it.
extension QueueReplayEndToEndTests {
    func replayOnTerminal(_ server: IngestServer, answer: String) throws -> (status: Int32, screen: String) {
        let script = "/usr/bin/script"
        #if os(macOS)
        throw XCTSkip("needs util-linux script(1) (-q -c COMMAND); macOS's is BSD's (run on the Linux runners)")
        #endif
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw missing("script (util-linux)", because: "it gives the binary a pseudo-terminal")
        }
        let command = [Binary.url.path, "queue", "replay", queuePath, "--now", String(Self.now)]
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = ["PATH": "/usr/bin:/bin", "APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL, "TERM": "xterm"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data((answer + "\n").utf8))
        let screen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        XCTAssertFalse(screen.contains(Self.key), "the key is on the terminal")
        return (process.terminationStatus, screen)
    }

    func testOnATerminalReplayAsksAndNoSendsNothing() throws {
        try writeQueue(Self.queue(1...5))
        let server = try IngestServer(key: Self.key)
        let refused = try replayOnTerminal(server, answer: "n")
        XCTAssertTrue(refused.screen.contains("Send 5 events in 1 batch"), refused.screen)
        XCTAssertTrue(refused.screen.contains("[y/N]"), refused.screen)
        XCTAssertTrue(refused.screen.contains("nothing sent"), refused.screen)
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(server.received.count, 0)
    }

    func testOnATerminalYesSendsWithAProgressBar() throws {
        try writeQueue(Self.queue(1...45))
        let server = try IngestServer(key: Self.key)
        let accepted = try replayOnTerminal(server, answer: "y")
        XCTAssertEqual(accepted.status, 0, accepted.screen)
        XCTAssertEqual(server.receivedIDs.count, 45)
        XCTAssertTrue(accepted.screen.contains("45/45 events"), "progress bar: \(accepted.screen)")
        XCTAssertTrue(accepted.screen.contains("\r\u{1B}[K"), "the bar is cleared at the end")
    }
}
