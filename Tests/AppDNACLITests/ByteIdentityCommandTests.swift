import Foundation
import XCTest
import TestSupport
@testable import AppDNACLI

/// Ids that differ only in Unicode normalisation, through the commands a user runs: the diff
/// gate fails, `bucket` tells the look-alikes apart, `bundle validate` warns (W009).
final class ByteIdentityCommandTests: XCTestCase {
    static let nfc = "caf\u{E9}", nfd = "cafe\u{301}"

    func file(_ contents: String) throws -> String {
        let path = NSTemporaryDirectory() + "appdna-identity-\(UUID().uuidString).json"
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func bundle(_ experiments: [String], salt: String = "s", version: Int) -> String {
        let entries = experiments.map { "\"\($0)\": {\"status\": \"running\", \"salt\": \"\(salt)\", \"variants\": [{\"id\": \"a\", \"weight\": 0.5}, {\"id\": \"b\", \"weight\": 0.5}]}" }
        return "{\"bundle_version\": \(version), \"experiments\": {\(entries.joined(separator: ", "))}}"
    }

    func testTheSwitchGateFailsWhenAnExperimentIdIsReEncoded() throws {
        let old = try file(bundle(["\(Self.nfc)-exp"], version: 1)), new = try file(bundle(["\(Self.nfd)-exp"], version: 2))
        let run = runCLI(["bundle", "diff", "--fail-on-switch", "10", old, new])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("only in Unicode normalisation: NFD vs NFC"), run.stdout)
        XCTAssertTrue(run.stderr.contains("--fail-on-switch 10%"), run.stderr)
        let patch = runCLI(["bundle", "diff", "--format", "patch", old, new])
        XCTAssertTrue(patch.stdout.contains("\"op\":\"remove\"") || patch.stdout.contains("\"op\": \"remove\""), patch.stdout)
    }

    func testTheSwitchGateFailsWhenASaltIsReEncoded() throws {
        let old = try file(bundle(["e"], salt: Self.nfc, version: 1)), new = try file(bundle(["e"], salt: Self.nfd, version: 2))
        let run = runCLI(["bundle", "diff", "--fail-on-switch", "10", old, new])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("salt"), run.stdout)
    }

    func testBucketTellsLookalikesApart() throws {
        let both = try file(bundle([Self.nfc, Self.nfd], version: 1)), one = try file(bundle([Self.nfc], version: 1))
        let listing = runCLI(["bucket", "u1", "cafe", "--bundle", both])
        XCTAssertEqual(listing.status, 64)
        XCTAssertTrue(listing.stderr.contains("it has café (NFC), café (NFD)"), listing.stderr)
        let lookalike = runCLI(["bucket", "u1", Self.nfd, "--bundle", one])
        XCTAssertEqual(lookalike.status, 64)
        XCTAssertTrue(lookalike.stderr.contains("differs from café only in Unicode normalisation: NFD vs NFC"), lookalike.stderr)
        // Each spelling is its own experiment, hashed with its own bytes.
        let a = runCLI(["bucket", "u1", Self.nfc, "--bundle", both]), b = runCLI(["bucket", "u1", Self.nfd, "--bundle", both])
        XCTAssertEqual(a.status, 0)
        XCTAssertEqual(b.status, 0)
        XCTAssertNotEqual(a.stdout, b.stdout)
    }

    /// 34.8: a misspelt experiment gets a "did you mean", as `warehouse --experiment` does (one
    /// wording, BundleExperiments.notFound); among ids that read alike the suggestion says which
    /// form it is, and an id that is another normalisation of one is told so, not "corrected".
    func testBucketSuggestsTheExperimentAMisspeltIdMeant() throws {
        let examples = repositoryRoot.appendingPathComponent("examples/experiments/appdna-config.json").path
        let typo = runCLI(["bucket", "user_1", "onbaording-v2", "--bundle", examples])
        XCTAssertEqual(typo.status, 64)
        XCTAssertEqual(typo.stderr, "appdna: \(examples): no experiment 'onbaording-v2' in the bundle; "
                       + "it has onboarding-v2, paywall-price, pro-upsell, dark-mode; did you mean 'onboarding-v2'?\n")
        let far = runCLI(["bucket", "user_1", "checkout", "--bundle", examples])
        XCTAssertFalse(far.stderr.contains("did you mean"), far.stderr)

        let both = try file(bundle([Self.nfc, Self.nfd], version: 1)), one = try file(bundle([Self.nfc], version: 1))
        let plain = runCLI(["bucket", "u1", "cafe", "--bundle", both])
        XCTAssertTrue(plain.stderr.hasSuffix("did you mean 'café (NFC)'?\n"), plain.stderr)
        let other = runCLI(["bucket", "u1", Self.nfd, "--bundle", one])
        XCTAssertTrue(other.stderr.contains("only in Unicode normalisation: NFD vs NFC"), other.stderr)
        XCTAssertFalse(other.stderr.contains("did you mean"), other.stderr)
    }

    func testValidateWarnsAboutLookalikeIds() throws {
        let both = try file(bundle([Self.nfc, Self.nfd], version: 1))
        let run = runCLI(["bundle", "validate", both])
        XCTAssertEqual(run.status, 0, "a warning, not an error")
        XCTAssertTrue(run.stdout.contains("[W009]"), run.stdout)
    }
}
