import Foundation
import XCTest
@testable import AppDNACLI

/// Batch mode in-process: each output format, quoting, and bad lines.
final class BucketBatchTests: XCTestCase {
    let variants = ["--variants", "control=0.5,variant_b=0.5"]

    func testEachFormatCarriesTheSameResults() throws {
        let input = "user_12345\r\na,\"b\"\n\nlast"
        let tsv = runCLI(["bucket", "-", "exp_paywall_v3", "a8f3c9d2"] + variants, stdin: input)
        XCTAssertEqual(tsv.status, 0)
        let rows = tsv.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        XCTAssertEqual(rows.count, 4, "three ids in (CRLF stripped, the blank line skipped, no final newline needed)")
        XCTAssertEqual(tsv.stderr, "appdna: standard input: 1 blank line(s) were skipped (line 3)\n")
        XCTAssertEqual(rows[0], ["user_12345", "3214585791", "5791", "variant_b"])

        let csv = runCLI(["bucket", "-", "exp_paywall_v3", "a8f3c9d2", "--format", "csv"] + variants, stdin: input)
        let csvLines = csv.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(csvLines[0], "user,hash,bucket,variant")
        XCTAssertEqual(csvLines[1], "user_12345,3214585791,5791,variant_b")
        XCTAssertTrue(csvLines[2].hasPrefix("\"a,\"\"b\"\"\","), csvLines[2])

        let ndjson = runCLI(["bucket", "-", "exp_paywall_v3", "a8f3c9d2", "--format", "ndjson"] + variants, stdin: input)
        let objects = try ndjson.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(objects.count, 3)
        XCTAssertEqual(objects[1]["user"] as? String, "a,\"b\"")
        for (index, object) in objects.enumerated() {
            XCTAssertEqual(object["bucket"] as? Int, Int(rows[index][2]))
            XCTAssertEqual(object["variant"] as? String, String(rows[index][3]))
        }
    }

    func testLinesThatAreNotUTF8AreSkippedAndReported() {
        let result = runCLI(["bucket", "-", "e", "s"], stdin: "ok\n\u{FFFD}\n")
        XCTAssertEqual(result.status, 0)
        let bad = runCLIBytes(["bucket", "-", "e", "s"], stdin: [0x6f, 0x6b, 0x0a, 0xff, 0xfe, 0x0a, 0x61, 0x0a])
        XCTAssertEqual(bad.status, 65)
        XCTAssertEqual(bad.stdout.split(separator: "\n").count, 2)
        XCTAssertEqual(bad.stderr, "appdna: standard input: 1 line(s) are not valid UTF-8 and were skipped (line 2)\n")
    }
}
