import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet

/// Issue 54.1: every command of the table is a plan and a perform. `TableWalk` drives every
/// command and mode of `CommandTable.appdna` (thousands of lines made from the table, not a
/// hand list); each plan must have no effect, read every flag given, and hold no way back to
/// the arguments; each refused line, run whole, must leave no file and send no request.
/// The planted tables at the end show the walk finds each kind of violation.
final class EveryCommandPlansTests: XCTestCase {
    static let samples = Result { try TableWalk.Samples.make() }

    func environment(_ samples: TableWalk.Samples) -> [String: String] {
        ["APPDNA_API_KEY": "adn_test_walk", "APPDNA_API_URL": "http://127.0.0.1:9", "HOME": samples.directory + "/home",
         "XDG_RUNTIME_DIR": samples.directory + "/run", "APPDNA_SERVER": "http://127.0.0.1:9"]
    }

    func testEveryPlanHasNoEffectReadsEveryFlagGivenAndKeepsNoWayBackToTheArguments() throws {
        let samples = try Self.samples.get()
        let walk = TableWalk(table: .appdna, samples: samples)
        var faults: [String] = [], planned = 0, refused = 0
        for command in CommandTable.appdna.commands {
            var built = 0, firstRefusal = ""
            for line in walk.lines(for: command) {
                guard let verdict = walk.judge(line, environment: environment(samples)) else { continue }
                if let refusal = verdict.refusal {
                    refused += 1
                    if firstRefusal.isEmpty { firstRefusal = line.joined(separator: " ") + ": " + refusal.message }
                    if refusal.kind == .internalError { faults.append("\(line.joined(separator: " ")): \(refusal.message)") }
                } else {
                    built += 1
                }
                faults += verdict.faults.map { "\(line.joined(separator: " ")): \($0)" }
            }
            planned += built
            if built == 0 { faults.append("\(command.name): no line of the walk got a plan built, so none was judged (first refusal: \(firstRefusal))") }
        }
        print("table walk: \(CommandTable.appdna.commands.count) commands, \(planned) lines planned, \(refused) refused by their plan")
        XCTAssertEqual(faults, [], "\(faults.count) faults")
        XCTAssertGreaterThan(planned, 200, "lines planned")
        XCTAssertGreaterThan(refused, 100, "lines refused")
    }

    /// A refused line, run whole (plan and perform), ends with its plan's refusal and leaves
    /// nothing behind: no file written, no request sent (sockets: `RefusedLinesLeaveNothingEndToEndTests`).
    func testEveryRefusedLineLeavesNoFileAndSendsNoRequest() throws {
        let samples = try Self.samples.get()
        let walk = TableWalk(table: .appdna, samples: samples)
        var faults: [String] = [], checked = 0
        for command in CommandTable.appdna.commands {
            for line in walk.lines(for: command) {
                // An internal error is a fault the first test reports; running such a line whole could start a server.
                guard let verdict = walk.judge(line, environment: environment(samples)), let refusal = verdict.refusal,
                      refusal.kind != .internalError else { continue }
                let files = samples.files(), transport = TableWalk.RecordingTransport()
                let run = runCLIBytes(line, environment: environment(samples), stdin: [], transport: transport, files: files)
                checked += 1
                let name = line.joined(separator: " ")
                if run.status != ExitStatus(refusal.kind).rawValue {
                    faults.append("\(name): exit \(run.status), its plan refused with \(ExitStatus(refusal.kind).rawValue) (\(refusal.message))")
                }
                if !files.changes.isEmpty { faults.append("\(name): refused, but wrote \(files.changes)") }
                if !transport.requests.isEmpty { faults.append("\(name): refused, but sent \(transport.requests)") }
            }
        }
        XCTAssertEqual(faults, [], "\(faults.count) faults")
        XCTAssertGreaterThan(checked, 100)
    }

    // MARK: planted violations: the walk must find each

    static let given = Flag.switch("given", "A flag the planted plans may ignore")

    func faults(of plan: @escaping @Sendable (ParsedArguments, Invocation) throws -> Any) throws -> [String] {
        let command = CommandSpec(["planted"], summary: "A planted command", flags: [Self.given.spec],
                                  run: .planned(plan: plan, perform: { _, _ in .success }))
        let table = CommandTable(programName: "appdna", version: "0", summary: "test", globalFlags: CommandTable.appdna.globalFlags,
                                 groups: [], commands: [command], environment: [])
        let walk = TableWalk(table: table, samples: try Self.samples.get())
        return walk.lines(for: command).compactMap { walk.judge($0, environment: [:]) }.flatMap(\.faults)
    }

    struct Kept { let arguments: ParsedArguments }
    struct KeptInvocation { let invocation: Invocation }
    struct KeptCode { let later: @Sendable () -> Bool }

    func testASoundPlanHasNoFault() throws {
        XCTAssertEqual(try faults { arguments, _ in arguments[Self.given] }, [])
    }

    func testAPlanKeepingTheArgumentsIsFound() throws {
        let found = try faults { arguments, _ in _ = arguments[Self.given]; return Kept(arguments: arguments) }
        XCTAssertTrue(found.contains("plan.arguments keeps the parsed arguments"), "\(found)")
    }

    func testAPlanKeepingTheInvocationIsFound() throws {
        let found = try faults { arguments, invocation in _ = arguments[Self.given]; return [KeptInvocation(invocation: invocation)] }
        XCTAssertTrue(found.contains { $0.hasPrefix("plan.0.invocation keeps the invocation") }, "\(found)")
    }

    func testAPlanKeepingCodeIsFound() throws {
        let found = try faults { arguments, _ in KeptCode(later: { arguments[Self.given] }) }
        XCTAssertTrue(found.contains { $0.hasPrefix("plan.later is code") }, "\(found)")
    }

    func testAPlanThatIgnoresAGivenFlagIsFound() throws {
        let found = try faults { _, _ in 1 }
        XCTAssertEqual(found, ["its plan never read --given, which was given"])
    }

    func testAPlanWithAnEffectIsFound() throws {
        let found = try faults { arguments, invocation in
            _ = arguments[Self.given]
            try invocation.io.files.replace(path: "/planted/out", with: [1], timeout: nil)
            return 1
        }
        XCTAssertTrue(found.contains(#"its plan wrote ["/planted/out"]"#), "\(found)")
    }

    func testAPlanThatSendsARequestIsFound() throws {
        let found = try faults { arguments, invocation in
            _ = arguments[Self.given]
            _ = try? invocation.io.transport?.perform(HTTPRequest(method: "GET", url: "http://127.0.0.1:9/planted"), deadline: Deadline(secondsFromNow: 1))
            return 1
        }
        XCTAssertTrue(found.contains { $0.hasPrefix("its plan sent") }, "\(found)")
    }

    /// The commands the table holds are all walked: a command added without being planned
    /// (the table takes nothing but `CommandRun.planned`) still gets walked, being in the table.
    func testTheWalkCoversEveryCommandOfTheTable() throws {
        let walk = TableWalk(table: .appdna, samples: try Self.samples.get())
        for command in CommandTable.appdna.commands {
            XCTAssertFalse(walk.lines(for: command).isEmpty, command.name)
        }
    }
}
