import Foundation
import XCTest
import TestSupport

/// The workflows (`.github/workflows/ci.yml`, `release.yml`, `tsan.yml`) and the root `action.yml` cannot
/// run here, so they are checked the way GitHub would read them: against GitHub's published
/// schemas (check-jsonschema carries them: no download; the check runs with the network cut off
/// where user namespaces allow), and every `run:` script through shellcheck as bash. CI must
/// keep running the README's command on the runners the issues name.
final class WorkflowLintTests: XCTestCase {
    static let workflow = repositoryRoot.appendingPathComponent(".github/workflows/ci.yml")
    static let release = repositoryRoot.appendingPathComponent(".github/workflows/release.yml")
    static let tsan = repositoryRoot.appendingPathComponent(".github/workflows/tsan.yml")
    static let action = repositoryRoot.appendingPathComponent("action.yml")

    /// check-jsonschema with one of its built-in schemas, offline.
    func checkSchema(_ schema: String, _ file: URL) throws -> (status: Int32, output: String) {
        let checker = try requireTool("check-jsonschema", because: "checks the workflows and the action against GitHub's schemas")
        var command = [checker, "--builtin-schema", schema, file.path]
        // A network namespace of our own has no interface but loopback: proof that the schemas
        // come from the package, not from the internet.
        if let unshare = findTool("unshare"), (try? runProgram(unshare, ["-rn", "true"]).status) == 0 {
            command = [unshare, "-rn"] + command
        }
        let result = try runProgram(command[0], Array(command.dropFirst()))
        return (result.status, result.stdout + result.stderr)
    }

    func testWorkflowsMatchGitHubsWorkflowSchema() throws {
        for workflow in [Self.workflow, Self.release, Self.tsan] {
            let result = try checkSchema("vendor.github-workflows", workflow)
            XCTAssertEqual(result.status, 0, workflow.lastPathComponent + ": " + result.output)
        }
    }

    func testActionMatchesGitHubsActionSchema() throws {
        let result = try checkSchema("vendor.github-actions", Self.action)
        XCTAssertEqual(result.status, 0, result.output)
    }

    /// The schema check can fail: a workflow with a misspelt key does.
    func testTheSchemaCheckRejectsAMisspeltKey() throws {
        let text = try String(contentsOf: Self.release, encoding: .utf8)
        let scratch = try ScratchDirectory("workflow-schema")
        defer { scratch.remove() }
        let broken = try scratch.file("release.yml", Array(text.replacingOccurrences(of: "runs-on:", with: "run-on:").utf8))
        XCTAssertNotEqual(try checkSchema("vendor.github-workflows", URL(fileURLWithPath: broken)).status, 0)
        let action = try String(contentsOf: Self.action, encoding: .utf8)
        let brokenAction = try scratch.file("action.yml", Array(action.replacingOccurrences(of: "using: composite", with: "using: compost").utf8))
        XCTAssertNotEqual(try checkSchema("vendor.github-actions", URL(fileURLWithPath: brokenAction)).status, 0)
    }

