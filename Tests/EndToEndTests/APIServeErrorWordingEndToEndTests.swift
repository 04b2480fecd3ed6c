import Foundation
import XCTest
import TestSupport

/// Issue 34.3: `api serve --bundle` words a file that is not JSON as every other command does,
/// `FILE:LINE:COL: not JSON: …`, when it starts, in the 500 it answers after a broken edit and
/// in the warning it logs; and the ingest endpoint's 400 says where the body stops being JSON.
final class APIServeErrorWordingEndToEndTests: XCTestCase {
    func testNotJSONIsWordedAsEverywhereElse() throws {
        let curl = try requireTool("curl", because: "an independent HTTP client")
        let scratch = try ScratchDirectory("serve-wording")
        defer { scratch.remove() }
        let readme = try scratch.file("README.md", Array("# Not a bundle\n".utf8))
        let expected = "\(readme):1:1: not JSON: expected a value, found '#'"

        let start = try Binary.run(["api", "serve", "--port", "0", "--bundle", readme])
        XCTAssertEqual(start.status, 65)
        XCTAssertEqual(start.stderrLines.first.map(String.init), "appdna: " + expected, start.stderr)
        XCTAssertEqual(try Binary.run(["bundle", "diff", readme, readme]).stderrLines.first.map(String.init), "appdna: " + expected,
                       "the same words as another command")

        let bundle = try scratch.file("bundle.json", Array(#"{"bundle_version": 1}"#.utf8))
        let server = try APIServeProcess(["--bundle", bundle])
        try Data("# Not a bundle\n".utf8).write(to: URL(fileURLWithPath: bundle))
        let answer = try ProcessRunner.run(curl, ["-s", "-H", "x-api-key: adn_test_any", "-w", "\n%{http_code}", server.baseURL + "/api/v1/sdk/config-bundle"], environment: nil)
        let brokenEdit = "\(bundle):1:1: not JSON: expected a value, found '#'"
        XCTAssertEqual(answer.stdout, #"{"error":"\#(brokenEdit)"}"# + "\n\n500")
        let ingest = try ProcessRunner.run(curl, ["-s", "-X", "POST", "--data-binary", "{\"batch\": [", "-H", "Content-Type: application/json", "-H", "x-api-key: adn_test_any",
                                                  server.baseURL + "/api/v1/ingest/events"], environment: nil)
        XCTAssertTrue(ingest.stdout.contains("the body is not JSON: line 1, column 12: "), ingest.stdout)
        server.stop()
        XCTAssertTrue(server.stderr.contains(brokenEdit), server.stderr)
        for output in [start.stderr, answer.stdout, ingest.stdout, server.stderr] {
            XCTAssertFalse(output.contains("JSONSyntaxError") || output.contains("AppDNACore."), output)
        }
    }
}
