import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet

/// A command that reads a flag it did not declare would silently get the default, whatever the
/// user typed. The runner makes that a loud internal error (70): planted here in a one-command
/// table, and every real command runs under the same check in the rest of the suite (it caught
/// `webhook sign` reading verify's --request).
final class UndeclaredFlagTests: XCTestCase {
    static let declared = Flag.switch("declared", "A flag the command declares")
    static let forgotten = Flag.switch("forgotten", "A flag of another command")

    func run(readsForgotten: Bool) -> (status: Int32, stderr: String) {
        let command = CommandSpec(["try"], summary: "Reads its flags", flags: [Self.declared.spec],
                                  run: .planned(plan: { arguments, _ in
            _ = arguments[Self.declared]
            if readsForgotten { _ = arguments[Self.forgotten] }
        }, perform: { _, _ in .success }))
        let run = runInOwnTable(command, ["try", "--declared"])
        return (run.status, run.stderr)
    }

    func testReadingAnUndeclaredFlagIsAnInternalError() {
        XCTAssertEqual(run(readsForgotten: false).status, 0)
        let planted = run(readsForgotten: true)
        XCTAssertEqual(planted.status, 70)
        XCTAssertEqual(planted.stderr, "appdna: internal error: 'try' read --forgotten, which it does not declare (it got the default, whatever was typed)\n")
    }
}
