import AppDNACore
@testable import AppDNACLI
@testable import AppDNAServers
@testable import AppDNANet
import XCTest

/// The inspector's "Edit and replay" request body (`ReplayModification`): what it accepts,
/// what it refuses with a 400's message, and the headers and body it makes of a delivery
/// (the end-to-end test, InspectorReplayEditEndToEndTests, sends them to a real handler).
final class ReplayModificationTests: XCTestCase {
    let secret = try! WebhookSecret(raw: Array("whsec_unit_test_secret".utf8), source: "test")
    let other = try! WebhookSecret(raw: Array("whsec_another_secret".utf8), source: "test 2")

    func parse(_ json: String, maxBody: Int = 1 << 20) -> Result<ReplayModification?, ReplayModification.Refusal> {
        ReplayModification.parse(Array(json.utf8), maxBody: maxBody)
    }

    func message(_ json: String, maxBody: Int = 1 << 20) -> String {
        if case .failure(let refusal) = parse(json, maxBody: maxBody) { return refusal.message }
        return "(accepted)"
    }

    func testAnEmptyBodyIsAPlainReplayAndEachMemberIsChecked() throws {
        XCTAssertNil(try parse("").get())
        XCTAssertNil(try parse(" \r\n").get())
        let full = try XCTUnwrap(try parse(#"{"body":"{\"id\":\"evt_2\"}","headers":[["X-A","1"],["Cookie",null]],"signature":"unsigned"}"#).get())
        XCTAssertEqual(full.body, Array(#"{"id":"evt_2"}"#.utf8))
        XCTAssertEqual(full.headers?.map(\.name), ["X-A", "Cookie"])
        XCTAssertEqual(full.headers?.map(\.value), ["1", nil])
        XCTAssertEqual(full.signature, .unsigned)
        XCTAssertEqual(try parse(#"{"body_base64":"AP8="}"#).get()?.body, [0x00, 0xFF])
        XCTAssertEqual(try parse("{}").get()?.signature, .resign, "re-signed unless said otherwise")

        XCTAssertTrue(message("[1]").hasPrefix("the replay's body must be a JSON object"))
        XCTAssertTrue(message("{not json").hasPrefix("the replay's body must be a JSON object"))
        XCTAssertTrue(message(#"{"bodi":"x"}"#).contains(#"unknown member "bodi""#))
        XCTAssertTrue(message(#"{"signature":"maybe"}"#).contains("resign"))
        XCTAssertTrue(message(#"{"body":"a","body_base64":"YQ=="}"#).hasPrefix("give the body once"))
        XCTAssertTrue(message(#"{"body":1}"#).hasPrefix("\"body\" is a string"))
        XCTAssertTrue(message(#"{"body_base64":"%%%"}"#).hasPrefix("\"body_base64\""))
        XCTAssertTrue(message(#"{"body":"12345"}"#, maxBody: 4).contains("larger than the listener's --max-body"))
        XCTAssertEqual(message(#"{"body":"1234"}"#, maxBody: 4), "(accepted)")
        XCTAssertTrue(message(#"{"headers":{"a":"b"}}"#).hasPrefix("\"headers\" is an array"))
        XCTAssertTrue(message(#"{"headers":[["a"]]}"#).hasPrefix("header 1 is not a [NAME, VALUE] pair"))
        XCTAssertTrue(message(#"{"headers":[["bad name","x"]]}"#).contains("is not an HTTP header name"))
        XCTAssertTrue(message(#"{"headers":[["X-A","a\r\nX-Injected: 1"]]}"#).contains("line break"))
        XCTAssertTrue(message(#"{"headers":[["X-A",7]]}"#).contains("the value is a string"))
        let many = "[" + Array(repeating: #"["X-A","1"]"#, count: ReplayModification.headerCount + 1).joined(separator: ",") + "]"
        XCTAssertTrue(message(#"{"headers":\#(many)}"#).contains("at most \(ReplayModification.headerCount)"))
        let long = String(repeating: "v", count: ReplayModification.headerBytes + 1)
        XCTAssertTrue(message(#"{"headers":[["X-A","\#(long)"]]}"#).contains("is longer than"))
        let big = String(repeating: "v", count: ReplayModification.headerBytes)
        let manyBig = "[" + Array(repeating: #"["X-A","\#(big)"]"#, count: 9).joined(separator: ",") + "]"
        XCTAssertTrue(message(#"{"headers":\#(manyBig)}"#).contains("in all"))
    }

    func testResignSignsTheEditedBodyWithTheFirstSecretAndKeepsHiddenCredentials() throws {
        let entry = try InspectorTests.entry(headers: [("Host", "127.0.0.1:9"), ("X-AppDNA-Signature", "sha256=" + String(repeating: "0", count: 64)),
                                                       ("Authorization", "Bearer kept")])
        let edits = try XCTUnwrap(try parse(#"{"body":"{\"id\":\"evt_edited\"}","headers":[["X-AppDNA-Signature","stale"],["Authorization",null],["X-New","yes"]]}"#).get())
        let applied = try edits.applied(to: entry, secrets: [secret, other]).get()
        XCTAssertEqual(applied.body, Array(#"{"id":"evt_edited"}"#.utf8))
        XCTAssertTrue(applied.valid)
        let signature = try XCTUnwrap(HeaderName.first("X-AppDNA-Signature", in: applied.headers, nameOf: \.name)).value
        XCTAssertEqual(signature, WebhookSigner.headerValue(body: applied.body, secret: secret), "the first secret signs")
        XCTAssertEqual(HeaderName.all("X-AppDNA-Signature", in: applied.headers, nameOf: \.name).count, 1, "the stale one is gone")
        XCTAssertEqual(HeaderName.first("Authorization", in: applied.headers, nameOf: \.name)?.value, "Bearer kept")
        XCTAssertEqual(HeaderName.first("X-New", in: applied.headers, nameOf: \.name)?.value, "yes")
        // The entry is as received.
        XCTAssertEqual(entry.body.bytes, Array(#"{"id":"evt_1"}"#.utf8))

        let noCredential = try XCTUnwrap(try parse(#"{"headers":[["Cookie",null]]}"#).get())
        guard case .failure(let why) = noCredential.applied(to: entry, secrets: [secret]) else { return XCTFail("a null value with nothing to keep") }
        XCTAssertTrue(why.message.contains("has no value"), why.message)
    }

    func testUnsignedAndOriginalAreCheckedByTheListenersSecrets() throws {
        let body = Array(#"{"id":"evt_1"}"#.utf8)
        let signed = WebhookSigner.headerValue(body: body, secret: other)
        let entry = try InspectorTests.entry(headers: [("Host", "127.0.0.1:9"), ("X-AppDNA-Signature", signed)])
        let unsigned = try XCTUnwrap(try parse(#"{"signature":"unsigned"}"#).get()).applied(to: entry, secrets: [secret, other]).get()
        XCTAssertFalse(unsigned.valid)
        XCTAssertNil(HeaderName.first("X-AppDNA-Signature", in: unsigned.headers, nameOf: \.name))
        // The received signature, by the second secret: valid for the received body, not an edited one.
        XCTAssertTrue(try XCTUnwrap(try parse(#"{"signature":"original"}"#).get()).applied(to: entry, secrets: [secret, other]).get().valid)
        XCTAssertFalse(try XCTUnwrap(try parse(#"{"signature":"original","body":"{}"}"#).get()).applied(to: entry, secrets: [secret, other]).get().valid)
    }
}
