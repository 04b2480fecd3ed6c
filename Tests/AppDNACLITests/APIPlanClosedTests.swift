import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
@testable import AppDNANet
import TestSupport

/// Issue 54.1 for `api serve` and `api override`: each plans, closes its arguments and runs
/// from the plan alone. Each command line here gets past its plan and stops in its run (a port
/// held by the test, a live API that does not answer), so the run is walked as far as it goes
/// without serving, and any read of the arguments on the way is reported. The plans hold
/// neither the arguments nor the invocation.
final class APIPlanClosedTests: XCTestCase {
    var scratch: ScratchDirectory!
    /// A port nothing else can bind while the test runs: bound, never served.
    var holder: HTTPServer!
    var held: Int { holder.port }

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("api-plan-closed")
        holder = try HTTPServer(host: "127.0.0.1", port: 0, limits: HTTPServer.Limits(maxBodyBytes: 1024, headerTimeout: 1, idleTimeout: 1, maxConnections: 1))
    }

    override func tearDown() {
        holder = nil
        scratch.remove()
    }

    /// No answer from the live API: its fetch fails at once (retried on a virtual clock).
    struct NoAPI: HTTPTransport {
        func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
            throw CurlTransport().classify(code: 7, detail: "refused", where_: "127.0.0.1:9", deadline: deadline, expired: false, overLimit: false)
        }
    }

    func run(_ line: [String], environment: [String: String] = [:]) throws -> (status: ExitStatus?, error: String, plan: Any?) {
        guard case .run(let command, let arguments) = try ArgumentParser(table: .appdna).parse(line) else { throw Failure(.internalError, "not a command") }
        let err = OutputSink(capturingAsTerminal: false)
        let io = CommandIO(stdout: OutputSink(capturingAsTerminal: false), stderr: err, stdinDescriptor: -1, stdinIsTerminal: false,
                           environment: environment, transport: NoAPI(), clock: VirtualClock())
        let invocation = Invocation(command: command, io: io, options: GlobalOptions(arguments, io: io))
        let plan = try command.run.planOnly(arguments, invocation)
        var status: ExitStatus?
        var message = ""
        do { status = try command.run.run(arguments, invocation) } catch { message = FlagWording.message(for: error) }
        XCTAssertTrue(arguments.isClosed, "\(line): ran without closing its arguments")
        XCTAssertEqual(arguments.lateReads, [], "\(line): read its arguments after its plan")
        return (status, message + err.capturedText, plan)
    }

    func testAPIServeRunsFromItsPlanUpToThePortItCannotBind() throws {
        let bundle = try scratch.file("bundle.json", Array(BundleFixtures.apiBundle().utf8))
        let state = scratch.path + "/state.json"
        for extra in [["--port", String(held)],
                      ["--port", "0", "--inspect", String(held), "--record", scratch.path + "/events.ndjson", "--override", "experiment:exp_paywall_v3=variant_b",
                       "--write-bundled", scratch.path + "/app.json", "--json", "--fail", "503:2"]] {
            let result = try run(["api", "serve", "--bundle", bundle, "--state", state] + extra)
            XCTAssertNil(result.status)
            XCTAssertTrue(result.error.contains("in use"), "\(extra): \(result.error)")
            XCTAssertEqual(TableWalk.waysBack(in: result.plan as Any), [], "\(extra)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: state), "\(extra): a start that could not listen wrote the state")
        }
    }

    func testAPIServeRemoteRunsFromItsPlanUpToTheFetch() throws {
        let result = try run(["api", "serve", "--bundle", "@remote", "--refetch", "1m", "--state", scratch.path + "/state.json", "--bootstrap", "live", "--port", "0"],
                             environment: ["APPDNA_SDK_KEY": "adn_test_PlanClosedKEY0123456789zz", "APPDNA_API_URL": "http://127.0.0.1:9"])
        XCTAssertNil(result.status)
        XCTAssertTrue(result.error.contains("127.0.0.1:9"), result.error)
        XCTAssertEqual(TableWalk.waysBack(in: result.plan as Any), [])
    }

    func testAPIOverrideRunsFromItsPlanUpToTheServer() throws {
        for line in [["api", "override", "list", "--server", "http://127.0.0.1:9", "--json"],
                     ["api", "override", "set", "flag:new_paywall=true", "--server", "http://127.0.0.1:9", "--timeout", "1"],
                     ["api", "override", "identity", "experiment:e=v", "--platform", "ios", "--trait", "plan=pro", "--server", "http://127.0.0.1:9"],
                     ["api", "override", "clear", "--all"]] {
            let result = try run(line, environment: ["XDG_RUNTIME_DIR": scratch.path])
            XCTAssertNil(result.status, "\(line)")
            XCTAssertFalse(result.error.isEmpty, "\(line)")
            XCTAssertEqual(TableWalk.waysBack(in: result.plan as Any), [], "\(line)")
        }
    }
}