    func testWorkflowRunsTheReadmeCommandOnLinuxArmAndMacOS() throws {
        let text = try String(contentsOf: Self.workflow, encoding: .utf8)
        // Intel macOS: macos-13 is retired; macos-15-intel is GitHub's x86_64 macOS image.
        for runner in ["ubuntu-latest", "ubuntu-24.04-arm", "macos-14", "macos-15", "macos-15-intel"] {
            XCTAssertTrue(["\n", ",", "]"].contains { text.contains(runner + $0) }, "the workflow runs on \(runner)")
        }
        XCTAssertEqual(text.components(separatedBy: "run: .ci/run").count - 1, 2, "both jobs run .ci/run")
        let ciRun = try String(contentsOf: repositoryRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        let command = try XCTUnwrap(ciRun.split(separator: "\n").last { $0.hasPrefix("scripts/install-test-tools && ") }, ciRun)
        XCTAssertTrue(command.contains("APPDNA_TEST_BINARY=\"$PWD/.build/release/appdna\" scripts/test --parallel"),
                      "the end-to-end tests run the release binary it built")
        // .ci/run's command is the README's and docs/development.md's test command, word for word
        // as on Linux (where the static flag is passed).
        let onLinux = command.replacingOccurrences(of: #"${static[@]+"${static[@]}"}"#, with: "--static-swift-stdlib")
        // The release build is the install's (scripts/install): the same product and flags, so
        // after the README's install command it compiles nothing again.
        XCTAssertTrue(onLinux.contains("swift build -c release --product appdna --static-swift-stdlib && "), onLinux)
        let install = try String(contentsOf: repositoryRoot.appendingPathComponent("scripts/install"), encoding: .utf8)
        XCTAssertTrue(install.contains("build=(swift build -c release --product appdna)") && install.contains("build+=(--static-swift-stdlib)"),
                      "scripts/install builds what the test command builds")
        for document in ["README.md", "docs/development.md"] {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8)
            XCTAssertTrue(text.contains("\n" + onLinux + "\n"), "\(document) shows .ci/run's command: \(onLinux)")
        }
        // SwiftPM links the Swift runtime statically on Linux only.
        XCTAssertTrue(ciRun.contains(#"[ "$(uname -s)" = Linux ] && static=(--static-swift-stdlib)"#), ".ci/run passes --static-swift-stdlib on Linux only")
        // Availability against the macOS target, on Linux (AvailabilityCheckTests also runs it).
        XCTAssertTrue(text.contains("run: swift build --build-tests && scripts/check-availability"))
        // The Homebrew job builds the checkout under test, not upstream's main.
        XCTAssertTrue(text.contains("scripts/homebrew-formula --checkout"))
        XCTAssertFalse(text.contains("--HEAD"), "brew install --HEAD builds upstream main, not this checkout")
    }

    func testEveryRunScriptPassesShellcheck() throws {
        let shellcheck = try requireTool("shellcheck", because: "lints the workflows' shell steps")
        let scratch = try ScratchDirectory("workflow")
        defer { scratch.remove() }
        var count = 0
        for file in [Self.workflow, Self.release, Self.tsan, Self.action] {
            let scripts = Self.runScripts(try String(contentsOf: file, encoding: .utf8))
            XCTAssertGreaterThanOrEqual(scripts.count, 2, file.lastPathComponent)
            for (index, script) in scripts.enumerated() {
                // GitHub expressions are replaced by a plain word, as actionlint does before shellcheck.
                let plain = script.replacingOccurrences(of: #"\$\{\{[^}]*\}\}"#, with: "EXPR", options: .regularExpression)
                let path = try scratch.file("run-\(count).sh", Array(("#!/usr/bin/env bash\nset -eo pipefail\n" + plain).utf8))
                count += 1
                let result = try runProgram(shellcheck, ["-s", "bash", path])
                XCTAssertEqual(result.status, 0, "\(file.lastPathComponent) run script \(index):\n\(script)\n\(result.stdout)")
            }
        }
        XCTAssertGreaterThanOrEqual(count, 20)
    }

    /// An input or a ref pasted into a script's text is a script injection (a branch named
    /// `$(curl …)`); the values reach the scripts through `env:` instead.
    func testNoRunScriptPastesAnExpression() throws {
        for file in [Self.workflow, Self.release, Self.tsan, Self.action] {
            for script in Self.runScripts(try String(contentsOf: file, encoding: .utf8)) {
                XCTAssertFalse(script.contains("${{"), "\(file.lastPathComponent): use env: for \(script)")
            }
        }
    }

    /// The release builds what users download on each platform, and publishes them with checksums.
    func testReleaseBuildsEachPlatformAndPublishesChecksums() throws {
        let text = try String(contentsOf: Self.release, encoding: .utf8)
        XCTAssertTrue(text.contains("tags: ['v*']"))
        for line in ["scripts/package-archive --binary .build/release/appdna --max-glibc 2.31 --output dist",
                     "scripts/package-archive --output dist", "image: swift:6.1-focal", "platform: linux-arm64", "platform: linux-x86_64",
                     "sha256sum -- *.tar.gz *.deb > SHA256SUMS", "scripts/homebrew-formula --tag \"$GITHUB_REF_NAME\"",
                     "uses: ./", "runner: [macos-14, macos-15, macos-15-intel]"] {
            XCTAssertTrue(text.contains(line), line)
        }
    }

    /// Every action a workflow or the action uses is pinned to a full commit SHA (a tag can be
    /// moved to other code; the release job can write releases), with its version in a comment,
    /// and Dependabot keeps those pins current. A local action (`./`) is the checkout itself.
    func testEveryUsesIsPinnedToACommitSHA() throws {
        var pinned = 0
        for file in [Self.workflow, Self.release, Self.action] + Self.otherWorkflows() {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                var key = line.trimmingCharacters(in: .whitespaces)
                if key.hasPrefix("- ") { key.removeFirst(2) }
                guard key.hasPrefix("uses:") else { continue }
                let value = key.dropFirst("uses:".count).trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("./") { continue }
                let pin = #"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40} # v[0-9]+(\.[0-9]+)*$"#
                XCTAssertNotNil(value.range(of: pin, options: .regularExpression),
                                "\(file.lastPathComponent): \(value) is not `owner/repo@<40-hex SHA> # vX.Y.Z`")
                pinned += 1
            }
        }
        XCTAssertGreaterThanOrEqual(pinned, 12)
        let dependabot = repositoryRoot.appendingPathComponent(".github/dependabot.yml")
        let result = try checkSchema("vendor.dependabot", dependabot)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(try String(contentsOf: dependabot, encoding: .utf8).contains("package-ecosystem: github-actions"))
    }

    /// The pin check can fail: a tag, a short SHA or a SHA without its version does.
    func testThePinCheckRejectsTagsAndBareSHAs() throws {
        let pin = #"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40} # v[0-9]+(\.[0-9]+)*$"#
        for unpinned in ["actions/checkout@v4", "actions/checkout@11bd719", "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"] {
            XCTAssertNil(unpinned.range(of: pin, options: .regularExpression), unpinned)
        }
        XCTAssertNotNil("actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2".range(of: pin, options: .regularExpression))
    }

    /// Workflows besides ci.yml and release.yml (another engineer's tsan.yml, for one).
    static func otherWorkflows() -> [URL] {
        let directory = repositoryRoot.appendingPathComponent(".github/workflows")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".yml") && $0 != "ci.yml" && $0 != "release.yml" }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// The Linux jobs run in a Debian-based Swift image, where `apt-get install chromium
    /// chromium-driver` installs a real browser (Ubuntu's are stubs of a snap, which a container
    /// cannot run), privileged so that the install test can make its namespace.
    func testLinuxJobsRunWhereTheBrowserIsARealPackage() throws {
        let text = try String(contentsOf: Self.workflow, encoding: .utf8)
        XCTAssertTrue(text.contains("image: swift:6.1-bookworm"), "the Linux jobs' image")
        XCTAssertFalse(text.contains("-noble") || text.contains("-jammy") || text.contains("-focal"), "no Ubuntu image in ci.yml")
        XCTAssertTrue(text.contains("options: --privileged"))
    }

    /// The ThreadSanitizer job (issue 42) runs scripts/tsan-check, then its planted race, on
    /// Linux in the Swift image; every test class the check names exists (a misspelt one would
    /// match nothing and pass), and the shell scripts it runs pass shellcheck.
    func testTheTSanWorkflowRunsTheCheckAndThePlantedRace() throws {
        let text = try String(contentsOf: Self.tsan, encoding: .utf8)
        let steps = Self.runScripts(text)
        XCTAssertTrue(steps.contains("scripts/tsan-check"), "\(steps)")
        XCTAssertTrue(steps.contains("SKIP_BUILD=1 scripts/tsan-check --plant"), "\(steps)")
        XCTAssertTrue(text.contains("image: swift:6.1-"), "the official Swift image")
        XCTAssertTrue(text.contains("  pull_request:\n") && text.contains("branches: [main]"), "on every pull request and push to main")
        let uses = text.split(separator: "\n").filter { $0.contains("uses: ") }
        XCTAssertFalse(uses.isEmpty)
        for line in uses {
            XCTAssertNotNil(line.firstMatch(of: /uses: [A-Za-z0-9_.\/-]+@[0-9a-f]{40} # v[0-9.]+$/), "pinned to a commit, its tag in a comment: \(line)")
        }

        let check = repositoryRoot.appendingPathComponent("scripts/tsan-check")
        let script = try String(contentsOf: check, encoding: .utf8)
        XCTAssertTrue(script.contains("--sanitize=thread --build-path \"$BUILD_PATH\""), "built and run with TSan")
        XCTAssertTrue(script.contains(#""$ROOT/scripts/tsan-replay""#), "queue replay's senders in the built binary")
        XCTAssertTrue(script.contains(#"SKIP_BUILD=1 "$ROOT/scripts/tsan-servers""#), "the servers in the built binary")
        let list = try XCTUnwrap(script.firstMatch(of: /\nTESTS=\(\n((?:    [A-Za-z.]+\n)+)\)\n/), "TESTS=( … ) in scripts/tsan-check")
        let named = list.1.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertGreaterThanOrEqual(named.count, 8)
        for name in named {
            let parts = name.split(separator: ".").map(String.init)
            XCTAssertEqual(parts.count, 2, name)
            let directory = repositoryRoot.appendingPathComponent("Tests/" + parts[0])
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
            let declared = try files.contains { file in
                try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8).contains("final class \(parts[1]): XCTestCase")
            }
            XCTAssertTrue(declared, "scripts/tsan-check names \(name), which Tests/\(parts[0]) does not declare")
        }
        XCTAssertTrue(named.contains("AppDNACoreTests.PlantedDataRaceTests"), "the harness's locked run is checked too")

        let shellcheck = try requireTool("shellcheck", because: "lints the TSan scripts")
        for name in ["scripts/tsan-check", "scripts/tsan-servers", "scripts/tsan-replay"] {
            let result = try runProgram(shellcheck, [repositoryRoot.appendingPathComponent(name).path])
            XCTAssertEqual(result.status, 0, name + ":\n" + result.stdout)
        }
    }

    /// The jobs of a workflow: name and the lines of its block (`jobs:` children, two spaces in).
    static func jobs(_ yaml: String) -> [(name: String, lines: [String])] {
        var jobs: [(name: String, lines: [String])] = []
        var inJobs = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "jobs:" { inJobs = true; continue }
            guard inJobs else { continue }
            if let name = line.firstMatch(of: /^  ([A-Za-z0-9_-]+):$/)?.1 {
                jobs.append((String(name), []))
            } else if !jobs.isEmpty {
                jobs[jobs.count - 1].lines.append(line)
            }
        }
        return jobs
    }

    static let markSafe = #"run: git config --global --add safe.directory "$GITHUB_WORKSPACE""#

    /// A job in a container runs as root in a workspace the runner's user (uid 1001) owns: git
    /// refuses that checkout ("detected dubious ownership"), and actions/checkout's own marking
    /// does not reach later steps. Every such job marks the workspace safe right after the
    /// checkout, before any step of its own runs (ForeignOwnedCheckoutEndToEndTests shows what
    /// git does otherwise). A job in a bare Debian image (no git: the clean machines that install
    /// the release) runs no git at all.
    func testEveryContainerJobMarksTheWorkspaceSafeBeforeAnyStepOfItsOwn() throws {
        var marked: [String] = []
        for workflow in [Self.workflow, Self.release] + Self.otherWorkflows() {
            for job in Self.jobs(try String(contentsOf: workflow, encoding: .utf8)) where job.lines.contains("    container:") {
                let place = "\(workflow.lastPathComponent) \(job.name)"
                let image = job.lines.first { $0.hasPrefix("      image: ") }?.dropFirst("      image: ".count) ?? ""
                let runs = job.lines.indices.filter { job.lines[$0].trimmingCharacters(in: .whitespaces).hasPrefix("run:")
                    || job.lines[$0].trimmingCharacters(in: .whitespaces).hasPrefix("- run:") }
                if image.hasPrefix("debian:") {
                    XCTAssertFalse(job.lines.contains { $0.contains("git ") || $0.contains(".ci/run") }, "\(place) runs git in an image without it")
                    continue
                }
                let mark = try XCTUnwrap(job.lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == Self.markSafe }, "\(place) does not mark the workspace safe")
                let checkout = try XCTUnwrap(job.lines.firstIndex { $0.contains("uses: actions/checkout@") }, "\(place) has no checkout")
                XCTAssertLessThan(checkout, mark, "\(place): the mark follows the checkout")
                XCTAssertEqual(runs.first, mark, "\(place): the mark comes before every other step that runs something")
                XCTAssertFalse(job.lines[checkout..<mark].contains { $0.contains("uses: ") && !$0.contains("actions/checkout@") }, "\(place): no action between")
                marked.append(place)
            }
        }
        XCTAssertEqual(Set(marked).isSuperset(of: ["ci.yml linux", "release.yml linux", "tsan.yml tsan"]), true, "\(marked)")
    }

    /// The `run:` values of a workflow or action: single-line ones and `|` blocks.
    static func runScripts(_ yaml: String) -> [String] {
        var scripts: [String] = []
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func indent(_ line: String) -> Int { line.prefix { $0 == " " || $0 == "-" }.count }
        var index = 0
        while index < lines.count {
            var key = lines[index].trimmingCharacters(in: .whitespaces)
            if key.hasPrefix("- ") { key.removeFirst(2) }
            guard key.hasPrefix("run:") else { index += 1; continue }
            let value = key.dropFirst(4).trimmingCharacters(in: .whitespaces)
            let keyIndent = indent(lines[index])
            index += 1
            guard value == "|" else { scripts.append(value); continue }
            var body: [String] = []
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces).isEmpty || indent(lines[index]) > keyIndent {
                body.append(lines[index].trimmingCharacters(in: .whitespaces))
                index += 1
            }
            scripts.append(body.joined(separator: "\n"))
        }
        return scripts
    }
}
