import Foundation
import XCTest
import TestSupport

/// `scripts/package-deb` builds the .deb from the release binary that .ci/run builds; the test
/// unpacks it with `dpkg -i --root` into a throw-away root (no root privileges needed for the
/// files; the package database lives in that root too), runs the installed binary, and has
/// `lintian` check the package. Debian tools: skipped on macOS with the reason printed.
final class DebianPackageEndToEndTests: XCTestCase {
    static let releaseBinary = ReleaseBinary.path

    func tool(_ name: String) throws -> String {
        #if os(macOS)
        throw XCTSkip("\(name) is a Debian tool; .deb packages are built and checked on the Linux runners")
        #else
        return try requiredTool(name)
        #endif
    }

    func buildPackage(into directory: String) throws -> String {
        _ = try tool("dpkg-deb")
        _ = try tool("dpkg-shlibdeps")
        _ = try ReleaseBinary.require()
        let result = try ProcessRunner.run("/bin/bash", [repositoryRoot.appendingPathComponent("scripts/package-deb").path,
                                                         "--binary", Self.releaseBinary, "--output", directory], environment: nil)
        // Without a package there is nothing to check: one failure, not one per property.
        return try XCTUnwrap(result.status == 0 ? result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil,
                             "scripts/package-deb failed (\(result.status)): \(result.stderr)")
    }

    /// One package, built once (packing it is most of the cost, and under `--parallel` each test
    /// runs in a process of its own, so separate tests would each pack their own), checked for
    /// every property: it installs and runs, Depends is what the binary needs, the binary is
    /// stripped, lintian finds no error. Each check's messages say which property failed.
    func testThePackageInstallsRunsDependsOnWhatItNeedsIsStrippedAndLintianClean() throws {
        let scratch = try ScratchDirectory("deb")
        defer { scratch.remove() }
        let deb = try buildPackage(into: scratch.path + "/package")
        try checkInstallsAndRuns(deb, scratch: scratch)
        try checkDependsIsWhatThePackagedBinaryNeeds(deb, scratch: scratch)
        try checkPackagedBinaryIsStripped(deb, scratch: scratch)
        try checkLintianFindsNoErrors(deb)
    }

