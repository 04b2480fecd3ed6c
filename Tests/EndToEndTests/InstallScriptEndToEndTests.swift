import Foundation
import XCTest
import TestSupport

/// `scripts/install` into temporary prefixes, with the self-contained release binary that
/// `.ci/run` (the README's test command) builds before the tests:
/// `swift build -c release --static-swift-stdlib`. Building it here would take minutes and
/// would wait on the lock of the `swift test` that runs us, so the script's `--binary` is used.
/// (Installing from a release archive: ReleaseArchiveEndToEndTests.)
final class InstallScriptEndToEndTests: XCTestCase {
    static let root = repositoryRoot
    static let releaseBinary = ReleaseBinary.path

    /// Where each file goes under the prefix, and what it is a copy of.
    static let installed: [(path: String, source: String, mode: Int)] = [
        ("bin/appdna", releaseBinary, 0o755),
        ("share/man/man1/appdna.1", root.appendingPathComponent("man/appdna.1").path, 0o644),
        ("share/bash-completion/completions/appdna", root.appendingPathComponent("completions/appdna.bash").path, 0o644),
        ("share/zsh/site-functions/_appdna", root.appendingPathComponent("completions/_appdna").path, 0o644),
        ("share/fish/vendor_completions.d/appdna.fish", root.appendingPathComponent("completions/appdna.fish").path, 0o644),
    ]

    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-install-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> ProcessRunner.Output {
        try ProcessRunner.run(executable, arguments, environment: environment)
    }

    /// Runs scripts/install with its output to a pipe (a CI log), or with `terminal` on a
    /// pseudo-terminal as a person runs it (stdout and stderr then come together, in stdout).
    func install(_ arguments: [String], destdir: String? = nil, terminal: Bool = false,
                 environment extra: [String: String] = [:]) throws -> ProcessRunner.Output {
        _ = try ReleaseBinary.require()
        var environment = ["PATH": "/usr/bin:/bin", "HOME": directory.path].merging(extra) { $1 }
        if let destdir { environment["DESTDIR"] = destdir }
        let command = [Self.root.appendingPathComponent("scripts/install").path, "--binary", Self.releaseBinary] + arguments
        guard terminal else { return try run("/bin/bash", command, environment: environment) }
        let process = try CapturedOutputProcess(command, executable: URL(fileURLWithPath: "/bin/bash"), target: .terminal, environment: environment)
        let output = String(decoding: process.finish(), as: UTF8.self)
        return ProcessRunner.Output(status: process.process.terminationStatus, stdout: output, stderr: "")
    }

