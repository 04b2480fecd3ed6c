import XCTest
@testable import AppDNAReplay
import AppDNACore
import AppDNANet
import TestSupport

/// `queue replay --retries N` is N retries per batch (its documented unit): every batch's first
/// attempt is made, each batch may be retried N times, and a server that keeps failing sees
/// N + 1 requests for the batch that stops the run.
extension ReplayEngineFaultTests {
    func testRetriesAreCountedPerBatchAtZeroOneAndThree() throws {
        for retries in [0, 1, 3] {
            // Three batches of one; each fails once, then is accepted.
            harness.cleanUp()
            harness = try ReplayHarness()
            try harness.writeQueue(1...3)
            let flaky = harness.transport { index, _ in index % 2 == 0 ? .answer(500) : .answer(200) }
            let (_, outcome) = try harness.replay(flaky, retries: retries, settings: { $0.batchSize = 1 })
            if retries == 0 {
                XCTAssertEqual(outcome.stop?.status, 500, "--retries 0")
                XCTAssertEqual(flaky.received.count, 1, "--retries 0: the first batch's only attempt")
                XCTAssertEqual(outcome.delivered, 0)
            } else {
                XCTAssertNil(outcome.stop, "--retries \(retries): \(outcome.stop?.message ?? "")")
                XCTAssertEqual(outcome.delivered, 3, "--retries \(retries): every batch has its own retries")
                XCTAssertEqual(flaky.received.count, 6)
                XCTAssertEqual(outcome.retries, 3)
            }

            harness.cleanUp()
            harness = try ReplayHarness()
            try harness.writeQueue(1...3)
            let failing = harness.transport { _, _ in .answer(500) }
            let (_, stopped) = try harness.replay(failing, retries: retries, settings: { $0.batchSize = 1 })
            XCTAssertEqual(failing.received.count, retries + 1, "--retries \(retries): a failing server")
            XCTAssertEqual(stopped.stop?.status, 500)
            XCTAssertEqual(stopped.requests, retries + 1)
        }
    }
}