    /// `--binary appdna` names the file in the current directory (it failed with status 127: the
    /// script ran "$binary", which bash looked up on PATH).
    func testABareFileNameIsTheFileInTheCurrentDirectory() throws {
        _ = try tool("dpkg-deb")
        _ = try tool("dpkg-shlibdeps")
        let scratch = try ScratchDirectory("deb-bare")
        defer { scratch.remove() }
        try FileManager.default.copyItem(atPath: try ReleaseBinary.require(), toPath: scratch.path + "/appdna")
        let result = try ProcessRunner.run("/bin/bash", [repositoryRoot.appendingPathComponent("scripts/package-deb").path,
                                                         "--binary", "appdna", "--output", scratch.path + "/out"], environment: nil, currentDirectory: scratch.path)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix(scratch.path + "/out/appdna_"), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix(".deb\n"), result.stdout)
    }

    func testScriptIsShellcheckClean() throws {
        let shellcheck = try tool("shellcheck")
        let result = try ProcessRunner.run(shellcheck, [repositoryRoot.appendingPathComponent("scripts/package-deb").path], environment: nil)
        XCTAssertEqual(result.status, 0, result.stdout)
    }

    func checkInstallsAndRuns(_ deb: String, scratch: ScratchDirectory) throws {
        let dpkg = try tool("dpkg")
        let version = try Binary.run(["--version"]).text.split(separator: " ")[1].trimmingCharacters(in: .whitespacesAndNewlines)
        let arch = try ProcessRunner.run(dpkg, ["--print-architecture"], environment: nil).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(URL(fileURLWithPath: deb).lastPathComponent, "appdna_\(version)_\(arch).deb")

        // A throw-away root with its own package database.
        let root = scratch.path + "/root"
        for directory in ["var/lib/dpkg/updates", "var/lib/dpkg/info", "var/log"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/var/lib/dpkg/status", contents: Data()), "the empty dpkg status file")
        let install = try ProcessRunner.run(dpkg, ["--root=\(root)", "--force-not-root", "--force-depends", "--log=/dev/null", "-i", deb],
                                            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        XCTAssertEqual(install.status, 0, install.stdout + install.stderr)

        for file in ["usr/bin/appdna", "usr/share/man/man1/appdna.1.gz", "usr/share/bash-completion/completions/appdna",
                     "usr/share/zsh/vendor-completions/_appdna", "usr/share/fish/vendor_completions.d/appdna.fish",
                     "usr/share/doc/appdna/copyright", "usr/share/doc/appdna/changelog.gz"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/" + file), file)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: root + "/usr/share/fish/vendor_completions.d/appdna.fish")),
                       try Data(contentsOf: repositoryRoot.appendingPathComponent("completions/appdna.fish")))
        let listed = try ProcessRunner.run(dpkg, ["--root=\(root)", "-s", "appdna"], environment: nil)
        XCTAssertTrue(listed.stdout.contains("Status: install ok installed"), listed.stdout + listed.stderr)

        // The installed binary runs with nothing from the build around it.
        let installed = root + "/usr/bin/appdna"
        let versionRun = try ProcessRunner.run(installed, ["--version"], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(versionRun.stdout, "appdna \(version)\n")
        let bucket = try ProcessRunner.run(installed, ["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5"],
                                           environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(bucket.status, 0, bucket.stderr)
        XCTAssertTrue(bucket.stdout.contains("hash           3214585791\n"), bucket.stdout)

        // DEBIAN/md5sums: dpkg keeps it, and --verify checks each installed file against it
        // (silent when all match); a file changed after the install is named.
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/var/lib/dpkg/info/appdna.md5sums"), "the package carries md5sums")
        let verified = try ProcessRunner.run(dpkg, ["--root=\(root)", "--verify", "appdna"], environment: nil)
        XCTAssertEqual(verified.status, 0, verified.stderr)
        XCTAssertEqual(verified.stdout, "", "every installed file matches its md5sum")
        let copyright = try FileHandle(forWritingTo: URL(fileURLWithPath: root + "/usr/share/doc/appdna/copyright"))
        try copyright.seekToEnd()
        try copyright.write(contentsOf: Data("changed\n".utf8))
        try copyright.close()
        let changed = try ProcessRunner.run(dpkg, ["--root=\(root)", "--verify", "appdna"], environment: nil)
        XCTAssertTrue(changed.stdout.contains("/usr/share/doc/appdna/copyright"), "a changed file is named: " + changed.stdout)
    }

    /// Depends is what the binary needs: dpkg-shlibdeps' answer for the packaged binary, and a
    /// libc6 version no older than any GLIBC_x.y symbol version the binary asks for (objdump -T).
    /// (A hand-written `libc6 (>= 2.31)` once claimed less than the GLIBC_2.35 the binary needs.)
    func checkDependsIsWhatThePackagedBinaryNeeds(_ deb: String, scratch: ScratchDirectory) throws {
        let dpkgDeb = try tool("dpkg-deb"), shlibdeps = try tool("dpkg-shlibdeps")
        let depends = try ProcessRunner.run(dpkgDeb, ["-f", deb, "Depends"], environment: nil).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // The packaged binary, in a package build tree of its own, asked again.
        let tree = scratch.path + "/src/debian/appdna"
        try FileManager.default.createDirectory(atPath: tree + "/DEBIAN", withIntermediateDirectories: true)
        let extract = try ProcessRunner.run(dpkgDeb, ["-x", deb, tree], environment: nil)
        XCTAssertEqual(extract.status, 0, extract.stderr)
        _ = try scratch.file("src/debian/control", Array("Source: appdna\n\nPackage: appdna\nArchitecture: any\n".utf8))
        let asked = try ProcessRunner.run(shlibdeps, ["-O", "debian/appdna/usr/bin/appdna"], environment: nil, currentDirectory: scratch.path + "/src")
        XCTAssertEqual(asked.status, 0, asked.stderr)
        XCTAssertEqual("Depends: " + depends, asked.stdout.replacingOccurrences(of: "shlibs:Depends=", with: "Depends: ").trimmingCharacters(in: .whitespacesAndNewlines))

        let libc = try NSRegularExpression(pattern: #"(?:^|, )libc6 \(>= ([0-9.]+)\)"#)
        let match = try XCTUnwrap(libc.firstMatch(in: depends, range: NSRange(depends.startIndex..., in: depends)), "Depends names libc6 with a version: \(depends)")
        let promised = ELF.versionNumbers(String(depends[Range(match.range(at: 1), in: depends)!]))
        let needed = try ELF.glibcVersionsNeeded(tree + "/usr/bin/appdna")
        XCTAssertFalse(needed.isEmpty)
        for version in needed {
            XCTAssertFalse(promised.lexicographicallyPrecedes(version), "the binary needs GLIBC_\(version.map(String.init).joined(separator: ".")) but Depends says \(depends)")
        }
    }

    /// The packaged binary carries no symbol table nor debug information (24 MB with them).
    func checkPackagedBinaryIsStripped(_ deb: String, scratch: ScratchDirectory) throws {
        let dpkgDeb = try tool("dpkg-deb")
        let extract = try ProcessRunner.run(dpkgDeb, ["-x", deb, scratch.path + "/stripped"], environment: nil)
        XCTAssertEqual(extract.status, 0, extract.stderr)
        let binary = scratch.path + "/stripped/usr/bin/appdna"
        XCTAssertEqual(try ELF.symbolSections(binary), [], "the packaged binary is stripped")
        let size = { (path: String) throws -> Int in (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0 }
        if try !ELF.symbolSections(Self.releaseBinary).isEmpty {
            XCTAssertLessThan(try size(binary), try size(Self.releaseBinary), "the packaged binary is smaller than the unstripped one")
        }
    }

    func checkLintianFindsNoErrors(_ deb: String) throws {
        let lintian = try tool("lintian")
        let result = try ProcessRunner.run(lintian, ["--no-cfg", "--fail-on", "error", deb], environment: nil)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertFalse(result.stdout.split(separator: "\n").contains { $0.hasPrefix("E: ") }, result.stdout)
    }
}
