import Foundation
import XCTest
import AppDNACore
import TestSupport
import AppDNANet
import AppDNAReplay

/// Every fault the end-to-end replay tests put a real socket through, in-process: the engine
/// over a scripted transport and a virtual clock. Waits are checked by what was asked for
/// (`clock.sleeps`); nothing here sleeps. Exit statuses follow from the stop's kind
/// (temporary 75, unavailable 69, permission denied 77; `ExitStatus(kind)` in the CLI).
final class ReplayEngineFaultTests: XCTestCase {
    var harness: ReplayHarness!
    typealias Reply = ScriptedTransport.Reply

    override func setUpWithError() throws { harness = try ReplayHarness() }
    override func tearDown() { harness.cleanUp() }

    func ids(_ numbers: ClosedRange<Int>) -> Set<String> { Set(numbers.map(ReplayHarness.id)) }

    // MARK: 2xx

    func test2xxDeliversBatchesGroupedByPlatformAndVersionAndJournalsThem() throws {
        try harness.writeQueue(1...25, extra: (26...30).map { ReplayHarness.event($0, platform: "android", sdk: "2.1.0") })
        let server = harness.transport()
        let (plan, outcome) = try harness.replay(server)
        XCTAssertEqual(plan.toSend, 30)
        XCTAssertEqual(plan.batches, 3)
        XCTAssertNil(outcome.stop)
        XCTAssertEqual(outcome.delivered, 30)
        XCTAssertEqual(outcome.undelivered, 0)
        XCTAssertEqual(outcome.requests, 3)
        XCTAssertEqual(server.violations, [])
        XCTAssertEqual(server.received.map(\.ids.count).sorted(), [5, 5, 20])
        XCTAssertEqual(Set(server.received.map { "\($0.platform) \($0.sdkVersion)" }), ["ios 1.0.78", "android 2.1.0"])
        XCTAssertEqual(Set(server.receivedIDs), ids(1...30))
        XCTAssertEqual(harness.clock.sleeps, [])

        let again = try harness.replay(server)
        XCTAssertEqual(again.plan.toSend, 0)
        XCTAssertEqual(again.plan.skipped[.delivered], 30)
        XCTAssertEqual(server.received.count, 3, "nothing sent twice")
    }

    // MARK: 408 / 429 and Retry-After

    func test429And408WaitForRetryAfterThenDeliver() throws {
        try harness.writeQueue(1...3)
        let server = harness.transport { index, _ in
            switch index {
            case 0: return .answer(429, headers: [("Retry-After", "1")])
            case 1: return .answer(408, headers: [("Retry-After", "2")])
            default: return .answer(202)
            }
        }
        let (_, outcome) = try harness.replay(server)
        XCTAssertNil(outcome.stop)
        XCTAssertEqual(outcome.delivered, 3)
        XCTAssertEqual(outcome.requests, 3)
        XCTAssertEqual(outcome.retries, 2)
        XCTAssertEqual(harness.clock.sleeps, [1, 2])
    }

    func testRetryAfterAsAnHTTPDateAndTheCapOf120Seconds() throws {
        try harness.writeQueue(1...2)
        // The virtual wall clock reads 2026-02-19T10:00:01Z: the date is 30 s later.
        let server = harness.transport { index, _ in
            switch index {
            case 0: return .answer(503, headers: [("Retry-After", "Thu, 19 Feb 2026 10:00:31 GMT")])
            case 1: return .answer(429, headers: [("Retry-After", "100000")])
            default: return .answer(200)
            }
        }
        let (_, outcome) = try harness.replay(server)
        XCTAssertNil(outcome.stop)
        XCTAssertEqual(outcome.delivered, 2)
        XCTAssertEqual(harness.clock.sleeps, [30, 120])
    }

