import Foundation
import XCTest
import LoopbackHTTPServer

/// Kills `appdna queue replay` with SIGKILL at random moments and resumes it: nothing is lost,
/// nothing is dead-lettered that the server did not refuse with a 4xx, the queue file is
/// unchanged, and the events sent twice are bounded by the batches in flight at each kill.
final class QueueReplayCrashTests: XCTestCase {
    func testKillMinus9AtRandomMomentsLosesNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = directory.appendingPathComponent("pending_events.json").path
        let count = 5000, batchSize = 20, concurrency = 4
        let lines = (1...count).map { QueueReplayEndToEndTests.event($0, name: $0 % 7 == 0 ? "purchase_completed" : "app_open") }
        // A tombstone and a cut-off last line, as on a device.
        let text = lines.joined(separator: "\n") + "\n" + #"{"appdna_removed":["\#(QueueReplayEndToEndTests.id(3))"]}"# + "\n{\"event_id\":\"cut"
        try Data(text.utf8).write(to: URL(fileURLWithPath: queue))
        let original = try Data(contentsOf: URL(fileURLWithPath: queue))
        let live = Set((1...count).filter { $0 != 3 }.map(QueueReplayEndToEndTests.id))
        // The server refuses any batch holding one of these with 400.
        let poison = Set([100, 2500, 4999].map(QueueReplayEndToEndTests.id))
        let server = try IngestServer(key: QueueReplayEndToEndTests.key) { _, ids in
            var reply = ids.contains(where: poison.contains) ? LoopbackHTTPServer.Reply(status: 400, json: "{\"error\":\"rejected\"}")
                                                           : LoopbackHTTPServer.Reply(status: 200, json: "{}")
            reply.delay = 0.05
            return reply
        }
        let environment = ["PATH": "/usr/bin:/bin", "APPDNA_SDK_KEY": QueueReplayEndToEndTests.key, "APPDNA_API_URL": server.baseURL]
        let arguments = ["queue", "replay", queue, "--yes", "--now", String(QueueReplayEndToEndTests.now),
                         "--batch-size", String(batchSize), "--concurrency", String(concurrency)]

        var generator = SystemRandomNumberGenerator()
        var kills = 0, runs = 0, midSend = 0
        while kills < 25 && runs < 200 {
            runs += 1
            let process = Process()
            process.executableURL = Binary.url
            process.arguments = arguments
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let sentBefore = server.received.count
            try process.run()
            if runs % 4 == 0 {
                // Any moment: start-up, planning, journal replay, sending.
                usleep(UInt32.random(in: 1_000...300_000, using: &generator))
            } else {
                // While batches are in flight: once the server has answered this run, then a bit.
                let giveUp = Date().addingTimeInterval(10)
                while process.isRunning && server.received.count == sentBefore && Date() < giveUp { usleep(2_000) }
                usleep(UInt32.random(in: 0...100_000, using: &generator))
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
                if server.received.count > sentBefore { midSend += 1 }
            }
            process.waitUntilExit()
            if process.terminationReason == .exit { break }   // finished before the kill
        }
        XCTAssertGreaterThanOrEqual(kills, 20, "the replay finished before 20 kills")
        XCTAssertGreaterThanOrEqual(midSend, 15, "too few kills landed while sending")

        // Run to completion.
        let final = try Binary.run(arguments + ["--json"], environment: environment)
        XCTAssertEqual(final.status, 1, final.stderr)   // 1: the poisoned batches are dead-lettered
        let result = try XCTUnwrap((try JSONSerialization.jsonObject(with: final.stdout) as? [String: Any])?["result"] as? [String: Any])
        XCTAssertEqual(result["undelivered"] as? Int, 0)
        XCTAssertEqual(server.problems, [])

        // Every live event reached the server at least once; nothing else did.
        let received = server.receivedIDs
        XCTAssertEqual(Set(received), live)
        // Dead letters: only events the server refused with a 4xx.
        let refused = Set(server.received.filter { (400...499).contains($0.reply.status) }.flatMap(\.eventIDs))
        let letters = try String(contentsOfFile: queue + ".appdna-replay/dead-letter.ndjson", encoding: .utf8)
            .split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let dead = Set(letters.compactMap { $0["event_id"] as? String })
        XCTAssertFalse(dead.isEmpty)
        XCTAssertTrue(dead.isSubset(of: refused), "dead-lettered without a 4xx: \(dead.subtracting(refused).sorted().prefix(5))")
        XCTAssertTrue(poison.isSubset(of: dead))
        // Delivered ones (2xx) are never dead-lettered.
        let accepted = Set(server.received.filter { (200...299).contains($0.reply.status) }.flatMap(\.eventIDs))
        XCTAssertTrue(accepted.isDisjoint(with: dead))
        XCTAssertEqual(accepted.union(dead), live)
        // Duplicates: at most the batches in flight at each kill (concurrency × batch size).
        let duplicates = received.count - Set(received).count
        let bound = kills * concurrency * batchSize
        XCTAssertLessThanOrEqual(duplicates, bound, "\(duplicates) events sent again after \(kills) kills")
        print("crash test: \(runs) runs, \(kills) kills (\(midSend) while sending), \(received.count) events received, \(duplicates) sent again (bound \(bound)), \(dead.count) dead-lettered")
        // The queue file is byte for byte what it was.
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: queue)), original)
    }
}