    func assertInstalled(under target: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for entry in Self.installed {
            let path = target + "/" + entry.path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, entry.mode, path, file: file, line: line)
            #if os(Linux)
            // The binary loses its symbols and debug information (24 MB with them) and still runs.
            if entry.path == "bin/appdna" {
                XCTAssertEqual(try ELF.symbolSections(path), [], "\(path) is not stripped", file: file, line: line)
                let version = try run(path, ["--version"], environment: ["PATH": "/usr/bin:/bin"])
                XCTAssertEqual(version.stdout, try run(entry.source, ["--version"], environment: ["PATH": "/usr/bin:/bin"]).stdout, file: file, line: line)
                continue
            }
            #endif
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), try Data(contentsOf: URL(fileURLWithPath: entry.source)),
                           "\(path) is not a copy of \(entry.source)", file: file, line: line)
        }
        let all = FileManager.default.enumerator(atPath: target)!.compactMap { $0 as? String }
        let files = all.filter { !isDirectory(target + "/" + $0) }.sorted()
        XCTAssertEqual(files, Self.installed.map(\.path).sorted(), "exactly these files, no temporary leftovers", file: file, line: line)
    }

    /// The lines the script tells a user to paste (the prefix here holds a space) do what they
    /// say in the real shells: bash gets the completion, zsh's fpath and fish's
    /// fish_complete_path gain the directory.
    func assertPastedGuidanceWorks(_ stdout: String, prefix: String, file: StaticString = #filePath, line: UInt = #line) throws {
        func pasted(after marker: String) -> String? {
            stdout.split(separator: "\n").first { $0.contains(marker) }.map { String($0[$0.range(of: marker)!.upperBound...]) }
        }
        let share = prefix + "/share"
        let bashLine = try XCTUnwrap(pasted(after: "add to ~/.bashrc: "), file: file, line: line)
        let bash = try run("/bin/bash", ["-c", bashLine + " && complete -p appdna"], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(bash.status, 0, bash.stderr, file: file, line: line)
        XCTAssertTrue(bash.stdout.contains("appdna"), bash.stdout, file: file, line: line)
        for (shell, marker, show, expected) in [("zsh", "before compinit: ", "print -l $fpath", share + "/zsh/site-functions"),
                                                ("fish", "config.fish: ", "printf '%s\\n' $fish_complete_path", share + "/fish/vendor_completions.d")] {
            let path = try requireTool(shell, because: "the pasted guidance line runs in it")
            let pastedLine = try XCTUnwrap(pasted(after: marker), file: file, line: line)
            let result = try run(path, ["-c", pastedLine + "; " + show], environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path])
            XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
            XCTAssertTrue(result.stdout.split(separator: "\n").contains(Substring(expected)), "\(shell): \(result.stdout)", file: file, line: line)
        }
    }

    func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    func testInstallsEveryFileUnderThePrefixAndUpgradesInPlace() throws {
        let prefix = directory.appendingPathComponent("prefix with space").path
        let first = try install(["--prefix", prefix], terminal: true)
        XCTAssertEqual(first.status, 0, first.stderr)
        let installedLines = Self.installed.map { "installed \(prefix)/\($0.path)\n" }.joined()
        XCTAssertTrue(first.stdout.hasPrefix(installedLines + "\ncompletions:\n"), first.stdout)
        try assertInstalled(under: prefix)
        try assertPastedGuidanceWorks(first.stdout, prefix: prefix)

        // Re-running replaces each file (a new inode: a running old binary is never overwritten).
        let binary = prefix + "/bin/appdna"
        let before = try FileManager.default.attributesOfItem(atPath: binary)[.systemFileNumber] as? NSNumber
        try Data("stale\n".utf8).write(to: URL(fileURLWithPath: prefix + "/share/man/man1/appdna.1"))
        let second = try install(["--prefix", prefix])
        XCTAssertEqual(second.status, 0, second.stderr)
        try assertInstalled(under: prefix)
        let after = try FileManager.default.attributesOfItem(atPath: binary)[.systemFileNumber] as? NSNumber
        XCTAssertNotEqual(before, after)
    }

    /// Issue 44: in CI (`CI` set) or into a log (no terminal) nobody pastes lines into a shell's
    /// startup file: one line says where the completions went, instead of the six-line block.
    func testInCIOrIntoALogTheCompletionsAreOneLine() throws {
        let prefix = directory.appendingPathComponent("prefix").path
        let expected = "completions: bash, zsh and fish under \(prefix)/share (run 'appdna completions install' in a shell to enable them there)"
        for (terminal, environment) in [(false, [String: String]()), (true, ["CI": "true"])] {
            let result = try install(["--prefix", prefix], terminal: terminal, environment: environment)
            XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.last, expected, result.stdout)
            XCTAssertEqual(lines.filter { $0.hasPrefix("installed ") }.count, Self.installed.count, result.stdout)
            XCTAssertEqual(lines.count, Self.installed.count + 1, "the installed lines and the one completions line: \(result.stdout)")
            try assertInstalled(under: prefix)
        }
    }

    func testHonoursDestdirForPackagers() throws {
        let destdir = directory.appendingPathComponent("stage").path
        let result = try install(["--prefix", "/usr/local"], destdir: destdir)
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertInstalled(under: destdir + "/usr/local")
    }

    func testRejectsUnknownArgumentsAndIsShellcheckClean() throws {
        // Arguments are checked before the binary: this runs without a release build.
        let script = Self.root.appendingPathComponent("scripts/install").path
        let result = try run("/bin/bash", [script, "--prefx", "/tmp"], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.hasPrefix("install: unknown argument: --prefx\n"), result.stderr)
        for (arguments, message) in [(["--sha256", "ab"], "install: --sha256 and --checksums check an archive: add --from-archive FILE\n"),
                                     (["--binary", "b", "--from-archive", "a"], "install: --binary and --from-archive exclude each other\n"),
                                     (["--from-archive", "a", "--sha256", "ab", "--checksums", "c"], "install: give --sha256 or --checksums, not both\n")] {
            let refused = try run("/bin/bash", [script] + arguments, environment: ["PATH": "/usr/bin:/bin"])
            XCTAssertEqual(refused.status, 64, "\(arguments)")
            XCTAssertEqual(refused.stderr, message)
        }
        let shellcheck = try requireTool("shellcheck", because: "lints the install script")
        let lint = try run(shellcheck, [Self.root.appendingPathComponent("scripts/install").path], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(lint.status, 0, lint.stdout + lint.stderr)
    }

    /// The installed binary names no Swift library and no toolchain path, and runs where the
    /// toolchain cannot be seen: with a bare environment, and (where user namespaces allow)
    /// with the toolchain's directory hidden under an empty tmpfs.
    func testInstalledBinaryRunsWithoutTheSwiftToolchain() throws {
        let prefix = directory.appendingPathComponent("p").path
        // Installed outside the assertion: a missing release binary must skip, not fail.
        let installed = try install(["--prefix", prefix])
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let binary = prefix + "/bin/appdna"
        let bare = ["PATH": "/usr/bin:/bin"]

        #if os(Linux)
        let ldd = try run("/usr/bin/ldd", [binary], environment: bare)
        XCTAssertEqual(ldd.status, 0, ldd.stderr)
        XCTAssertFalse(ldd.stdout.contains("swift"), "ldd names a Swift library or toolchain path:\n" + ldd.stdout)
        #endif

        let version = try run(binary, ["--version"], environment: bare)
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertTrue(version.stdout.hasPrefix("appdna "), version.stdout)
        let bucket = try run(binary, ["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5"], environment: bare)
        XCTAssertEqual(bucket.status, 0, bucket.stderr)
        XCTAssertTrue(bucket.stdout.contains("variant"), bucket.stdout)

        #if os(Linux)
        // Hide the toolchain's directory itself. The toolchain is found from the swift running
        // this build (the test binary's own RUNPATH points into it).
        let toolchain = try run("/bin/sh", ["-c", "command -v swift"], environment: ProcessInfo.processInfo.environment)
        let swiftBin = URL(fileURLWithPath: toolchain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).resolvingSymlinksInPath()
        let usr = swiftBin.deletingLastPathComponent().deletingLastPathComponent().path   // …/usr
        let probe = try run("/usr/bin/unshare", ["-rm", "true"], environment: bare)
        guard toolchain.status == 0, probe.status == 0 else {
            throw missing("swift on PATH and user namespaces (unshare -rm)", because: "the toolchain is hidden to run the binary without it; ldd and the bare environment were checked",
                          remedy: "run where unprivileged user namespaces are allowed")
        }
        let hidden = try run("/usr/bin/unshare", ["-rm", "/bin/sh", "-c", "mount -t tmpfs none \"$1\" && ls -A \"$1\" | wc -l && \"$2\" --version", "sh", usr, binary],
                             environment: bare)
        XCTAssertEqual(hidden.status, 0, hidden.stderr)
        XCTAssertEqual(hidden.stdout, "0\n" + version.stdout, "the toolchain directory was not hidden, or the binary failed")
        #endif
    }

    func testInstalledManPageRendersWithMan() throws {
        let man = try requireTool("man", because: "renders the installed page")
        let prefix = directory.appendingPathComponent("p").path
        // Installed outside the assertion: a missing release binary must skip, not fail.
        let installed = try install(["--prefix", prefix])
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let page = try run(man, ["-M", prefix + "/share/man", "appdna"],
                           environment: ["PATH": "/usr/bin:/bin", "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80", "LANG": "C.UTF-8", "HOME": directory.path])
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdout.contains("NAME"), page.stdout)
        XCTAssertTrue(page.stdout.contains("appdna"), page.stdout)
        XCTAssertTrue(page.stdout.contains("--keep-on-failure"), "the man page documents the new flags")
    }

    func testInstalledCompletionsLoadInEachShell() throws {
        let prefix = directory.appendingPathComponent("p").path
        // Installed outside the assertion: a missing release binary must skip, not fail.
        let installed = try install(["--prefix", prefix])
        XCTAssertEqual(installed.status, 0, installed.stderr)
        let bare = ["PATH": "/usr/bin:/bin", "HOME": directory.path]
        let bash = try run("/bin/bash", ["--norc", "-c", "source \"$1\" && complete -p appdna", "bash", prefix + "/share/bash-completion/completions/appdna"], environment: bare)
        XCTAssertEqual(bash.status, 0, bash.stderr)
        XCTAssertTrue(bash.stdout.contains("appdna"), bash.stdout)
        // zsh finds _appdna through fpath, as compinit does for site-functions.
        let zsh = try run(try requireTool("zsh", because: "loads the installed completion"),
                          ["-f", "-c", "fpath=(\"$1\" $fpath); autoload -Uz compinit && compinit -u -D && print -r -- ${_comps[appdna]}", "zsh", prefix + "/share/zsh/site-functions"], environment: bare)
        XCTAssertEqual(zsh.stdout, "_appdna\n", zsh.stderr)
        let fish = try run(try requireTool("fish", because: "loads the installed completion"),
                           ["--no-config", "-c", "source $argv[1]; and complete -c appdna | count", prefix + "/share/fish/vendor_completions.d/appdna.fish"], environment: bare)
        XCTAssertEqual(fish.status, 0, fish.stderr)
        XCTAssertGreaterThan(Int(fish.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 10, fish.stdout)
    }
}
