import Foundation
import TestSupport
import XCTest

/// What an outside attack on `api serve` found after issues 50 and 51 landed: a key the start
/// took that the API could not clear, a user id search any web page could start (and several
/// at once starve the console), a value nested too deep answered 409 instead of the request's
/// own 400 with its step.
final class DevServerOutsiderFindingsEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("dev-server-outsider")
        addTeardownBlock { [scratch] in scratch?.remove() }
        _ = try requireTool("curl", because: "the inspector's API is fetched with curl")
    }

    func bundle() throws -> String {
        try scratch.file("bundle.json", Array(DevServerEndToEndTests.source.utf8))
    }

    /// One rule for keys: what `--override` (or the state) accepts, the API can clear, and what
    /// the API refuses, the start refuses too.
    func testAKeyTheStartTakesCanBeClearedAndOneTooLongIsRefusedEverywhere() throws {
        let longest = String(repeating: "é", count: 256)  // 256 characters, 512 bytes
        let server = try InspectedProcess(["api", "serve", "--bundle", try bundle(), "--state", scratch.path + "/state.json",
                                           "--override", "config:\(longest)=1"], in: scratch.url)
        defer { server.stop() }
        let token = try inspectorToken(server.inspector, in: scratch.url)
        let encoded = longest.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let cleared = try curl(server.inspector + "/api/overrides/config/\(encoded)",
                               ["-X", "DELETE", "-H", "X-AppDNA-Inspector-Token: \(token)"], in: scratch.url)
        XCTAssertEqual(cleared.status, 200, cleared.text)
        XCTAssertEqual(server.stop(), 0)

        let tooLong = String(repeating: "k", count: 257)
        let refused = try Binary.run(["api", "serve", "--bundle", try bundle(), "--state", scratch.path + "/other.json",
                                      "--override", "config:\(tooLong)=1", "--port", "0"])
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("1 to 256 characters"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path + "/other.json"))
    }

    /// The search costs CPU, so it takes the page's token (another web page cannot start one).
    func testTheUserIDSearchTakesTheToken() throws {
        let server = try InspectedProcess(["api", "serve", "--bundle", try bundle()], in: scratch.url)
        defer { server.stop() }
        let body = #"{"force": {"onboarding-v2": "streamlined"}, "context": {"platform": "ios"}}"#
        let anonymous = try curl(server.inspector + "/api/identity",
                                 ["-X", "POST", "-H", "Content-Type: text/plain", "-H", "Origin: http://evil.example", "--data-binary", body], in: scratch.url)
        XCTAssertEqual(anonymous.status, 403, anonymous.text)
        let token = try inspectorToken(server.inspector, in: scratch.url)
        let asked = try curl(server.inspector + "/api/identity",
                             ["-X", "POST", "-H", "X-AppDNA-Inspector-Token: \(token)", "-H", "Content-Type: application/json", "--data-binary", body],
                             in: scratch.url)
        XCTAssertTrue([200, 409].contains(asked.status), asked.text)
    }

    /// A value deeper than an override may hold is the request's fault: 400, at the parse step.
    func testAValueTooDeepIs400AtTheParseStep() throws {
        let server = try InspectedProcess(["api", "serve", "--bundle", try bundle()], in: scratch.url)
        defer { server.stop() }
        let token = try inspectorToken(server.inspector, in: scratch.url)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let answer = try curl(server.inspector + "/api/overrides/config/title",
                              ["-X", "PUT", "-H", "X-AppDNA-Inspector-Token: \(token)", "--data-binary", #"{"value": \#(deep)}"#], in: scratch.url)
        XCTAssertEqual(answer.status, 400, answer.text)
        XCTAssertEqual(answer.json["step"] as? String, "parse", answer.text)
        XCTAssertTrue((answer.json["error"] as? String ?? "").hasPrefix("nothing was changed"), answer.text)
    }
}
