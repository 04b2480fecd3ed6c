import XCTest
import AppDNACore
@testable import AppDNANet
import TestSupport

/// Issue 45.2: the bundle fetch protocol is Net's `BundleFetchSession`: the version check's
/// typed outcome, which failures are final, and the one retry budget the check and the
/// download share. Over a scripted transport and a virtual clock: no sockets, no sleeping.
final class BundleFetchSessionTests: XCTestCase {
    /// Answers each request with the next of `answers` (the last one repeats), counting them.
    final class Answers: HTTPTransport, Sendable {
        let answers: [(status: Int, body: String)]
        private let served = Locked(0)
        init(_ answers: [(status: Int, body: String)]) { self.answers = answers }
        var count: Int { served.withLock { $0 } }
        func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
            let index = served.withLock { served in served += 1; return served - 1 }
            let answer = answers[min(index, answers.count - 1)]
            return HTTPResponse(status: answer.status, body: Array(answer.body.utf8), url: request.url)
        }
    }

    func session(_ transport: Answers, retries: Int) throws -> BundleFetchSession {
        let clock = VirtualClock()
        let client = HTTPClient(transport: transport, policy: RetryPolicy(maxRetries: retries), clock: clock, random: { 0.5 })
        let api = AppDNAAPI(base: "http://127.0.0.1:1", key: try APIKey("adn_live_0123456789abcdef3f9a", source: "test"), client: client)
        return BundleFetchSession(api: api, deadline: Deadline(secondsFromNow: 600, clock: clock), budget: RetryBudget(retries: retries))
    }

    func testTheVersionCheckSaysWhatTheServerAnswered() throws {
        guard case .version(42) = try session(Answers([(200, #"{"bundle_version": 42}"#)]), retries: 0).versionForUpdate() else {
            return XCTFail("a 2xx JSON answer with bundle_version is the version")
        }
        guard case .unusable(let status) = try session(Answers([(404, "")]), retries: 0).versionForUpdate() else {
            return XCTFail("a 404 is not final for the check: the bundle is downloaded")
        }
        XCTAssertTrue(status.contains("404"), status)
        guard case .unusable = try session(Answers([(200, "<html>")]), retries: 0).versionForUpdate() else {
            return XCTFail("a 2xx answer that is not JSON is not final either")
        }
    }

    func testARejectedKeyIsFinal() throws {
        XCTAssertThrowsError(try session(Answers([(401, "")]), retries: 3).versionForUpdate()) { error in
            XCTAssertEqual((error as? HTTPError)?.kind, .permissionDenied)
        }
    }

    /// A server that keeps failing spends the budget on the check, and the check is then
    /// final: the download would get no retry. With budget left, it is not.
    func testTheCheckAndTheDownloadShareOneBudget() throws {
        let failing = Answers([(503, "")])
        XCTAssertThrowsError(try session(failing, retries: 2).versionForUpdate()) { error in
            XCTAssertEqual((error as? HTTPError)?.status, 503)
        }
        XCTAssertEqual(failing.count, 3, "the first attempt and the two retries")

        let recovering = Answers([(503, ""), (200, #"{"bundle_version": 7}"#), (200, #"{"bundle_version": 7}"#)])
        let shared = try session(recovering, retries: 1)
        guard case .version(7) = try shared.versionForUpdate() else { return XCTFail("the retry answered") }
        XCTAssertTrue(shared.budget.isExhausted)
        XCTAssertEqual(try shared.downloadBundle().status, 200, "a download's first attempt needs no budget")
        XCTAssertEqual(recovering.count, 3)
    }

    func testLiveVersionNeedsAnIntegerBundleVersion() throws {
        XCTAssertEqual(try session(Answers([(200, #"{"bundle_version": 9}"#)]), retries: 0).liveVersion(), 9)
        XCTAssertThrowsError(try session(Answers([(200, #"{"bundle_version": "9"}"#)]), retries: 0).liveVersion()) { error in
            XCTAssertEqual((error as? Failure)?.kind, .unavailable)
        }
    }
}
