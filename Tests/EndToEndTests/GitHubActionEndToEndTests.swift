import Foundation
import XCTest
import LoopbackHTTPServer
import TestSupport

/// The root action.yml, run the way GitHub's runner runs a composite action: each step's `run:`
/// by `bash --noprofile --norc -eo pipefail`, its `env:` evaluated (`inputs.*` with their
/// defaults, `steps.ID.outputs.*` from GITHUB_OUTPUT), GITHUB_ACTION_PATH the action's checkout,
/// GITHUB_PATH read after each step. The release it installs is the archive
/// scripts/package-archive makes of the release binary, served by a loopback server that
/// redirects the download as GitHub does; `fetch-to` talks to a loopback AppDNA API.
final class GitHubActionEndToEndTests: XCTestCase {
    static let action = repositoryRoot.appendingPathComponent("action.yml").path
    static let key = "adn_live_ACTIONsecretKEY0123456789zz3f9a"

    var scratch: ScratchDirectory!
    var workspace: String { scratch.path + "/workspace" }

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("action")
        try FileManager.default.createDirectory(atPath: workspace + "/MyApp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path + "/runner-temp", withIntermediateDirectories: true)
    }

    override func tearDown() { scratch.remove() }

    // MARK: - the release, served as GitHub serves it

    /// The archive for this machine under the name scripts/install-release asks for, with
    /// SHA256SUMS (`tamper` changes its line), behind `/releases/download/vVERSION/`, each
    /// file answered with a redirect to `/storage/NAME` first.
    func serveRelease(tamper: Bool = false) throws -> (server: LoopbackHTTPServer, version: String) {
        let version = try ReleaseBinary.version()
        let built = try runScript("scripts/package-archive", ["--binary", try ReleaseBinary.require(), "--output", scratch.path + "/dist"])
        XCTAssertEqual(built.status, 0, built.stderr)
        let archive = try Data(contentsOf: URL(fileURLWithPath: built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let name = "appdna-\(version)-\(Self.releasePlatform).tar.gz"
        var digest = try sha256Hex(built.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        if tamper { digest = String(digest.reversed()) }
        let files: [String: [UInt8]] = [name: [UInt8](archive), "SHA256SUMS": Array("\(digest)  \(name)\n".utf8)]
        let server = try LoopbackHTTPServer { request, _ in
            let prefix = "/releases/download/v\(version)/"
            if request.path.hasPrefix(prefix), files[String(request.path.dropFirst(prefix.count))] != nil {
                return .init(status: 302, headers: [("Location", "/storage/" + request.path.dropFirst(prefix.count))])
            }
            if request.path.hasPrefix("/storage/"), let body = files[String(request.path.dropFirst(9))] {
                return .init(status: 200, headers: [("Content-Type", "application/octet-stream")], body: body)
            }
            return .init(status: 404)
        }
        return (server, version)
    }

    /// What scripts/install-release downloads here: Linux archives per CPU, one universal macOS archive.
    static var releasePlatform: String {
        #if os(macOS)
        return "macos-universal"
        #else
        return ReleaseBinary.platform
        #endif
    }

    // MARK: - a composite action's runner

    struct Run {
        var status: Int32 = 0
        var log = ""
        var path: [String] = []
        var outputs: [String: [String: String]] = [:]
    }

    /// Runs the action's steps in order until one fails, as the runner does.
    func runAction(_ inputs: [String: String], environment: [String: String] = [:]) throws -> Run {
        let action = try loadYAML(Self.action)
        let declared = try XCTUnwrap(action["inputs"] as? [String: [String: Any]])
        for name in inputs.keys { XCTAssertNotNil(declared[name], "action.yml has no input \(name)") }
        var values: [String: String] = [:]
        for (name, spec) in declared {
            if let value = inputs[name] { values[name] = value; continue }
            if spec["required"] as? Bool == true { XCTFail("the required input \(name) is missing") }
            values[name] = spec["default"].map { "\($0)" } ?? ""
        }
        let runs = try XCTUnwrap(action["runs"] as? [String: Any])
        XCTAssertEqual(runs["using"] as? String, "composite")
        let steps = try XCTUnwrap(runs["steps"] as? [[String: Any]])

        var run = Run()
        for (index, step) in steps.enumerated() {
            XCTAssertEqual(step["shell"] as? String, "bash", "step \(index)")
            let script = try XCTUnwrap(step["run"] as? String, "step \(index) runs a script")
            let file = try scratch.file("step-\(index).sh", Array(script.utf8))
            let githubPath = try scratch.file("github-path-\(index)", []), githubOutput = try scratch.file("github-output-\(index)", [])
            var env = ["PATH": (Array(run.path.reversed()) + ["/usr/bin", "/bin"]).joined(separator: ":"), "HOME": scratch.path,
                       "CI": "true", "GITHUB_ACTIONS": "true", "RUNNER_TEMP": scratch.path + "/runner-temp",
                       "GITHUB_ACTION_PATH": repositoryRoot.path, "GITHUB_WORKSPACE": workspace,
                       "GITHUB_PATH": githubPath, "GITHUB_OUTPUT": githubOutput]
            env.merge(environment) { $1 }
            for (name, value) in step["env"] as? [String: String] ?? [:] {
                env[name] = try evaluate(value, inputs: values, outputs: run.outputs)
            }
            let result = try ProcessRunner.run("/bin/bash", ["--noprofile", "--norc", "-eo", "pipefail", file],
                                               environment: env, currentDirectory: workspace)
            run.log += result.stdout + result.stderr
            run.path += try String(contentsOfFile: githubPath, encoding: .utf8).split(separator: "\n").map(String.init)
            if let id = step["id"] as? String {
                let lines = try String(contentsOfFile: githubOutput, encoding: .utf8).split(separator: "\n")
                run.outputs[id] = Dictionary(lines.compactMap { line in
                    line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
                }) { $1 }
            }
            run.status = result.status
            if result.status != 0 { break }
        }
        return run
    }

    /// `${{ inputs.NAME }}` and `${{ steps.ID.outputs.NAME }}`, the only expressions the
    /// action's env uses; any other fails the test, so the runner here never guesses.
    func evaluate(_ value: String, inputs: [String: String], outputs: [String: [String: String]]) throws -> String {
        let regex = try NSRegularExpression(pattern: #"\$\{\{\s*([^}]*?)\s*\}\}"#)
        var result = value
        for match in regex.matches(in: value, range: NSRange(value.startIndex..., in: value)).reversed() {
            let expression = String(value[Range(match.range(at: 1), in: value)!])
            let parts = expression.split(separator: ".").map(String.init)
            let resolved: String
            if parts.count == 2, parts[0] == "inputs" {
                resolved = try XCTUnwrap(inputs[parts[1]], "no input \(parts[1])")
            } else if parts.count == 4, parts[0] == "steps", parts[2] == "outputs" {
                resolved = outputs[parts[1]]?[parts[3]] ?? ""
            } else {
                XCTFail("unsupported expression in action.yml: \(expression)")
                resolved = ""
            }
            result.replaceSubrange(Range(match.range, in: result)!, with: resolved)
        }
        return result
    }

    // MARK: - the tests

    func testInstallsTheReleaseForThisMachineAndPutsItOnPath() throws {
        let (server, version) = try serveRelease()
        defer { server.stop() }
        let run = try runAction(["version": "v" + version, "download-url": server.baseURL + "/releases/download"])
        XCTAssertEqual(run.status, 0, run.log)
        let bin = scratch.path + "/runner-temp/appdna/bin"
        XCTAssertEqual(run.path, [bin], run.log)
        XCTAssertEqual(run.outputs["install"]?["path"], bin + "/appdna")
        XCTAssertTrue(run.log.contains("verified appdna-\(version)-\(Self.releasePlatform).tar.gz"), run.log)
        // Both files came through GitHub's kind of redirect.
        let paths = server.requests.map(\.path)
        XCTAssertTrue(paths.contains("/storage/SHA256SUMS") && paths.contains("/storage/appdna-\(version)-\(Self.releasePlatform).tar.gz"), "\(paths)")

        // A later step of the job finds appdna on PATH.
        let later = try ProcessRunner.run("/bin/bash", ["-c", "appdna --version"], environment: ["PATH": bin + ":/usr/bin:/bin"])
        XCTAssertEqual(later.stdout, "appdna \(version)\n", later.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.path + "/runner-temp/appdna/share/man/man1/appdna.1"))
    }

    func testFetchesTheBundleThenChecksIt() throws {
        let (server, version) = try serveRelease()
        defer { server.stop() }
        let api = try FakeBundleAPI.serving(version: 42)
        defer { api.stop() }
        let environment = ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": api.baseURL]
        var inputs = ["version": version, "download-url": server.baseURL + "/releases/download",
                      "fetch-to": "MyApp/appdna-config.json"]
        let fetch = try runAction(inputs, environment: environment)
        XCTAssertEqual(fetch.status, 0, fetch.log)
        let written = try String(contentsOfFile: workspace + "/MyApp/appdna-config.json", encoding: .utf8)
        XCTAssertTrue(written.contains("\"bundle_version\": 42"), written)
        XCTAssertFalse(fetch.log.contains(Self.key), "the key never appears in the log")

        inputs["check"] = "true"
        let check = try runAction(inputs, environment: environment)
        XCTAssertEqual(check.status, 0, check.log)
        XCTAssertTrue(check.log.contains("up to date (bundle_version 42)"), check.log)

        let newer = try FakeBundleAPI.serving(version: 43)
        defer { newer.stop() }
        let behind = try runAction(inputs, environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": newer.baseURL])
        XCTAssertEqual(behind.status, 1, behind.log)
        XCTAssertTrue(behind.log.contains("behind: file bundle_version 42, live bundle_version 43"), behind.log)
        XCTAssertEqual(try String(contentsOfFile: workspace + "/MyApp/appdna-config.json", encoding: .utf8), written, "--check writes nothing")
    }

    func testRefusesAnArchiveWhoseChecksumDiffersAndInstallsNothing() throws {
        let (server, version) = try serveRelease(tamper: true)
        defer { server.stop() }
        let run = try runAction(["version": version, "download-url": server.baseURL + "/releases/download"])
        XCTAssertEqual(run.status, 65, run.log)
        XCTAssertTrue(run.log.contains("SHA-256 mismatch"), run.log)
        XCTAssertEqual(run.path, [], "nothing goes on PATH")
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path + "/runner-temp/appdna"))
    }

    func testAReleaseThatDoesNotExistFailsNamingTheURL() throws {
        let (server, _) = try serveRelease()
        defer { server.stop() }
        let run = try runAction(["version": "9.9.9", "download-url": server.baseURL + "/releases/download"])
        XCTAssertEqual(run.status, 69, run.log)
        XCTAssertTrue(run.log.contains("could not download \(server.baseURL)/releases/download/v9.9.9/appdna-9.9.9-\(Self.releasePlatform).tar.gz"), run.log)
    }

    /// Both refused by the first step, before anything is downloaded.
    func testCheckMustBeABooleanAndNeedsFetchTo() throws {
        let server = try recordingServer()
        defer { server.stop() }
        let url = server.baseURL + "/releases/download"
        let notBoolean = try runAction(["version": "1.2.3", "download-url": url, "fetch-to": "a.json", "check": "yes"])
        XCTAssertEqual(notBoolean.status, 64, notBoolean.log)
        XCTAssertTrue(notBoolean.log.contains("::error::check must be true or false, not yes\n"), notBoolean.log)
        let nothingToCheck = try runAction(["version": "1.2.3", "download-url": url, "check": "true"])
        XCTAssertEqual(nothingToCheck.status, 64, nothingToCheck.log)
        XCTAssertTrue(nothingToCheck.log.contains("::error::check: true needs fetch-to"), nothingToCheck.log)
        XCTAssertEqual(server.requests.map(\.path), [], "nothing is downloaded")
    }

    // MARK: - hostile inputs (issue 42): an input is data, never a workflow command or a curl option

    /// The lines of a step's log that GitHub's runner reads as workflow commands: those that
    /// start with `::` once leading white space is trimmed (a CR ends a line as LF does).
    static func workflowCommands(_ log: String) -> [String] {
        log.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map { $0.drop { $0 == " " || $0 == "\t" } }.filter { $0.hasPrefix("::") }.map(String.init)
    }

    /// A server that answers every request 404 and records it: any request means the action
    /// went on to download when it should have stopped.
    func recordingServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { _, _ in .init(status: 404) }
    }

    /// `check` is `true` or `false`, nothing else; a refused value is shown on one line, so a
    /// newline in it cannot start a workflow command of its own (`::error::x` would annotate the
    /// run, `::add-mask::` hide text, `::stop-commands::` silence the rest). Refused before
    /// anything is downloaded.
    func testACheckValueOtherThanTrueOrFalseIsRefusedAndPrintsNoWorkflowCommand() throws {
        let server = try recordingServer()
        defer { server.stop() }
        let hostile = ["true\n::error::x", "yes", "TRUE", "true ", "::warning::x", "false\r\n::add-mask::x",
                       "false\n::stop-commands::token"]
        for value in hostile {
            let run = try runAction(["version": "1.2.3", "download-url": server.baseURL + "/releases/download",
                                     "fetch-to": "a.json", "check": value])
            XCTAssertEqual(run.status, 64, "\(value.debugDescription): \(run.log)")
            let commands = Self.workflowCommands(run.log)
            XCTAssertEqual(commands.count, 1, "\(value.debugDescription): one workflow command, the refusal: \(commands)")
            XCTAssertTrue(commands.first?.hasPrefix("::error::check must be true or false, not ") == true, "\(commands)")
        }
        let newline = try runAction(["version": "1.2.3", "download-url": server.baseURL, "fetch-to": "a.json", "check": "true\n::error::x"])
        XCTAssertTrue(newline.log.contains("::error::check must be true or false, not $'true\\n::error::x'\n"), newline.log)
        XCTAssertEqual(server.requests.map(\.path), [], "nothing is downloaded once an input is refused")
    }

    /// `download-url` must be an http(s) URL without spaces or control characters; anything
    /// else is refused by name (64) before curl runs.
    func testADownloadURLThatIsNotHTTPIsRefusedByName() throws {
        for value in ["-K /tmp/file", "file:///etc", "ftp://x", "--config=/tmp/file", "http://x\n::error::y", "https://x y"] {
            let run = try runAction(["version": "1.2.3", "download-url": value])
            XCTAssertEqual(run.status, 64, "\(value.debugDescription): \(run.log)")
            XCTAssertTrue(run.log.contains("install-release: --base-url (the action's download-url) must be"), "\(value.debugDescription): \(run.log)")
            XCTAssertEqual(Self.workflowCommands(run.log), [], "\(value.debugDescription): \(run.log)")
            XCTAssertEqual(run.path, [], "nothing goes on PATH")
        }
    }

    /// `-K FILE` used to reach curl as an option: curl read FILE as its configuration, which can
    /// name any URL, output file or header. Here a config is planted where a download-url of
    /// `-KDIR` made curl look for it (DIR/vVERSION/ARCHIVE), naming a URL on a loopback server:
    /// that server must never be asked.
    func testADownloadURLStartingWithADashIsNeverACurlOption() throws {
        let server = try recordingServer()
        defer { server.stop() }
        let directory = scratch.path + "/planted"
        let version = "1.2.3"
        for file in ["appdna-\(version)-\(Self.releasePlatform).tar.gz", "SHA256SUMS"] {
            try FileManager.default.createDirectory(atPath: directory + "/v" + version, withIntermediateDirectories: true)
            try Data("url = \"\(server.baseURL)/planted-config-was-read\"\n".utf8)
                .write(to: URL(fileURLWithPath: directory + "/v" + version + "/" + file))
        }
        let run = try runAction(["version": version, "download-url": "-K" + directory])
        XCTAssertEqual(server.requests.map(\.path), [], "curl read the planted config: \(run.log)")
        XCTAssertEqual(run.status, 64, run.log)
        XCTAssertTrue(run.log.contains("must be an http:// or https:// URL, not -K" + directory), run.log)
    }

    /// docs/ci.md installs appdna with this action, at the release the sources declare, with
    /// inputs the action has.
    func testTheCIGuideUsesTheActionAtThisRelease() throws {
        let version = try ReleaseBinary.version()
        let guide = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/ci.md"), encoding: .utf8)
        XCTAssertTrue(guide.contains("uses: appdna/appdna-cli@v\(version)\n"), "docs/ci.md: uses: appdna/appdna-cli@v\(version)")
        let declared = try XCTUnwrap(try loadYAML(Self.action)["inputs"] as? [String: Any])
        let regex = try NSRegularExpression(pattern: #"uses: appdna/appdna-cli@v[^\n]*\n  with:\n((?:    [a-z-]+: [^\n]*\n)+)"#)
        let blocks = regex.matches(in: guide, range: NSRange(guide.startIndex..., in: guide))
        XCTAssertGreaterThanOrEqual(blocks.count, 2, "the guide shows installing, and fetching with the action")
        for block in blocks {
            for line in guide[Range(block.range(at: 1), in: guide)!].split(separator: "\n") {
                let name = String(line.trimmingCharacters(in: .whitespaces).split(separator: ":")[0])
                XCTAssertNotNil(declared[name], "docs/ci.md uses the input \(name), which action.yml does not declare")
            }
        }
    }
}
