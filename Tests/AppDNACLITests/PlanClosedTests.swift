import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore

/// Issue 45.1: a command's run works from the one plan value its mode decision built, never
/// from the parsed arguments. `CommandPlan` closes the arguments once the plan is built, and
/// the runner makes any later read a loud internal error (70): planted here in a one-command
/// table; every planned command (`bundle fetch`, `queue inspect`, `webhook trigger`) runs
/// under the same check in the rest of the suite.
final class PlanClosedTests: XCTestCase {
    static let chosen = Flag.switch("chosen", "A flag the plan reads")

    enum LateRead { case none, flag, operands }

    /// A plan that keeps the arguments (as a plan builder that stored them "for later" would):
    /// the only way left for a perform to read them, since an `Invocation` does not carry them.
    struct KeptArguments { let chosen: Bool; let arguments: ParsedArguments }

    func run(_ late: LateRead) -> (status: Int32, stdout: String, stderr: String) {
        let command = CommandSpec(["try"], summary: "Plans, then runs", operands: [OperandSpec("WORD", "A word", optional: true)],
                                  flags: [Self.chosen.spec],
                                  run: .planned(plan: { arguments, _ in KeptArguments(chosen: arguments[Self.chosen], arguments: arguments) }, perform: { plan, invocation in
            switch late {
            case .none: break
            case .flag: _ = plan.arguments[Self.chosen]
            case .operands: _ = plan.arguments.operand(0)
            }
            invocation.stdout.writeLine(plan.chosen ? "chosen" : "not chosen")
            return .success
        }))
        let run = runInOwnTable(command, ["try", "--chosen", "word"])
        return (run.status, run.stdout, run.stderr)
    }

    func testARunThatKeepsToItsPlanSucceeds() {
        let sound = run(.none)
        XCTAssertEqual(sound.status, 0, sound.stderr)
        XCTAssertEqual(sound.stdout, "chosen\n")
        XCTAssertEqual(sound.stderr, "")
    }

    func testReadingAFlagAfterThePlanIsAnInternalError() {
        let planted = run(.flag)
        XCTAssertEqual(planted.status, 70)
        XCTAssertEqual(planted.stderr, "appdna: internal error: 'try' read --chosen after its plan was built (its run reads the plan only)\n")
    }

    func testReadingAnOperandAfterThePlanIsAnInternalError() {
        let planted = run(.operands)
        XCTAssertEqual(planted.status, 70)
        XCTAssertEqual(planted.stderr, "appdna: internal error: 'try' read operands after its plan was built (its run reads the plan only)\n")
    }

    /// The planned commands close their arguments before running, so the runner's check
    /// covers their whole run: a command turned back into one that reads its arguments as it
    /// goes fails here.
    func testThePlannedCommandsCloseTheirArgumentsBeforeRunning() throws {
        let queue = FileManager.default.temporaryDirectory.appendingPathComponent("plan-closed-\(UUID().uuidString).json")
        try Data("[]".utf8).write(to: queue)
        defer { try? FileManager.default.removeItem(at: queue) }
        let lines = [["bucket", "--self-test"], ["bucket", "u1", "exp", "salt", "--json"], ["webhook", "trigger", "--list"],
                     ["queue", "inspect", queue.path, "--json"], ["bundle", "fetch", "-o", "-"]]
        for line in lines {
            guard case .run(let command, let arguments) = try ArgumentParser(table: .appdna).parse(line) else {
                return XCTFail("\(line): not a command line")
            }
            let out = OutputSink(capturingAsTerminal: false), err = OutputSink(capturingAsTerminal: false)
            // No key in the environment: bundle fetch plans, then stops at the configuration (78).
            let io = CommandIO(stdout: out, stderr: err, stdinDescriptor: -1, stdinIsTerminal: false, environment: [:],
                               transport: nil, clock: SystemClock())
            _ = try? command.run.run(arguments, Invocation(command: command, io: io, options: GlobalOptions(arguments, io: io)))
            XCTAssertTrue(arguments.isClosed, "\(line.joined(separator: " ")): ran without closing its arguments after its plan")
            XCTAssertEqual(arguments.lateReads, [], "\(line.joined(separator: " "))")
        }
    }
}