    func test429UntilRetriesRunOutStopsTemporaryAndAReRunResumes() throws {
        try harness.writeQueue(1...3)
        let busy = harness.transport { _, _ in .answer(429, headers: [("Retry-After", "0")]) }
        let (_, outcome) = try harness.replay(busy, retries: 2)
        XCTAssertEqual(outcome.stop?.kind, .temporary)
        XCTAssertEqual(outcome.stop?.status, 429)
        XCTAssertEqual(outcome.requests, 3)
        XCTAssertEqual(outcome.undelivered, 3)

        let ok = harness.transport()
        let resumed = try harness.replay(ok)
        XCTAssertEqual(resumed.outcome.delivered, 3)
        XCTAssertNil(resumed.outcome.stop)
    }

    // MARK: 413

    func test413HalvesTheBatchDownToOneEventAndDeadLettersThatOne() throws {
        try harness.writeQueue(1...8)
        let tooBig = ReplayHarness.id(3)
        let server = harness.transport { _, ids in
            ids.count > 2 || ids.contains(tooBig) ? .answer(413, body: #"{"error":"too large"}"#) : .answer(200)
        }
        let (_, outcome) = try harness.replay(server, settings: { $0.batchSize = 8 })
        XCTAssertNil(outcome.stop)
        XCTAssertEqual(outcome.delivered, 7)
        XCTAssertEqual(outcome.deadLettered, 1)
        XCTAssertEqual(outcome.deadLetterStatuses, [413: 1])
        // 8 → 4 → 2, 2 → 1, 1 (the pair holding the big one), then the other 4 → 2, 2.
        XCTAssertEqual(server.received.map(\.ids.count), [8, 4, 2, 2, 1, 1, 4, 2, 2])
        XCTAssertEqual(outcome.splits, 4)
        XCTAssertEqual(harness.deadLetters().map { $0["event_id"] as? String }, [tooBig])
        XCTAssertEqual(harness.deadLetters().first?["status"] as? Int, 413)
        XCTAssertEqual(harness.clock.sleeps, [])
    }

    // MARK: other 4xx

    func test400GoesToTheDeadLetterFileWithStatusAndMaskedBody() throws {
        try harness.writeQueue(1...4)
        let poison = ReplayHarness.id(2)
        let server = harness.transport { _, ids in
            ids.contains(poison) ? .answer(400, body: #"{"error":"bad event","echo":"\#(ReplayHarness.key)"}"#) : .answer(200)
        }
        let (_, outcome) = try harness.replay(server, settings: { $0.batchSize = 2 })
        XCTAssertNil(outcome.stop)
        XCTAssertEqual(outcome.delivered, 2)
        XCTAssertEqual(outcome.deadLettered, 2)
        let letters = harness.deadLetters()
        XCTAssertEqual(Set(letters.compactMap { $0["event_id"] as? String }), ids(1...2))
        XCTAssertEqual(letters.first?["status"] as? Int, 400)
        let response = try XCTUnwrap(letters.first?["response"] as? String)
        XCTAssertTrue(response.contains("bad event"), response)
        XCTAssertFalse(response.contains(ReplayHarness.key), "the key reached the dead-letter file")
        XCTAssertEqual((letters.first?["event"] as? [String: Any])?["event_id"] as? String, ReplayHarness.id(1))
        XCTAssertEqual(letters.first?["dead_lettered_at"] as? String, "2026-02-19T10:00:01Z")

        let again = try harness.replay(server)
        XCTAssertEqual(again.plan.skipped[.deadLettered], 2)
        XCTAssertTrue(again.plan.hasUndeliverableSkips)
    }

    // MARK: 5xx

    func test5xxBacksOff1And2And4SecondsThenStopsAndAReRunResumes() throws {
        try harness.writeQueue(1...6)
        let server = harness.transport { index, _ in index == 0 ? .answer(200) : .answer(500) }
        let (_, outcome) = try harness.replay(server, settings: { $0.batchSize = 2 })
        XCTAssertEqual(outcome.stop?.kind, .unavailable)
        XCTAssertEqual(outcome.stop?.status, 500)
        XCTAssertEqual(outcome.delivered, 2)
        XCTAssertEqual(outcome.undelivered, 4)
        XCTAssertEqual(outcome.requests, 5)
        XCTAssertEqual(outcome.retries, 3)
        XCTAssertEqual(harness.clock.sleeps, [1, 2, 4])

        let ok = harness.transport()
        let resumed = try harness.replay(ok)
        XCTAssertEqual(resumed.plan.skipped[.delivered], 2)
        XCTAssertEqual(resumed.outcome.delivered, 4)
        XCTAssertEqual(Set(ok.receivedIDs), ids(3...6))
    }

    func test503StopsTemporary() throws {
        try harness.writeQueue(1...2)
        let (_, outcome) = try harness.replay(harness.transport { _, _ in .answer(503) }, retries: 0)
        XCTAssertEqual(outcome.stop?.kind, .temporary)
        XCTAssertEqual(harness.clock.sleeps, [])
    }

    // MARK: 401 / 403

    func test401And403StopAtOnceWithPermissionDenied() throws {
        for status in [401, 403] {
            harness.cleanUp()
            harness = try ReplayHarness()
            try harness.writeQueue(1...3)
            let server = harness.transport { _, _ in .answer(status) }
            let (_, outcome) = try harness.replay(server, settings: { $0.batchSize = 1 })
            XCTAssertEqual(outcome.stop?.kind, .permissionDenied)
            XCTAssertEqual(server.received.count, 1, "\(status) is not retried and stops the run")
            XCTAssertEqual(outcome.undelivered, 3)
            XCTAssertTrue(harness.deadLetters().isEmpty)
        }
    }

    // MARK: network errors and time-outs

    func testDroppedConnectionIsRetriedAfterOneSecond() throws {
        try harness.writeQueue(1...3)
        let server = harness.transport { index, _ in index == 0 ? .dropConnection : .answer(200) }
        let (_, outcome) = try harness.replay(server)
        XCTAssertNil(outcome.stop)
        XCTAssertEqual(outcome.delivered, 3)
        XCTAssertEqual(server.received.count, 2)
        XCTAssertEqual(harness.clock.sleeps, [1])
    }

    func testNetworkErrorStopsUnavailableAfterTheRetries() throws {
        try harness.writeQueue(1...2)
        let once = try harness.replay(harness.transport { _, _ in .refuseConnection }, retries: 0)
        XCTAssertEqual(once.outcome.stop?.kind, .unavailable)
        XCTAssertEqual(harness.clock.sleeps, [])

        let server = harness.transport { _, _ in .refuseConnection }
        let retried = try harness.replay(server, retries: 2)
        XCTAssertEqual(retried.outcome.stop?.kind, .unavailable)
        XCTAssertTrue(retried.outcome.stop?.message.hasSuffix("(after 3 attempts)") ?? false, retried.outcome.stop?.message ?? "")
        XCTAssertEqual(server.received.count, 3)
        XCTAssertEqual(harness.clock.sleeps, [1, 2])
    }

    func testSlowAnswerPastTheTimeoutStopsTemporary() throws {
        try harness.writeQueue(1...3)
        let server = harness.transport { _, _ in .after(3, .answer(200)) }
        let (_, outcome) = try harness.replay(server, settings: { $0.timeout = 1 })
        XCTAssertEqual(outcome.stop?.kind, .temporary)
        XCTAssertEqual(outcome.stop?.deadlineExpired, true)
        XCTAssertEqual(outcome.undelivered, 3)
        XCTAssertEqual(server.received.count, 1, "no retry once the deadline passed")
    }

    /// A back-off that would end past the batch's deadline is not started.
    func testNoRetryStartsThatWouldEndPastTheTimeout() throws {
        try harness.writeQueue(1...1)
        let server = harness.transport { _, _ in .after(0.5, .answer(500)) }
        let (_, outcome) = try harness.replay(server, settings: { $0.timeout = 2.5 })
        XCTAssertEqual(outcome.stop?.status, 500)
        // 0.5 s answer, 1 s wait, 0.5 s answer: 0.5 s left, too little for the 2 s wait.
        XCTAssertEqual(harness.clock.sleeps, [1])
        XCTAssertEqual(server.received.count, 2)
    }
}
