import Foundation
import XCTest
@testable import AppDNACore
import TestSupport

/// Issue 35.4: no `try!` behind public API. A library caller can hand a value any input the
/// types allow; what it cannot check with throws or says so in the value it returns, never
/// traps (`DeliveryCheck` with no secret used to).
final class NoTrapTests: XCTestCase {
    /// The `try!` lines in Swift source text, comments left out.
    static func trappingTries(_ source: String, file: String) -> [String] {
        SourceLines.matching(source, file: file) { $0.contains("try!") }
    }

    func testNoSourceFileUsesTryBang() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 200)
        var found: [String] = []
        for file in files {
            found += Self.trappingTries(try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        XCTAssertEqual(found, [], "\n" + found.joined(separator: "\n"))
    }

    func testAPlantedTryBangIsFound() {
        XCTAssertEqual(Self.trappingTries("let a = 1\nlet b = try! f()\n// try! in a comment\n", file: "planted.swift"),
                       ["planted.swift:2: let b = try! f()"])
    }

    /// With no secret to check against, a delivery is not valid, and the verdict says why.
    func testADeliveryCheckedWithNoSecretIsInvalidNotATrap() throws {
        let secret = try WebhookSecret("whsec_notrap", source: "--secret-file s.txt")
        let body = Array(#"{"id":"evt_1","type":"user.created"}"#.utf8)
        let signature = WebhookSigner.headerValue(body: body, secret: secret)
        let check = DeliveryCheck(headers: [.init(name: "X-AppDNA-Signature", value: signature, line: 2)], body: body, secrets: [])
        XCTAssertFalse(check.isValid)
        XCTAssertEqual(check.problem, "no webhook secret given")
        XCTAssertEqual(check.senderProblem, "the receiver has no secret to check the signature with")
        XCTAssertEqual(check.id, "evt_1")
        XCTAssertEqual(check.event, "user.created")
        // The same delivery with its secret is valid (the check above is about the list).
        XCTAssertTrue(DeliveryCheck(headers: [.init(name: "X-AppDNA-Signature", value: signature, line: 2)], body: body, secrets: [secret]).isValid)
    }
}
