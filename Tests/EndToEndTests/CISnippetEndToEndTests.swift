import Foundation
import XCTest
import LoopbackHTTPServer
import TestSupport

/// The CI guide's Xcode build phase and GitHub Actions steps, taken verbatim from docs/ci.md and
/// run by the shells those systems use (Xcode: /bin/sh with SRCROOT and CONFIGURATION; GitHub:
/// `bash --noprofile --norc -eo pipefail` in the workspace with GITHUB_ACTIONS=true) against
/// the loopback API: up to date, a newer bundle, and the API down (kept, or failing the build).
final class CISnippetEndToEndTests: XCTestCase {
    static let key = "adn_live_SNIPPETsecretKEY0123456789zz3f9a"
    static let guide = repositoryRoot.appendingPathComponent("docs/ci.md")
    /// Where the snippets write the bundle, relative to SRCROOT / the workspace.
    static let bundlePath = "MyApp/Resources/appdna-config.json"

    var directory: URL!
    var project: String { directory.appendingPathComponent("project").path }
    var bundle: String { project + "/" + Self.bundlePath }
    var home: String { directory.appendingPathComponent("home").path }
    var bin: String { directory.appendingPathComponent("bin").path }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-snippets-\(UUID().uuidString)")
        let fm = FileManager.default
        try fm.createDirectory(atPath: project + "/MyApp/Resources", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: home + "/.appdna", withIntermediateDirectories: true)
        try Data((Self.key + "\n").utf8).write(to: URL(fileURLWithPath: home + "/.appdna/sdk-key"))
        // `appdna` on PATH, as the install step leaves it.
        try fm.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: bin + "/appdna", withDestinationPath: Binary.url.path)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - the snippets, as written in docs/ci.md

    /// The body of the first fenced block with `language` after the heading `heading`.
    static func block(after heading: String, language: String) throws -> String {
        let text = try String(contentsOf: guide, encoding: .utf8)
        let section = try XCTUnwrap(text.range(of: "\n" + heading + "\n"), "docs/ci.md has no \(heading)")
        let open = try XCTUnwrap(text.range(of: "\n```" + language + "\n", range: section.upperBound..<text.endIndex))
        let close = try XCTUnwrap(text.range(of: "\n```\n", range: open.upperBound..<text.endIndex))
        return String(text[open.upperBound..<close.lowerBound]) + "\n"
    }

    static func xcodeScript() throws -> String { try block(after: "## Xcode build phase", language: "sh") }

    /// The `run:` of the GitHub Actions step named `name` (a one-line `run:` or a `run: |` block).
    static func githubRun(step name: String) throws -> (condition: String, script: String) {
        let yaml = try block(after: "## GitHub Actions and Fastlane", language: "yaml")
        let steps = yaml.components(separatedBy: "\n- name: ").map { $0.hasPrefix("- name: ") ? String($0.dropFirst(8)) : $0 }
        let step = try XCTUnwrap(steps.first { $0.hasPrefix(name + "\n") }, "no step named \(name)")
        let lines = step.components(separatedBy: "\n")
        let condition = lines.first { $0.hasPrefix("  if: ") }.map { String($0.dropFirst(6)) } ?? ""
        let runIndex = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("  run: ") })
        let value = String(lines[runIndex].dropFirst(7))
        guard value == "|" else { return (condition, value + "\n") }
        let body = lines[(runIndex + 1)...].prefix { $0.hasPrefix("    ") || $0.isEmpty }.map { String($0.dropFirst(4)) }
        return (condition, body.joined(separator: "\n") + "\n")
    }

    static let fetchStep = "Fetch the AppDNA config bundle"
    static let checkStep = "Check that the release ships the live AppDNA bundle"

    func runXcode(configuration: String, api: String) throws -> ProcessRunner.Output {
        let script = directory.appendingPathComponent("Script-appdna.sh").path
        try Data(try Self.xcodeScript().utf8).write(to: URL(fileURLWithPath: script))
        // Xcode writes the phase to an executable file and runs `/bin/sh -c FILE`.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        // What Xcode sets for a Run Script phase (the relevant part); the API URL points at the fake.
        let environment = ["PATH": "\(bin):/usr/bin:/bin", "HOME": home, "SRCROOT": project, "PROJECT_DIR": project,
                           "CONFIGURATION": configuration, "ACTION": "build", "TARGET_NAME": "MyApp",
                           "APPDNA_API_URL": api]
        return try ProcessRunner.run("/bin/sh", ["-c", script], environment: environment, currentDirectory: project)
    }

    func runGitHub(step: String, api: String, ref: String) throws -> ProcessRunner.Output {
        let (condition, run) = try Self.githubRun(step: step)
        // Tag builds run the check, other builds the fetch: what the steps' `if:` say.
        XCTAssertEqual(condition.contains("!startsWith(github.ref, 'refs/tags/')"), step == Self.fetchStep, condition)
        XCTAssertEqual(ref.hasPrefix("refs/tags/"), step == Self.checkStep, "the test runs the step on the ref its if: selects")
        let script = directory.appendingPathComponent("step.sh").path
        try Data(run.utf8).write(to: URL(fileURLWithPath: script))
        let environment = ["PATH": "\(bin):/usr/bin:/bin", "HOME": home, "CI": "true", "GITHUB_ACTIONS": "true",
                           "GITHUB_WORKSPACE": project, "GITHUB_REF": ref, "RUNNER_OS": "Linux",
                           "APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": api]
        return try ProcessRunner.run("/bin/bash", ["--noprofile", "--norc", "-eo", "pipefail", script],
                                     environment: environment, currentDirectory: project)
    }

    func writeBundle(version: Int) throws -> Data {
        let bytes = FakeBundleAPI.bundleFile(version: version)
        try bytes.write(to: URL(fileURLWithPath: bundle))
        return bytes
    }

    func fileBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: bundle)) }

    func assertNoKey(_ output: ProcessRunner.Output, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(output.stdout.contains(Self.key) || output.stderr.contains(Self.key), "the key was printed", file: file, line: line)
    }

    /// "API down" as a load balancer without backends says it: 503 at once, Retry-After: 0 (so
    /// the retries take no time); the refused connection is covered by the GitHub cases.
    static func unavailable() throws -> LoopbackHTTPServer {
        try FakeBundleAPI.failing(.init(status: 503, headers: [("Retry-After", "0")]))
    }

    // MARK: - Xcode

    func testXcodePhaseUpToDateAndNewerBundle() throws {
        let current = try writeBundle(version: 42)
        let server = try FakeBundleAPI.serving(version: 42)
        for configuration in ["Debug", "Release"] {
            let result = try runXcode(configuration: configuration, api: server.baseURL)
            assertNoKey(result)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.stderr.contains("up to date (bundle_version 42)"), result.stderr)
            XCTAssertEqual(try fileBytes(), current)
        }
        XCTAssertFalse(server.requests.contains { $0.path == "/api/v1/sdk/config-bundle" }, "an up-to-date bundle was downloaded")

        for configuration in ["Debug", "Release"] {
            _ = try writeBundle(version: 41)
            let result = try runXcode(configuration: configuration, api: server.baseURL)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(String(decoding: try fileBytes(), as: UTF8.self), BundleFetchEndToEndTests.expectedSDKFile)
        }
    }

    func testXcodePhaseWithTheAPIDownKeepsTheBundleInDebugAndFailsARelease() throws {
        let kept = try writeBundle(version: 41)
        let server = try Self.unavailable()
        let debug = try runXcode(configuration: "Debug", api: server.baseURL)
        assertNoKey(debug)
        XCTAssertEqual(debug.status, 0, debug.stderr)
        XCTAssertEqual(debug.stderr.split(separator: "\n").count, 1, debug.stderr)
        // The failure named may be the version check's or the download's (they share --retries).
        XCTAssertTrue(debug.stderr.hasPrefix("warning: appdna bundle fetch: kept \(bundle) (bundle_version 41): GET \(server.baseURL)/api/v1/sdk/config-bundle"), debug.stderr)
        XCTAssertTrue(debug.stderr.contains(": HTTP 503 Service Unavailable"), debug.stderr)
        XCTAssertEqual(try fileBytes(), kept)

        let release = try runXcode(configuration: "Release", api: server.baseURL)
        XCTAssertEqual(release.status, 75, release.stderr)
        XCTAssertTrue(release.stderr.hasPrefix("appdna: GET \(server.baseURL)/api/v1/sdk/config-bundle"), release.stderr)
        XCTAssertTrue(release.stderr.contains(": HTTP 503"), release.stderr)
        XCTAssertFalse(release.stderr.contains("warning"), release.stderr)
        XCTAssertEqual(try fileBytes(), kept)
    }

    // MARK: - GitHub Actions

    func testGitHubStepsUpToDateAndNewerBundle() throws {
        let server = try FakeBundleAPI.serving(version: 42)
        let current = try writeBundle(version: 42)
        let fetch = try runGitHub(step: Self.fetchStep, api: server.baseURL, ref: "refs/heads/main")
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        XCTAssertEqual(try fileBytes(), current)
        let check = try runGitHub(step: Self.checkStep, api: server.baseURL, ref: "refs/tags/v1.2.0")
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertEqual(check.stdout, "up to date (bundle_version 42)\n")

        // A release tagged with a stale committed bundle fails; a branch build refreshes it.
        let stale = try writeBundle(version: 41)
        let gate = try runGitHub(step: Self.checkStep, api: server.baseURL, ref: "refs/tags/v1.2.1")
        XCTAssertEqual(gate.status, 1, gate.stderr)
        XCTAssertEqual(gate.stdout, "behind: file bundle_version 41, live bundle_version 42\n")
        XCTAssertTrue(gate.stderr.hasPrefix("::error file=\(Self.bundlePath)::appdna: \(Self.bundlePath) is not the live bundle (bundle_version 42); run "), gate.stderr)
        XCTAssertEqual(try fileBytes(), stale)
        let refresh = try runGitHub(step: Self.fetchStep, api: server.baseURL, ref: "refs/heads/main")
        XCTAssertEqual(refresh.status, 0, refresh.stderr)
        XCTAssertEqual(String(decoding: try fileBytes(), as: UTF8.self), BundleFetchEndToEndTests.expectedSDKFile)
        XCTAssertEqual(server.requests.filter { $0.path == "/api/v1/sdk/config-bundle" }.count, 1, "only the stale bundle was downloaded")
    }

    func testGitHubStepsWithTheAPIDownAnnotateABuildAndFailARelease() throws {
        let kept = try writeBundle(version: 41)
        let fetch = try runGitHub(step: Self.fetchStep, api: FakeBundleAPI.refusedURL, ref: "refs/heads/main")
        assertNoKey(fetch)
        XCTAssertEqual(fetch.status, 0, fetch.stderr)
        XCTAssertEqual(fetch.stderr.split(separator: "\n").count, 1, fetch.stderr)
        XCTAssertTrue(fetch.stderr.hasPrefix("::warning file=\(Self.bundlePath)::appdna bundle fetch: kept \(Self.bundlePath) (bundle_version 41): cannot reach 127.0.0.1:9: "), fetch.stderr)
        XCTAssertEqual(try fileBytes(), kept)

        let server = try Self.unavailable()
        let check = try runGitHub(step: Self.checkStep, api: server.baseURL, ref: "refs/tags/v1.2.0")
        XCTAssertEqual(check.status, 75, check.stderr)
        XCTAssertEqual(check.stdout, "")
        // An annotation on the pull request, not only a line in the log (issue 44).
        XCTAssertTrue(check.stderr.hasPrefix("::error::appdna: GET \(server.baseURL)/api/v1/sdk/config-bundle/version: HTTP 503"), check.stderr)
        XCTAssertEqual(try fileBytes(), kept)
    }
}
