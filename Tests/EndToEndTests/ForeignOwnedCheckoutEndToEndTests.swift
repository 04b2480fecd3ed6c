import Foundation
import XCTest
import TestSupport

/// GitHub's container jobs (ci linux, release linux, tsan) run as root in a workspace the runner's
/// user (uid 1001) owns, and git refuses such a checkout ("detected dubious ownership") unless
/// it is marked `safe.directory`: the workflows mark it before any git call (WorkflowLintTests).
/// Here, a checkout of what the scripts read is given to uid 1001 and the scripts that run git
/// are run in it as root. Refused, each fails with git's words (the formula said "not a git
/// checkout"; the archive and the .deb were dated now, silently, no longer reproducible), and
/// `gitOutput`, which the tests comparing git's output use, throws; marked safe with the
/// workflows' own command, each passes and dates its package from the last commit.
final class ForeignOwnedCheckoutEndToEndTests: XCTestCase {
    static let files = ["scripts/homebrew-formula", "scripts/package-archive", "scripts/package-deb", "scripts/install",
                        "Formula/appdna.rb", "Sources/AppDNACLI/Commands/CommandTable+AppDNA.swift", "man/appdna.1",
                        "completions/appdna.bash", "completions/_appdna", "completions/appdna.fish",
                        "packaging/debian/control", "packaging/debian/copyright"]

    func testGitRefusingTheCheckoutFailsEveryScriptAndSafeDirectoryLetsThemPass() throws {
        #if os(macOS)
        throw XCTSkip("the container jobs whose checkout another user owns are Linux jobs")
        #else
        guard getuid() == 0 else {
            throw missing("root", because: "only root can give a checkout to another user and run git in it, as GitHub's container jobs do",
                          remedy: "run the suite as root (CI's containers do)")
        }
        _ = try requireTool("git", because: "the scripts under test run it")
        _ = try requireTool("dpkg-deb", because: "scripts/package-deb builds the .deb with it")
        _ = try requireTool("dpkg-shlibdeps", because: "scripts/package-deb reads Depends with it")
        let scratch = try ScratchDirectory("foreign-checkout")
        defer { scratch.remove() }
        let checkout = scratch.path + "/checkout", home = scratch.path + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        for file in Self.files {
            let target = checkout + "/" + file
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent(file).path, toPath: target)
        }
        // A global configuration of its own (HOME), none of the system's: what a fresh container has.
        let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": home, "GIT_CONFIG_NOSYSTEM": "1"]
        for arguments in [["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "release"]] {
            _ = try gitOutput(arguments, in: checkout, environment: environment)
        }
        let committed = try gitOutput(["log", "-1", "--format=%ct"], in: checkout, environment: environment).trimmingCharacters(in: .whitespacesAndNewlines)
        let chown = try ProcessRunner.run("/bin/chown", ["-R", "1001:1001", checkout], environment: environment)
        XCTAssertEqual(chown.status, 0, chown.stderr)

        // scripts/install, which both packages use, takes only a binary with the Swift runtime linked in.
        let binary = try ReleaseBinary.require()
        func run(_ script: String, _ arguments: [String]) throws -> ProcessRunner.Output {
            try ProcessRunner.run("/bin/bash", [checkout + "/scripts/" + script] + arguments, environment: environment, currentDirectory: scratch.path)
        }
        let refusedRuns = [("homebrew-formula", try run("homebrew-formula", ["--checkout", "--output", scratch.path + "/refused-formula"])),
                           ("package-archive", try run("package-archive", ["--binary", binary, "--output", scratch.path + "/refused"])),
                           ("package-deb", try run("package-deb", ["--binary", binary, "--output", scratch.path + "/refused"]))]
        for (script, refused) in refusedRuns {
            XCTAssertEqual(refused.status, 69, "\(script): \(refused.stdout) \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("dubious ownership"), "\(script) says why, in git's words: \(refused.stderr)")
            XCTAssertEqual(refused.stdout, "", "\(script) names no package it did not make")
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path + "/refused")) ?? []
        XCTAssertEqual(left.filter { $0.hasSuffix(".tar.gz") || $0.hasSuffix(".deb") }, [], "no package is left")
        XCTAssertThrowsError(try gitOutput(["status", "--porcelain"], in: checkout, environment: environment)) { error in
            XCTAssertTrue("\(error)".contains("dubious ownership"), "\(error)")
        }

        // The workflows' step, as they run it (GITHUB_WORKSPACE is the checkout).
        let marked = try ProcessRunner.run("/bin/bash", ["-c", #"git config --global --add safe.directory "$GITHUB_WORKSPACE""#],
                                           environment: environment.merging(["GITHUB_WORKSPACE": checkout]) { $1 })
        XCTAssertEqual(marked.status, 0, marked.stderr)
        XCTAssertEqual(try gitOutput(["status", "--porcelain"], in: checkout, environment: environment), "")

        let formula = try run("homebrew-formula", ["--checkout", "--output", scratch.path + "/formula"])
        XCTAssertEqual(formula.status, 0, formula.stderr)
        XCTAssertTrue(formula.stdout.contains(#"url "file://\#(scratch.path)/formula/appdna-"#), formula.stdout)

        let archive = try run("package-archive", ["--binary", binary, "--output", scratch.path + "/dist"])
        XCTAssertEqual(archive.status, 0, archive.stderr)
        XCTAssertEqual(archive.stderr, "", "nothing to say: dated from the last commit")
        let unpacked = scratch.path + "/unpacked"
        try FileManager.default.createDirectory(atPath: unpacked, withIntermediateDirectories: true)
        let untar = try ProcessRunner.run("/bin/tar", ["-xzf", archive.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "-C", unpacked], environment: environment)
        XCTAssertEqual(untar.status, 0, untar.stderr)
        let top = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: unpacked).first)
        let modified = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: unpacked + "/" + top + "/bin/appdna")[.modificationDate] as? Date)
        XCTAssertEqual(String(Int(modified.timeIntervalSince1970)), committed, "the archive's files carry the last commit's time")

        let deb = try run("package-deb", ["--binary", binary, "--output", scratch.path + "/dist"])
        XCTAssertEqual(deb.status, 0, deb.stderr)
        XCTAssertEqual(deb.stderr, "", "nothing to say: dated from the last commit")
        #endif
    }
}
