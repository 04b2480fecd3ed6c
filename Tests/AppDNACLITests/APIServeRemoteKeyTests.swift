import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import TestSupport

/// Issue 54.2: `api serve --bundle @remote` fetches the live bundle again from a request's
/// thread, minutes after start. The key (`--key-file` or APPDNA_SDK_KEY) is read once, at start:
/// the refetch reads no flag (it used to read `bundle fetch`'s `--key-file` declaration, which
/// `api serve` does not declare, and only got serve's value because the two share a name) and
/// no file.
final class APIServeRemoteKeyTests: XCTestCase {
    static let key = "adn_test_ServeRemoteKEY0123456789zz"

    var scratch: ScratchDirectory!
    let clock = VirtualClock()

    override func setUpWithError() throws { scratch = try ScratchDirectory("appdna-serve-remote") }
    override func tearDown() { scratch.remove() }

    func testTheRefetchUsesTheKeyReadAtStartAndReadsNoFlag() throws {
        let keyFile = try scratch.file("key", Array((Self.key + "\n").utf8))
        let api = ScriptedBundleAPI(clock: clock) { path, index in
            path == AppDNAAPI.bundlePath ? .answer(200, body: BundleFixtures.apiBundle(version: 7 + index)) : .answer(404)
        }
        let line = ["api", "serve", "--bundle", "@remote", "--key-file", keyFile, "--state", scratch.path + "/state.json"]
        guard case .run(let command, let arguments) = try ArgumentParser(table: .appdna).parse(line) else { return XCTFail("not a command") }
        let io = CommandIO(stdout: OutputSink(capturingAsTerminal: false), stderr: OutputSink(capturingAsTerminal: false), stdinDescriptor: -1,
                           stdinIsTerminal: false, environment: ["APPDNA_API_URL": "http://127.0.0.1:9"], transport: api, clock: clock)
        let invocation = Invocation(command: command, io: io, options: GlobalOptions(arguments, io: io))
        // The plan reads the key file; from now on the flags are not to be read, and the key
        // file may be gone before the first fetch.
        let plan = try APIServeCommand.plan(arguments, invocation)
        arguments.close()
        try FileManager.default.removeItem(atPath: keyFile)
        XCTAssertEqual(api.keys, [], "the plan sent no request")
        let served = try plan.served(invocation, warn: { _ in })
        XCTAssertEqual(try served.answers().bundleVersion, 7)
        guard case .done = try served.refetch() else { return XCTFail("the live bundle was not fetched again") }
        XCTAssertEqual(try served.answers().bundleVersion, 8)
        XCTAssertEqual(arguments.lateReads, [], "the refetch read the arguments")
        XCTAssertEqual(arguments.undeclaredFlagsRead, [], "the refetch read a flag api serve does not declare")
        XCTAssertEqual(api.keys, [Self.key, Self.key])
    }
}
