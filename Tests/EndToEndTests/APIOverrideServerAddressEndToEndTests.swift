import Foundation
import TestSupport
import XCTest

/// `api override`'s server address (--server, APPDNA_SERVER) is taken as the discovery file's
/// is: loopback http with a port of plain digits; anything else is a usage error (64) before
/// any request, with a long value shortened in the message.
final class APIOverrideServerAddressEndToEndTests: XCTestCase {
    func testAPortOfPlainDigitsOnlyAndALongValueShortened() throws {
        for bad in ["http://127.0.0.1:+18802", "http://127.0.0.1:018802", "http://localhost:-1", "http://127.0.0.1: 80"] {
            let run = try Binary.run(["api", "override", "list"], environment: ["APPDNA_SERVER": bad, "HOME": "/nonexistent"])
            XCTAssertEqual(run.status, 64, "\(bad): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("APPDNA_SERVER takes the inspector's address"), run.stderr)
        }
        let long = "http://127.0.0.1:" + String(repeating: "9", count: 100_000)
        let run = try Binary.run(["api", "override", "list", "--server", long], environment: ["HOME": "/nonexistent"])
        XCTAssertEqual(run.status, 64, String(run.stderr.prefix(300)))
        XCTAssertLessThan(run.stderr.utf8.count, 1_000, "the value is shortened in the message")
        XCTAssertTrue(run.stderr.contains("(100017 bytes)"), String(run.stderr.prefix(300)))
        // [::1] is loopback for --server as for the discovery file: taken (then nothing listens: 69).
        let six = try Binary.run(["api", "override", "list", "--server", "http://[::1]:9"], environment: ["HOME": "/nonexistent"])
        XCTAssertNotEqual(six.status, 64, six.stderr)
        XCTAssertFalse(six.stderr.contains("takes the inspector's address"), six.stderr)
    }
}
