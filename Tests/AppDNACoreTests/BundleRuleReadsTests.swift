import Foundation
import XCTest
@testable import AppDNACore

/// The rules declare what they read (`BundleRuleReads`); the runner leaves everything else off
/// the parse's tape (`BundleValidationRunner.parseOptions`). A rule reading what it did not
/// declare would see an empty container and report nothing: these tests plant such reads and
/// omissions and see them noted (`JSONDocument.droppedChildrenReads`, which stops the runner in
/// a debug build), and see the real rules read nothing left off.
final class BundleRuleReadsTests: XCTestCase {
    /// An experiment with targeting, platforms and variant payloads, in the API shape, wrapped
    /// (the deepest the rules read), with trait values nested past what is read.
    static let bundle = Array(#"""
    {"bundle_version": 1, "content": {"experiments": {"experiments": {"e": {"status": "running", "salt": "s",
      "platforms": ["ios", "Android"],
      "targeting": {"countries": ["US", "fr"], "min_app_version": "2.x", "new_users_only": 1,
                    "user_traits": [{"trait": "plan", "operator": "in", "value": ["a", ["b"], {"c": 1}]}, {"trait": "age", "operator": "gt", "value": "18"}]},
      "variants": [{"id": "a", "weight": 0.5, "payload": {"rows": [[1, 2], [3]], "on": true}}, {"id": "b", "weight": 0.5, "payload": [{"x": 1}]}]}}}}}
    """#.utf8)

    private func parsed(_ bytes: [UInt8], reading reads: BundleRuleReads = .rules) throws -> JSONDocument {
        try JSONDocument(bytes: bytes, options: BundleValidationRunner.parseOptions(reading: reads))
    }

    /// The declaration gives the pruning the validator had before it was declared (a change
    /// here changes what validate costs: bench/json.sh), but for names from depth 5, not 4.
    func testTheDeclarationDerivesTodaysPruning() {
        let options = BundleValidationRunner.parseOptions()
        XCTAssertEqual(options.keepChildrenAboveDepth, 9, "content.experiments.experiments.ID.targeting.user_traits[i].value[j]")
        XCTAssertEqual(options.unreadKeys, ["payload"])
        XCTAssertEqual(options.unreadKeysFromDepth, 5, "a variant's members in a flat SDK map: experiments.ID.variants[i].payload")
        XCTAssertEqual(options.duplicateKeys, .record)
    }

    /// The real rules, over every fixture bundle, the bundle above and a hostile bundle, read
    /// nothing the parse left off, and find what they find on a full tape.
    func testTheRulesReadOnlyWhatTheyDeclare() throws {
        let directory = Fixtures.directory.appendingPathComponent("bundles")
        var inputs = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
            [UInt8](try Data(contentsOf: directory.appendingPathComponent($0)))
        }
        inputs.append(Self.bundle)
        inputs.append(BundleValidatorParallelTests.hostileBundle(experiments: 300, seed: 5, pretty: false))
        var checked = 0
        for bytes in inputs {
            guard let document = try? parsed(bytes) else { continue }
            let findings = BundleValidator.validate(document: document)
            XCTAssertEqual(document.droppedChildrenReads, [], String(decoding: bytes.prefix(200), as: UTF8.self))
            let full = try JSONDocument(bytes: bytes, options: JSONParseOptions(duplicateKeys: .record))
            XCTAssertEqual(findings, BundleValidator.validate(document: full))
            checked += 1
        }
        XCTAssertGreaterThan(checked, 20)
        XCTAssertGreaterThan(try parsed(Self.bundle).nodeCount + 20, try JSONDocument(bytes: Self.bundle).nodeCount, "the payloads were left off")
    }

    /// A planted omission: without `targeting` in the declaration, the runner leaves targeting
    /// objects off the tape, and the rules' read of one is noted (it would stop the runner).
    func testAnOmissionFromTheDeclarationIsNoted() throws {
        guard case let .members(members) = BundleRuleReads.rules.experiment else { return XCTFail("an experiment is read by member") }
        let planted = BundleRuleReads(experiment: .members(members.filter { $0.name != "targeting" }))
        XCTAssertEqual(BundleValidationRunner.parseOptions(reading: planted).unreadKeys, ["targeting", "payload"])
        let document = try parsed(Self.bundle, reading: planted)
        _ = BundleValidator.validate(document: document)
        let targeting = try XCTUnwrap(document.root.resolve(JSONPointer(tokens: ["content", "experiments", "experiments", "e", "targeting"])))
        XCTAssertEqual(document.droppedChildrenReads, [targeting.index])
    }

    /// A planted rule reading `payload` (which no rule declares): the read is noted, where it
    /// would otherwise see an empty object.
    func testARuleReadingAnUndeclaredPayloadIsNoted() throws {
        let document = try parsed(Self.bundle)
        XCTAssertEqual(document.droppedChildrenReads, [])
        let variant = try XCTUnwrap(document.root.resolve(JSONPointer(tokens: ["content", "experiments", "experiments", "e", "variants", "0"])))
        let payload = try XCTUnwrap(variant["payload"])
        XCTAssertEqual(payload["rows"]?.kind, nil, "left off: the rule sees nothing")
        XCTAssertEqual(document.droppedChildrenReads, [payload.index])
    }

    /// An experiment whose id is `payload`, in the wrapped API shape (depth 4): it was left off
    /// the tape as an unread payload (names were pruned from depth 4), and the rules saw an
    /// empty experiment (no status, salt or variants) instead of its weights summing to 1.4.
    func testAnExperimentCalledPayloadIsChecked() {
        let text = #"{"bundle_version": 1, "content": {"experiments": {"experiments": {"payload": {"status": "running", "salt": "s", "variants": [{"id": "a", "weight": 0.7}, {"id": "b", "weight": 0.7}]}}}}}"#
        let findings = BundleValidator.validate(bytes: Array(text.utf8))
        XCTAssertEqual(findings.map(\.code), ["W006", "E014"], findings.map(\.message).joined(separator: "\n"))
    }
}
