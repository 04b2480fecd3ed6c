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
}
