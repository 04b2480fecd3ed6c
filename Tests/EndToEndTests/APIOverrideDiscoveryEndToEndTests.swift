import Foundation
import TestSupport
import XCTest

/// Issue 52.4: `api override` finds the server without `--server`: `APPDNA_SERVER`, else the
/// discovery file `api serve --inspect` keeps in the user's runtime directory while it runs
/// (only a live pid counts); pointed at the API port it says to start `api serve --inspect
/// PORT`; `clear --all` clears every override in one request (one change of bundle_version).
final class APIOverrideDiscoveryEndToEndTests: XCTestCase {
    var scratch: URL!
    var servers: [InspectedProcess] = []

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-discovery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for server in servers { _ = server.stop() }
        try? FileManager.default.removeItem(at: scratch)
    }

    func bundle() throws -> String {
        let path = scratch.appendingPathComponent("bundle.json").path
        try Data(DevServerEndToEndTests.source.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func overrides(_ server: InspectedProcess) throws -> (items: [[String: Any]], version: Int) {
        let json = try curl(server.inspector + "/api/overrides", in: scratch).json
        return (json["overrides"] as? [[String: Any]] ?? [], json["bundle_version"] as? Int ?? -1)
    }

    func testTheRunningServerIsFoundThroughItsDiscoveryFileAndClearAllIsOneChange() throws {
        let home = scratch.appendingPathComponent("home").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)  // a missing home is not made
        let server = try InspectedProcess(["api", "serve", "--bundle", try bundle()], in: scratch, environment: ["HOME": home])
        servers.append(server)
        let file = "\(home)/.appdna/run/api-serve-\(server.process.processIdentifier).json"
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any]
        XCTAssertEqual(written?["inspector"] as? String, server.inspector)
        XCTAssertEqual(written?["api"] as? String, server.listener)
        XCTAssertEqual(written?["pid"] as? Int, Int(server.process.processIdentifier))

        // No --server, no APPDNA_SERVER: the file.
        let environment = ["HOME": home]
        for override in ["experiment:other=y", "flag:new_paywall=true"] {
            let set = try Binary.run(["api", "override", "set", override], environment: environment)
            XCTAssertEqual(set.status, 0, set.stderr)
        }
        let listed = try Binary.run(["api", "override", "list"], environment: environment)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.text, "experiment:other=y\nflag:new_paywall=true\n")
        let before = try overrides(server)
        XCTAssertEqual(before.items.count, 2)

        // clear --all: every override, one change.
        let cleared = try Binary.run(["api", "override", "clear", "--all"], environment: environment)
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertEqual(cleared.text, "")
        XCTAssertTrue(cleared.stderr.contains("no overrides; serving bundle_version \(before.version + 1)"), cleared.stderr)
        let after = try overrides(server)
        XCTAssertEqual(after.items.count, 0)
        XCTAssertEqual(after.version, before.version + 1, "one change for all of them")
        // Nothing left to clear: still 200, and no change.
        XCTAssertEqual(try Binary.run(["api", "override", "clear", "--all"], environment: environment).status, 0)
        XCTAssertEqual(try overrides(server).version, after.version)
        // --all goes with clear alone, and without KIND:KEY.
        XCTAssertEqual(try Binary.run(["api", "override", "clear", "--all", "flag:new_paywall"], environment: environment).status, 64)
        XCTAssertEqual(try Binary.run(["api", "override", "list", "--all"], environment: environment).status, 64)

        // Stopped: the file is gone, and api override says what to start.
        XCTAssertEqual(server.stop(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
        let none = try Binary.run(["api", "override", "list"], environment: environment)
        XCTAssertEqual(none.status, 64)
        XCTAssertTrue(none.stderr.contains("no api serve --inspect is running for this user"), none.stderr)
        XCTAssertTrue(none.stderr.contains("start appdna api serve with --inspect PORT"), none.stderr)
    }

    func testAFileOfAProcessThatIsGoneIsIgnoredAndTwoServersAskForAChoice() throws {
        let runtime = scratch.appendingPathComponent("runtime").path
        try FileManager.default.createDirectory(atPath: runtime + "/appdna", withIntermediateDirectories: true)
        // A pid that has ended: the file of a server killed with SIGKILL.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let pid = ended.processIdentifier
        try Data(#"{"inspector":"http://127.0.0.1:9","api":"http://127.0.0.1:9","pid":\#(pid)}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(runtime)/appdna/api-serve-\(pid).json"))
        let environment = ["XDG_RUNTIME_DIR": runtime, "HOME": scratch.path]
        let stale = try Binary.run(["api", "override", "list"], environment: environment)
        XCTAssertEqual(stale.status, 64, stale.stderr)
        XCTAssertTrue(stale.stderr.contains("no api serve --inspect is running"), stale.stderr)

        let first = try InspectedProcess(["api", "serve", "--bundle", try bundle()], in: scratch, environment: environment)
        servers.append(first)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(runtime)/appdna/api-serve-\(first.process.processIdentifier).json"))
        XCTAssertEqual(try Binary.run(["api", "override", "list"], environment: environment).status, 0, "the live one, the stale one ignored")
        // A state file of its own: one server per state file (issue 50).
        let second = try InspectedProcess(["api", "serve", "--bundle", try bundle(), "--state", scratch.appendingPathComponent("second-overrides.json").path], in: scratch, environment: environment)
        servers.append(second)
        let two = try Binary.run(["api", "override", "list"], environment: environment)
        XCTAssertEqual(two.status, 64)
        XCTAssertTrue(two.stderr.contains("2 api serve --inspect are running"), two.stderr)
        XCTAssertTrue(two.stderr.contains(first.inspector) && two.stderr.contains(second.inspector), two.stderr)
        // APPDNA_SERVER picks one; --server wins over it.
        let picked = try Binary.run(["api", "override", "set", "experiment:other=x"], environment: environment.merging(["APPDNA_SERVER": second.inspector]) { $1 })
        XCTAssertEqual(picked.status, 0, picked.stderr)
        XCTAssertEqual(try overrides(second).items.count, 1)
        XCTAssertEqual(try overrides(first).items.count, 0)
        let flag = try Binary.run(["api", "override", "list", "--server", first.inspector], environment: environment.merging(["APPDNA_SERVER": second.inspector]) { $1 })
        XCTAssertEqual(flag.text, "")
        let bad = try Binary.run(["api", "override", "list"], environment: ["APPDNA_SERVER": "https://example.com"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("APPDNA_SERVER takes the inspector's address"), bad.stderr)
    }

    /// The API port of a server started without --inspect: not "no such endpoint", but what to do.
    func testTheAPIPortOfAServerWithoutAnInspectorSaysToStartOne() throws {
        let server = try APIServeProcess(["--bundle", try bundle()])
        defer { server.stop() }
        for arguments in [["list"], ["set", "experiment:other=y"], ["clear", "--all"]] {
            let run = try Binary.run(["api", "override"] + arguments + ["--server", server.baseURL])
            XCTAssertEqual(run.status, 64, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("is the API port of api serve, not its inspector"), run.stderr)
            XCTAssertTrue(run.stderr.contains("start appdna api serve with --inspect PORT"), run.stderr)
            XCTAssertFalse(run.stderr.contains("no such endpoint"), run.stderr)
        }
    }
}
