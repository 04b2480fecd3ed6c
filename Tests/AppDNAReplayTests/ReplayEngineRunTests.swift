import Foundation
import XCTest
import AppDNACore
import TestSupport
import AppDNANet
import AppDNAReplay

/// The run as a whole, in-process: interruption and resuming from the journal, requests in
/// flight at once, --rate pacing on the virtual clock, the state directory's lock, progress.
final class ReplayEngineRunTests: XCTestCase {
    var harness: ReplayHarness!

    override func setUpWithError() throws { harness = try ReplayHarness() }
    override func tearDown() { harness.cleanUp() }

    /// Set by the test, read by the engine as it would read SIGINT/SIGTERM.
    final class Signal: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int32 = 0
        func raise(_ signal: Int32) { lock.lock(); value = signal; lock.unlock() }
        var current: Int32 { lock.lock(); defer { lock.unlock() }; return value }
    }

    func testInterruptStopsTheSendingAndAReRunResumesFromTheJournal() throws {
        try harness.writeQueue(1...40)
        let signal = Signal()
        let server = harness.transport { index, _ in
            if index == 2 { signal.raise(SIGINT) }
            return .answer(200)
        }
        let (plan, outcome) = try harness.replay(server, retries: 0, settings: { $0.batchSize = 1 }, interruption: { signal.current })
        XCTAssertEqual(outcome.interruptedBy, SIGINT)
        XCTAssertEqual(plan.toSend, 40)
        XCTAssertEqual(outcome.delivered, 3, "the batch in flight is answered, no other starts")
        XCTAssertEqual(server.received.count, 3)

        let ok = harness.transport()
        let resumed = try harness.replay(ok)
        XCTAssertEqual(resumed.outcome.interruptedBy, 0)
        XCTAssertEqual(resumed.plan.skipped[.delivered], 3)
        XCTAssertEqual(resumed.outcome.delivered, 37)
        XCTAssertEqual(Set(server.receivedIDs + ok.receivedIDs), Set((1...40).map(ReplayHarness.id)))
    }

    /// Four workers really have four requests in flight: the first four answers wait until all
    /// four arrived (a run with fewer workers would fail here after 20 s, not hang).
    func testConcurrencyKeepsFourRequestsInFlight() throws {
        try harness.writeQueue(1...40)
        let gate = NSCondition()
        nonisolated(unsafe) var arrived = 0
        nonisolated(unsafe) var allFourMet = true
        let server = harness.transport { index, _ in
            guard index < 4 else { return .answer(200) }
            gate.lock()
            arrived += 1
            gate.broadcast()
            let limit = Date().addingTimeInterval(20)
            while arrived < 4 {
                if !gate.wait(until: limit) { allFourMet = false; break }
            }
            gate.unlock()
            return .answer(200)
        }
        let (_, outcome) = try harness.replay(server, settings: { $0.batchSize = 5; $0.concurrency = 4 })
        XCTAssertTrue(allFourMet, "fewer than four requests were in flight at once")
        XCTAssertNil(outcome.stop)
        XCTAssertEqual(outcome.delivered, 40)
        XCTAssertEqual(server.received.count, 8)
        XCTAssertEqual(Set(server.receivedIDs).count, 40)
    }

    func testRateSpacesTheBatchesOnTheClock() throws {
        try harness.writeQueue(1...20)
        let (_, outcome) = try harness.replay(harness.transport(), settings: { $0.batchSize = 5; $0.rate = 40 })
        XCTAssertEqual(outcome.delivered, 20)
        // 5 events at 40 a second: each batch after the first waits an eighth of a second.
        XCTAssertEqual(harness.clock.sleeps, [0.125, 0.125, 0.125])
        XCTAssertEqual(outcome.seconds, 0.375, accuracy: 1e-9)
    }

    func testAnotherReplayHoldingTheLockStopsTheRunBeforeAnyRequest() throws {
        try harness.writeQueue(1...3)
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        let fd = open(harness.stateDirectory + "/lock", O_RDWR | O_CREAT, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        let server = harness.transport()
        XCTAssertThrowsError(try harness.replay(server)) { error in
            XCTAssertEqual((error as? Failure)?.kind, .temporary)
        }
        XCTAssertEqual(server.received.count, 0)
    }

    func testProgressCountsEveryAnsweredEvent() throws {
        try harness.writeQueue(1...10)
        final class Counts: @unchecked Sendable { let lock = NSLock(); var values: [Int] = [] }
        let counts = Counts()
        let poison = ReplayHarness.id(4)
        let server = harness.transport { _, ids in ids.contains(poison) ? .answer(400) : .answer(200) }
        let (_, outcome) = try harness.replay(server, settings: { $0.batchSize = 3 }, onProgress: { done in
            counts.lock.lock(); counts.values.append(done); counts.lock.unlock()
        })
        XCTAssertEqual(outcome.delivered, 7)
        XCTAssertEqual(outcome.deadLettered, 3)
        XCTAssertEqual(counts.values, [3, 6, 9, 10])
    }
}
