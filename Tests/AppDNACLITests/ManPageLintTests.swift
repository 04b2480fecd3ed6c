import XCTest
@testable import AppDNACLI

final class ManPageLintTests: XCTestCase {
    func testManPageIsLintCleanUnderMandoc() throws {
        let mandoc = try requireTool("mandoc")
        let page = repositoryRoot.appendingPathComponent("man/appdna.1").path
        let result = try runProgram(mandoc, ["-T", "lint", "-W", "style", page])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout + result.stderr, "")
    }

    func testManPageDocumentsEveryCommandFlagAndExitStatus() {
        let page = ManPageRenderer(table: .appdna).render()
        for command in CommandTable.appdna.visibleCommands {
            XCTAssertTrue(page.contains(".Ss appdna \(command.name)"), command.name)
            for flag in command.flags where !flag.hidden {
                XCTAssertTrue(page.contains("Fl -\(flag.long)"), "--\(flag.long)")
            }
        }
        for status in ExitStatus.allCases {
            XCTAssertTrue(page.contains(".It \(status.rawValue)\n"))
        }
    }
}
