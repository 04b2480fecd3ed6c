import Foundation
import XCTest
import TestSupport

/// scripts/install-test-tools on Linux refuses a browser that cannot run: Ubuntu's `chromium` and
/// `chromium-driver` packages install shell stubs that only call a snap, and in a container
/// (CI's Linux jobs) there is no snapd. The script says so instead of letting every browser test
/// fail later.
final class InstallTestToolsTests: XCTestCase {
    func testASnapStubBrowserIsRefusedWithAClearMessage() throws {
        #if os(macOS)
        throw XCTSkip("the browser packages are checked on Linux only")
        #else
        // With the tools installed the script installs nothing; it only checks.
        _ = try requireTool("chromedriver", because: "the script checks the browser's driver too (run scripts/install-test-tools)")
        _ = try requireTool("chromium", because: "the real browser passes the check")
        let scratch = try ScratchDirectory("snap-stub")
        defer { scratch.remove() }
        // What Ubuntu's chromium-browser stub does when the snap is not installed.
        let stub = try scratch.file("chromium", Array("""
        #!/bin/sh
        echo "Command '$0' requires the chromium snap to be installed." >&2
        echo "Please install it with:  snap install chromium" >&2
        exit 1

        """.utf8))
        XCTAssertEqual(chmod(stub, 0o755), 0)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = scratch.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["CI"] = nil  // no sysctl: only the browser check is under test
        let script = repositoryRoot.appendingPathComponent("scripts/install-test-tools").path
        let result = try runProgram(script, [], environment: environment)
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("install-test-tools: \(stub) is not a working chromium (a snap stub?"), result.stderr)
        XCTAssertTrue(result.stderr.contains("requires the chromium snap to be installed"), "the stub's own words are shown: " + result.stderr)

        // The real browser and driver on this machine pass the same check.
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        let real = try runProgram(script, [], environment: environment)
        XCTAssertEqual(real.status, 0, real.stdout + real.stderr)
        #endif
    }

    /// Under CI the script lifts Ubuntu 24.04's restriction on user namespaces by writing 0 to
    /// the sysctl's file itself: the Swift images have no `sysctl` (procps), where it printed
    /// "read-only /proc/sys?" without trying. Its block, run on a file standing in for
    /// /proc/sys/kernel/apparmor_restrict_unprivileged_userns, with no sysctl on PATH (the rest
    /// of the script installs packages, which a test does not do).
    func testTheUserNamespaceSwitchIsWrittenWithoutSysctl() throws {
        let script = try String(contentsOf: repositoryRoot.appendingPathComponent("scripts/install-test-tools"), encoding: .utf8)
        let lines = script.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("userns=") }, "the userns block")
        let end = try XCTUnwrap(lines[start...].firstIndex { $0 == "esac" }, "its end")
        let block = lines[start...end].joined(separator: "\n")
        XCTAssertFalse(block.contains("sysctl "), "the Swift images have no sysctl")
        let scratch = try ScratchDirectory("userns")
        defer { scratch.remove() }
        let switchFile = try scratch.file("apparmor_restrict_unprivileged_userns", Array("1\n".utf8))
        // PATH: the shell's own tools only (cat, printf, id, sudo), never a sysctl.
        let bin = scratch.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        for tool in ["cat", "id", "tee", "sudo"] {
            if let path = findTool(tool) { try FileManager.default.createSymbolicLink(atPath: bin + "/" + tool, withDestinationPath: path) }
        }
        let environment = ["PATH": bin, "CI": "true", "INSTALL_TEST_TOOLS_USERNS": switchFile]
        let result = try runProgram("/bin/bash", ["-c", "set -euo pipefail\n" + block], environment: environment)
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stderr, "", "written, so nothing to say")
        XCTAssertEqual(try String(contentsOfFile: switchFile, encoding: .utf8), "0\n")

        // Off CI it is left alone.
        _ = try scratch.file("apparmor_restrict_unprivileged_userns", Array("1\n".utf8))
        let local = try runProgram("/bin/bash", ["-c", "set -euo pipefail\n" + block], environment: environment.merging(["CI": ""]) { $1 })
        XCTAssertEqual(local.status, 0, local.stderr)
        XCTAssertEqual(try String(contentsOfFile: switchFile, encoding: .utf8), "1\n")
    }
}
