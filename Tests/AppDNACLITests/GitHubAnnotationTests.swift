import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import TestSupport

/// Issue 44: under GitHub Actions (`GITHUB_ACTIONS=true`) every error and warning of
/// `bundle fetch`, `--check`, `bundle validate` and `bundle diff --fail-on-switch` is a workflow
/// command, so the pull request shows it; before, only `--keep-on-failure`'s warning was, and
/// "behind", a 503 after the retries and validation findings were plain log lines. With
/// `--quiet` (no notes) every stderr line is then an annotation; without the variable none is.
final class GitHubAnnotationTests: XCTestCase {
    static let key = "adn_live_ANNOTATEsecretKEY0123456789zz3f"
    static let github = ["GITHUB_ACTIONS": "true"]
    let clock = VirtualClock()
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory("appdna-annotations") }
    override func tearDown() { scratch.remove() }

    func fetch(_ reply: @escaping @Sendable (String) -> ScriptedBundleAPI.Reply, _ arguments: [String],
               environment: [String: String]) -> CapturedRun {
        let api = ScriptedBundleAPI(clock: clock) { path, _ in reply(path) }
        return runCLI(["bundle", "fetch"] + arguments, environment: environment.merging(["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": "http://127.0.0.1:9"]) { $1 },
                      transport: api, clock: clock)
    }

    func assertAllAnnotations(_ run: CapturedRun, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(run.stderrLines.isEmpty, file: file, line: line)
        for text in run.stderrLines where !(text.hasPrefix("::error") || text.hasPrefix("::warning")) {
            XCTFail("not an annotation: \(text)", file: file, line: line)
        }
    }

    func assertNoAnnotations(_ run: CapturedRun, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(run.stderr.contains("::"), run.stderr, file: file, line: line)
    }

    func testFetchCheckBehindIsAnErrorOnTheFile() throws {
        let output = try scratch.file("appdna-config.json", Array("{\"bundle_version\": 41, \"experiments\": {}}\n".utf8))
        for environment in [Self.github, [:]] {
            let run = fetch({ _ in .answer(200, body: #"{"bundle_version": 42}"#) }, ["--check", "-o", output, "--quiet"], environment: environment)
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertEqual(run.stdout, "behind: file bundle_version 41, live bundle_version 42\n")
            let message = "appdna: \(output) is not the live bundle (bundle_version 42); run appdna bundle fetch -o \(output)"
            if environment.isEmpty {
                XCTAssertEqual(run.stderrLines, [message])
            } else {
                XCTAssertEqual(run.stderrLines, ["::error file=\(output)::" + message])
            }
        }
    }

    func testFetchFailingAfterTheRetriesIsAnErrorWithItsHint() throws {
        let output = scratch.path + "/appdna-config.json"
        let run = fetch({ _ in .answer(503) }, ["-o", output, "--retries", "1", "--quiet"], environment: Self.github)
        XCTAssertEqual(run.status, 75, run.stderr)
        assertAllAnnotations(run)
        XCTAssertEqual(run.stderrLines.count, 1, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("::error::appdna: GET http://127.0.0.1:9/api/v1/sdk/config-bundle: HTTP 503 Service Unavailable"), run.stderr)
        let plain = fetch({ _ in .answer(503) }, ["-o", output, "--retries", "1", "--quiet"], environment: [:])
        assertNoAnnotations(plain)
        XCTAssertTrue(plain.stderr.hasPrefix("appdna: GET http://127.0.0.1:9/api/v1/sdk/config-bundle: HTTP 503"), plain.stderr)
    }

    func testFetchedBundleFindingsAreAnnotations() throws {
        let output = scratch.path + "/appdna-config.json"
        // Warnings (weights devices truncate) are annotations, and the fetch goes on.
        let warned = fetch({ _ in .answer(200, body: BundleFixtures.apiBundle(weights: (0.57, 0.43))) }, ["-o", output, "--quiet"], environment: Self.github)
        XCTAssertEqual(warned.status, 0, warned.stderr)
        assertAllAnnotations(warned)
        // Issue 52: `Warning: appdna: …` as the runner shows it, no second "warning:", and no
        // pseudo-file: the response is named in words, with no `file=`.
        XCTAssertTrue(warned.stderrLines.first?.hasPrefix("::warning::appdna: the fetched bundle, line ") == true, warned.stderr)
        XCTAssertFalse(warned.stderr.contains("warning: "), warned.stderr)
        XCTAssertFalse(warned.stderr.contains("response:"), warned.stderr)
        XCTAssertTrue(warned.stderr.contains("[W004]"), warned.stderr)
        // Errors, and the line that fails the fetch, with its hint inside the annotation.
        let invalid = fetch({ _ in .answer(200, body: BundleFixtures.apiBundle(weights: (0.5, 0.4))) }, ["-o", output, "--force", "--quiet"], environment: Self.github)
        XCTAssertEqual(invalid.status, 1, invalid.stderr)
        assertAllAnnotations(invalid)
        XCTAssertTrue(invalid.stderrLines.first?.hasPrefix("::error::appdna: bundle error: the fetched bundle, line ") == true, invalid.stderr)
        XCTAssertTrue(invalid.stderrLines.last?.hasSuffix("not changed%0Ahint: --no-validate writes it anyway") == true, invalid.stderr)
    }

    func testSandboxKeyInAReleaseBuildIsAWarning() {
        let output = scratch.path + "/appdna-config.json"
        let api = ScriptedBundleAPI(clock: clock) { _, _ in .answer(200, body: BundleFixtures.apiBundle()) }
        let run = runCLI(["bundle", "fetch", "-o", output, "--quiet"],
                         environment: ["GITHUB_ACTIONS": "true", "CONFIGURATION": "Release", "APPDNA_SDK_KEY": "adn_test_ANNOTATEsecretKEY0123456789zz3f",
                                       "APPDNA_API_URL": "http://127.0.0.1:9"], transport: api, clock: clock)
        XCTAssertEqual(run.status, 0, run.stderr)
        assertAllAnnotations(run)
        XCTAssertTrue(run.stderr.hasPrefix("::warning::appdna bundle fetch: a sandbox key ("), run.stderr)
    }

    func testKeepOnFailureWithNothingToKeepSaysSo() throws {
        let output = scratch.path + "/appdna-config.json"
        let plain = fetch({ _ in .refuseConnection }, ["-o", output, "--retries", "0", "--keep-on-failure"], environment: [:])
        XCTAssertEqual(plain.status, 69, plain.stderr)
        XCTAssertEqual(plain.stderrLines.last, "hint: --keep-on-failure had nothing to keep: \(output) does not exist yet (the first fetch has to reach the API)")
        let github = fetch({ _ in .refuseConnection }, ["-o", output, "--retries", "0", "--keep-on-failure"], environment: Self.github)
        assertAllAnnotations(github)
        XCTAssertTrue(github.stderr.hasSuffix("%0Ahint: --keep-on-failure had nothing to keep: \(output) does not exist yet (the first fetch has to reach the API)\n"), github.stderr)
        // An invalid file: not kept, and said so.
        let broken = try scratch.file("appdna-config.json", Array("[1]".utf8))
        let invalid = fetch({ _ in .refuseConnection }, ["-o", broken, "--retries", "0", "--keep-on-failure"], environment: [:])
        XCTAssertEqual(invalid.status, 69, invalid.stderr)
        XCTAssertTrue(invalid.stderrLines.last?.hasPrefix("hint: --keep-on-failure had nothing to keep: \(broken) is invalid (") == true, invalid.stderr)
    }

    func testValidateFindingsAreAnnotationsInEveryFormat() throws {
        let warned = try scratch.file("warned.json", Array(#"""
        {"bundle_version": 1, "experiments": {"e": {"status": "running", "salt": "s",
          "variants": [{"id": "control", "weight": 0.57}, {"id": "b", "weight": 0.43}]}}}
        """#.utf8))
        let invalid = try scratch.file("invalid.json", Array(#"{"bundle_version": "one"}"#.utf8))
        let missing = scratch.path + "/missing.json"
        // JSON: stdout unchanged, the findings annotated on stderr.
        let json = runCLI(["bundle", "validate", warned, invalid, missing, "--format", "json", "--quiet"], environment: Self.github)
        XCTAssertEqual(json.status, 66, json.stderr)
        assertAllAnnotations(json)
        XCTAssertTrue(json.stderrLines.contains { $0.hasPrefix("::warning file=\(warned),line=2,col=") && $0.contains(",title=appdna W004::") }, json.stderr)
        XCTAssertTrue(json.stderrLines.contains { $0.hasPrefix("::error file=\(invalid),line=1,col=") }, json.stderr)
        XCTAssertTrue(json.stderrLines.contains("::error file=\(invalid)::appdna: \(invalid): invalid (1 error, 0 warnings)"), json.stderr)
        XCTAssertTrue(json.stderrLines.contains { $0.hasPrefix("::error file=\(missing)::appdna: \(missing): ") }, json.stderr)
        XCTAssertFalse(json.stdout.contains("::"), json.stdout)
        let plainJSON = runCLI(["bundle", "validate", warned, invalid, missing, "--format", "json", "--quiet"])
        XCTAssertEqual(plainJSON.stdout, json.stdout)
        assertNoAnnotations(plainJSON)
        // Text (issue 52): each finding once, as the annotation, not as a text line too.
        let text = runCLI(["bundle", "validate", warned, invalid, missing, "--quiet"], environment: Self.github)
        XCTAssertEqual(text.status, 66, text.stderr)
        assertAllAnnotations(text)
        let findings = (text.stdout + text.stderr).split(separator: "\n").filter { $0.contains("[W004]") || $0.contains("W004::") }
        XCTAssertEqual(findings.count, 1, text.stdout + text.stderr)
        XCTAssertTrue(text.stdout.split(separator: "\n").contains { $0.hasPrefix("::warning file=\(warned),line=2,col=") && $0.contains(",title=appdna W004::") }, text.stdout)
        XCTAssertTrue(text.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("::") }, text.stdout)
        XCTAssertTrue(text.stderrLines.contains("::error file=\(invalid)::appdna: \(invalid): invalid (1 error, 0 warnings)"), text.stderr)
        assertNoAnnotations(runCLI(["bundle", "validate", warned, invalid, missing, "--quiet"]))
        // Standard input is no file of the repository: no `file=`.
        let piped = runCLI(["bundle", "validate", "-", "--quiet"], environment: Self.github, stdin: #"{"bundle_version": "one"}"#)
        XCTAssertTrue(piped.stdout.hasPrefix("::error title=appdna "), piped.stdout)
        // ... so the line and column are in the message, as bundle fetch gives them.
        let malformed = runCLI(["bundle", "validate", "-", "--quiet"], environment: Self.github, stdin: "{\n  \"a\": 1,\n  \"b\": [1,,2]\n}\n")
        XCTAssertTrue(malformed.stdout.contains("::standard input, line 3, column 11: not JSON"), malformed.stdout)
        // --format github writes them on stdout already: stderr does not repeat them.
        let github = runCLI(["bundle", "validate", warned, invalid, "--format", "github", "--quiet"], environment: Self.github)
        XCTAssertEqual(github.status, 1)
        XCTAssertEqual(github.stderrLines, ["::error file=\(invalid)::appdna: \(invalid): invalid (1 error, 0 warnings)"])
        XCTAssertTrue(github.stdout.contains("::warning file=\(warned),line=2,"), github.stdout)
    }

    func testDiffFailOnSwitchPointsAtTheExperimentInNew() throws {
        func bundle(_ weights: (Double, Double)) -> [UInt8] {
            Array("""
            {
              "bundle_version": 1,
              "experiments": {
                "calm": {"status": "running", "salt": "c", "variants": [{"id": "a", "weight": 1}]},
                "moved": {"status": "running", "salt": "s",
                          "variants": [{"id": "a", "weight": \(weights.0)}, {"id": "b", "weight": \(weights.1)}]}
              }
            }
            """.utf8)
        }
        let old = try scratch.file("old.json", bundle((0.5, 0.5)))
        let new = try scratch.file("new.json", bundle((0.2, 0.8)))
        let run = runCLI(["bundle", "diff", "--fail-on-switch", "10", old, new, "--quiet"], environment: Self.github)
        XCTAssertEqual(run.status, 1, run.stderr)
        // `%` is `%25` in a workflow command's data (the runner decodes it).
        XCTAssertEqual(run.stderrLines, ["::error file=\(new),line=5::appdna: --fail-on-switch 10%25: \"moved\" moves 30%25 of its users to another variant"])
        let plain = runCLI(["bundle", "diff", "--fail-on-switch", "10", old, new, "--quiet"])
        XCTAssertEqual(plain.stderrLines, ["appdna: --fail-on-switch 10%: \"moved\" moves 30% of its users to another variant"])
        XCTAssertEqual(plain.stdout, run.stdout)
        // NEW from standard input: no file to point at.
        let piped = runCLI(["bundle", "diff", "--fail-on-switch", "10", old, "-", "--quiet"], environment: Self.github,
                           stdin: String(decoding: bundle((0.2, 0.8)), as: UTF8.self))
        XCTAssertEqual(piped.stderrLines, ["::error::appdna: --fail-on-switch 10%25: \"moved\" moves 30%25 of its users to another variant"])
    }
}
