import Foundation
import XCTest
import TestSupport

/// The archive a release publishes, made here the way .github/workflows/release.yml makes it
/// (scripts/package-archive on the release binary), then installed with
/// `scripts/install --from-archive` and run, its .sha256 file checked by `sha256sum -c`.
final class ReleaseArchiveEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws { scratch = try ScratchDirectory("archive") }
    override func tearDown() { scratch.remove() }

    /// The files of an installed prefix, which the archive's one directory holds.
    static let layout = ["bin/appdna", "share/man/man1/appdna.1", "share/bash-completion/completions/appdna",
                         "share/zsh/site-functions/_appdna", "share/fish/vendor_completions.d/appdna.fish"]

    func package(into directory: String, _ extra: [String] = []) throws -> ProcessRunner.Output {
        try runScript("scripts/package-archive", ["--binary", try ReleaseBinary.require(), "--output", directory] + extra)
    }

    func archive() throws -> String {
        let result = try package(into: scratch.path + "/dist")
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `--binary appdna` names the file in the current directory (it failed with status 127: the
    /// script ran "$binary", which bash looked up on PATH).
    func testABareFileNameIsTheFileInTheCurrentDirectory() throws {
        let here = scratch.path + "/here"
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try ReleaseBinary.require(), toPath: here + "/appdna")
        let result = try runScript("scripts/package-archive", ["--binary", "appdna", "--output", "dist"], currentDirectory: here)
        XCTAssertEqual(result.status, 0, result.stderr)
        let name = "appdna-\(try ReleaseBinary.version())-\(ReleaseBinary.platform)"
        XCTAssertEqual(result.stdout, here + "/dist/\(name).tar.gz\n", result.stderr)
    }

    func testArchiveHoldsTheInstalledLayoutAndItsChecksumFileChecks() throws {
        let version = try ReleaseBinary.version()
        let path = try archive()
        let name = "appdna-\(version)-\(ReleaseBinary.platform)"
        XCTAssertEqual(path, scratch.path + "/dist/\(name).tar.gz")

        let listing = try ProcessRunner.run("/usr/bin/env", ["tar", "-tzf", path], environment: nil)
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let files = Set(listing.stdout.split(separator: "\n").map(String.init).filter { !$0.hasSuffix("/") })
        XCTAssertEqual(files, Set(Self.layout.map { "\(name)/\($0)" }))

        // The .sha256 file is sha256sum's own format: `sha256sum -c` in the directory passes.
        let line = try String(contentsOfFile: path + ".sha256", encoding: .utf8)
        XCTAssertEqual(line, "\(try sha256Hex(path))  \(name).tar.gz\n")
        let sha256sum = try requiredTool("sha256sum")
        let check = try ProcessRunner.run(sha256sum, ["-c", name + ".tar.gz.sha256"], environment: nil, currentDirectory: scratch.path + "/dist")
        XCTAssertEqual(check.stdout, "\(name).tar.gz: OK\n", check.stderr)
    }

    func testInstallsFromTheArchiveWithItsChecksumAndRuns() throws {
        let path = try archive()
        let prefix = scratch.path + "/prefix"
        let install = try runScript("scripts/install", ["--from-archive", path, "--checksums", path + ".sha256", "--prefix", prefix])
        XCTAssertEqual(install.status, 0, install.stderr)
        XCTAssertTrue(install.stdout.hasPrefix("verified \(URL(fileURLWithPath: path).lastPathComponent) (SHA-256 \(try sha256Hex(path)))\ninstalled \(prefix)/bin/appdna\n"), install.stdout)
        for file in Self.layout { XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + "/" + file), file) }
        for (installed, source) in [("share/man/man1/appdna.1", "man/appdna.1"), ("share/fish/vendor_completions.d/appdna.fish", "completions/appdna.fish")] {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: prefix + "/" + installed)),
                           try Data(contentsOf: repositoryRoot.appendingPathComponent(source)), installed)
        }

        let binary = prefix + "/bin/appdna"
        let bare = ["PATH": "/usr/bin:/bin"]
        XCTAssertEqual(try ProcessRunner.run(binary, ["--version"], environment: bare).stdout, "appdna \(try ReleaseBinary.version())\n")
        let bucket = try ProcessRunner.run(binary, ["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5"], environment: bare)
        XCTAssertTrue(bucket.stdout.contains("hash           3214585791\n"), bucket.stdout + bucket.stderr)
        #if os(Linux)
        XCTAssertEqual(try ELF.symbolSections(binary), [], "the archived binary is stripped")
        #endif

        // --sha256 with the hex (either case) installs too.
        let byHex = try runScript("scripts/install", ["--from-archive", path, "--sha256", try sha256Hex(path).uppercased(), "--prefix", scratch.path + "/p2"])
        XCTAssertEqual(byHex.status, 0, byHex.stderr)
    }

    func testRefusesAnArchiveThatDoesNotMatchItsChecksumAndInstallsNothing() throws {
        let path = try archive()
        let prefix = scratch.path + "/prefix"
        let wrong = try runScript("scripts/install", ["--from-archive", path, "--sha256", String(repeating: "0", count: 64), "--prefix", prefix])
        XCTAssertEqual(wrong.status, 65)
        XCTAssertTrue(wrong.stderr.contains("SHA-256 mismatch: expected \(String(repeating: "0", count: 64)), got \(try sha256Hex(path)); nothing was installed"), wrong.stderr)

        // One byte changed in the archive: its .sha256 no longer matches.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let tampered = try runScript("scripts/install", ["--from-archive", path, "--checksums", path + ".sha256", "--prefix", prefix])
        XCTAssertEqual(tampered.status, 65, tampered.stderr)

        // A checksum file without the archive's line.
        let other = try scratch.file("SHA256SUMS", Array("\(String(repeating: "a", count: 64))  appdna-other.tar.gz\n".utf8))
        let unlisted = try runScript("scripts/install", ["--from-archive", path, "--checksums", other, "--prefix", prefix])
        XCTAssertEqual(unlisted.status, 65)
        XCTAssertTrue(unlisted.stderr.contains("has no line for \(URL(fileURLWithPath: path).lastPathComponent)"), unlisted.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix), "nothing was installed")
    }

    func testTheSameBinaryGivesTheSameArchive() throws {
        let first = try archive()
        let second = try package(into: scratch.path + "/again")
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)),
                       try Data(contentsOf: URL(fileURLWithPath: second.stdout.trimmingCharacters(in: .whitespacesAndNewlines))))
    }

    /// release.yml passes --max-glibc 2.31: a binary needing a newer glibc must not be packed.
    /// Checked here with the newest version this binary needs (passes) and the one before it (fails).
    func testMaxGlibcRefusesABinaryThatNeedsANewerGlibc() throws {
        #if os(macOS)
        throw XCTSkip("glibc versions are a Linux binary's; the macOS archive has none")
        #else
        let needed = try ELF.glibcVersionsNeeded(try ReleaseBinary.require())
        let newest = try XCTUnwrap(needed.last), older = try XCTUnwrap(needed.dropLast().last)
        let text = { (version: [Int]) in version.map(String.init).joined(separator: ".") }
        let passes = try package(into: scratch.path + "/ok", ["--max-glibc", text(newest)])
        XCTAssertEqual(passes.status, 0, passes.stderr)
        let refused = try package(into: scratch.path + "/refused", ["--max-glibc", text(older)])
        XCTAssertEqual(refused.status, 65)
        XCTAssertTrue(refused.stderr.contains("needs glibc \(text(newest)), newer than \(text(older))"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.path + "/refused"), "no archive is written")
        #endif
    }

    func testReleaseScriptsAreShellcheckClean() throws {
        let shellcheck = try requiredTool("shellcheck")
        for script in ["scripts/package-archive", "scripts/install-release", "scripts/homebrew-formula"] {
            let result = try ProcessRunner.run(shellcheck, [repositoryRoot.appendingPathComponent(script).path], environment: nil)
            XCTAssertEqual(result.status, 0, script + "\n" + result.stdout)
        }
    }
}
