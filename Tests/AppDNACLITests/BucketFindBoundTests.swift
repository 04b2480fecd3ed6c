import XCTest
@testable import AppDNACLI

/// `bucket --find V --count N` ran unbounded (10^10 hashes, no output) when V owns few buckets.
final class BucketFindBoundTests: XCTestCase {
    func testASearchExpectedToTakeTooLongIsRefusedWithTheCountThatFits() {
        let result = runCLI(["bucket", "--find", "b", "--variants", "a=0.9999,b=0.0001", "--count", "1000000", "exp", "salt"])
        XCTAssertEqual(result.status, 64)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderrLines, [
            "appdna: --find: 'b' owns 1 of 10000 buckets, so 1000000 id(s) take about 10000000000 tries, more than the 20000000 allowed",
            "hint: ask for at most --count 2000 ids for this variant",
        ])
    }

    func testALongSearchShowsProgressOnATerminalOnly() {
        let arguments = ["bucket", "--find", "b", "--variants", "a=0.9999,b=0.0001", "--count", "100", "exp", "salt"]
        let terminal = runCLI(arguments, terminal: true)
        XCTAssertEqual(terminal.status, 0, terminal.stderr)
        XCTAssertEqual(terminal.stdout.split(separator: "\n").count, 100)
        XCTAssertTrue(terminal.stderr.contains("/1000000 tries"), terminal.stderr)
        XCTAssertTrue(terminal.stderr.hasSuffix("\r\u{1B}[K"), "the bar is cleared at the end")
        let piped = runCLI(arguments)
        XCTAssertEqual(piped.stdout, terminal.stdout)
        XCTAssertEqual(piped.stderr, "")
    }

    func testAShortSearchIsUnchanged() {
        let result = runCLI(["bucket", "--find", "b", "--variants", "a=0.5,b=0.5", "--count", "3", "exp", "salt"], terminal: true)
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stdout.split(separator: "\n").count, 3)
        XCTAssertEqual(result.stderr, "")
    }
}
