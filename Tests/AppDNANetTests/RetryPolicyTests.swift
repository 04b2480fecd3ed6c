import XCTest
@testable import AppDNANet

final class RetryPolicyTests: XCTestCase {
    func testBackoffIsOneTwoFourWithQuarterJitter() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.delay(beforeRetry: 0, retryAfter: nil, unit: 0.5), 1, accuracy: 1e-12)
        XCTAssertEqual(policy.delay(beforeRetry: 1, retryAfter: nil, unit: 0.5), 2, accuracy: 1e-12)
        XCTAssertEqual(policy.delay(beforeRetry: 2, retryAfter: nil, unit: 0.5), 4, accuracy: 1e-12)
        XCTAssertEqual(policy.delay(beforeRetry: 0, retryAfter: nil, unit: 0), 0.75, accuracy: 1e-12)
        XCTAssertEqual(policy.delay(beforeRetry: 2, retryAfter: nil, unit: 0.999999), 5, accuracy: 1e-5)
    }

    func testRetryAfterSecondsAndDateAreHonouredAndCapped() {
        let policy = RetryPolicy()
        XCTAssertEqual(policy.delay(beforeRetry: 0, retryAfter: 7, unit: 0.9), 7)
        XCTAssertEqual(policy.delay(beforeRetry: 0, retryAfter: 500, unit: 0.9), 120)
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("  30 "), 30)
        // Sun, 06 Nov 1994 08:49:37 GMT = 784111777
        XCTAssertEqual(RetryPolicy.httpDate("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777)
        XCTAssertEqual(RetryPolicy.httpDate("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777)
        XCTAssertEqual(RetryPolicy.httpDate("Sun Nov  6 08:49:37 1994"), 784111777)
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:50:07 GMT", now: 784111777), 30)
        XCTAssertEqual(RetryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:49:00 GMT", now: 784111777), 0)
        XCTAssertNil(RetryPolicy.retryAfterSeconds("soon"))
        XCTAssertNil(RetryPolicy.retryAfterSeconds("-5"))
    }

    func testKeyMasking() throws {
        let key = try APIKey("adn_live_0123456789abcdef3f9a\n", source: "test")
        XCTAssertEqual(key.masked, "adn_live_…3f9a")
        XCTAssertEqual(key.environment, .live)
        XCTAssertEqual("\(key)", "adn_live_…3f9a")
        XCTAssertThrowsError(try APIKey("sk_live_123456789", source: "test")) { error in
            XCTAssertEqual((error as? HTTPError)?.kind, .configuration)
            XCTAssertFalse((error as? HTTPError)?.message.contains("sk_live") ?? true)
        }
        XCTAssertThrowsError(try APIKey("adn_test_", source: "test"))
        XCTAssertThrowsError(try APIKey("adn_test_abc def", source: "test"))
    }

    func testURLRules() throws {
        XCTAssertEqual(try HTTPURL.checkedForAPI("https://api.appdna.ai", variable: "X").hostAndPort, "api.appdna.ai")
        XCTAssertEqual(try HTTPURL.checkedForAPI("http://127.0.0.1:8080/x", variable: "X").port, 8080)
        XCTAssertNoThrow(try HTTPURL.checkedForAPI("http://localhost:1", variable: "X"))
        XCTAssertNoThrow(try HTTPURL.checkedForAPI("http://[::1]:1/", variable: "X"))
        XCTAssertThrowsError(try HTTPURL.checkedForAPI("http://api.appdna.ai", variable: "X")) {
            XCTAssertEqual(($0 as? HTTPError)?.kind, .configuration)
        }
        XCTAssertThrowsError(try HTTPURL.checkedForAPI("http://127.0.0.1.evil.com", variable: "X"))
        XCTAssertThrowsError(try HTTPURL.checkedForAPI("ftp://x", variable: "X"))
        let a = HTTPURL("https://api.appdna.ai/a")!, b = HTTPURL("https://API.appdna.ai:443/b")!
        XCTAssertTrue(a.isSameHost(as: b))
        XCTAssertFalse(a.isSameHost(as: HTTPURL("https://evil.example/b")!))
        XCTAssertFalse(a.isSameHost(as: HTTPURL("https://api.appdna.ai:8443/b")!))
        XCTAssertTrue(HTTPURL("http://h/")!.isSameHost(as: HTTPURL("https://h/")!))
        XCTAssertFalse(HTTPURL("https://h/")!.isSameHost(as: HTTPURL("http://h/")!))
    }
}
