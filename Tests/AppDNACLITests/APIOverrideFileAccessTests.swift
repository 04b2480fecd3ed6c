import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet

/// Issue 54.3: `api override` without --server finds the running `api serve --inspect` through
/// the command's `FileAccess`: the discovery directory, its files and the removal of a stale
/// one are all in memory here (the runtime directory does not exist on disk), and the request
/// goes to the inspector the file names.
final class APIOverrideFileAccessTests: XCTestCase {
    static let runtime = "/nonexistent-appdna-runtime"
    static let directory = runtime + "/appdna"
    static let inspector = "http://127.0.0.1:18766"

    /// Answers every request with the overrides list, keeping the URLs asked for.
    final class Inspector: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var asked: [String] = []
        var urls: [String] { lock.lock(); defer { lock.unlock() }; return asked }

        func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
            lock.lock(); asked.append(request.method + " " + request.url); lock.unlock()
            return HTTPResponse(status: 200, body: Array(#"{"overrides": [{"kind": "flag", "key": "new_paywall", "value": true}], "bundle_version": 43}"#.utf8),
                                url: request.url)
        }
    }

    func testTheRunningServerIsFoundThroughTheFilesAndAStaleFileRemovedThere() throws {
        let me = ProcessControl.id
        let live = InspectorDiscovery(inspector: Self.inspector, api: "http://127.0.0.1:18765", pid: me, started: ProcessControl.startTime(me))
        let livePath = InspectorDiscovery.path(in: Self.directory, pid: me)
        var contents = [livePath: live.jsonLine]
        var stalePaths: [String] = []
        #if os(Linux) // a start time to tell a reused pid by is read from /proc on Linux only
        // Pid 1 is alive, but no process of it started at that tick: the file of an ended server whose pid was reused.
        let stale = InspectorDiscovery(inspector: "http://127.0.0.1:18800", api: "http://127.0.0.1:18799", pid: 1, started: 999_999_999_999)
        stalePaths.append(InspectorDiscovery.path(in: Self.directory, pid: 1))
        contents[stalePaths[0]] = stale.jsonLine
        #endif
        let files = InMemoryFiles(contents, directories: [Self.runtime: 0o700, Self.directory: 0o700])
        let inspector = Inspector()
        let result = runCLI(["api", "override", "list"], environment: ["XDG_RUNTIME_DIR": Self.runtime], transport: inspector, files: files)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "flag:new_paywall=true\n")
        XCTAssertEqual(inspector.urls, ["GET \(Self.inspector)/api/overrides"])
        XCTAssertTrue(files.reads.contains(livePath), "\(files.reads)")
        XCTAssertEqual(files.removals, stalePaths)
        XCTAssertEqual(files.writes, [])
    }

    /// A discovery directory others can write to is not read, and says so, from the files' modes.
    func testADirectoryOthersCanWriteToIsSkippedFromTheFiles() {
        let me = ProcessControl.id
        let live = InspectorDiscovery(inspector: Self.inspector, api: "http://127.0.0.1:18765", pid: me, started: ProcessControl.startTime(me))
        let files = InMemoryFiles([InspectorDiscovery.path(in: Self.directory, pid: me): live.jsonLine],
                                  directories: [Self.runtime: 0o700, Self.directory: 0o777])
        let inspector = Inspector()
        let result = runCLI(["api", "override", "list"], environment: ["XDG_RUNTIME_DIR": Self.runtime], transport: inspector, files: files)
        XCTAssertEqual(result.status, 64, result.stderr)
        XCTAssertTrue(result.stderr.contains("the discovery directory is writable by everyone"), result.stderr)
        XCTAssertEqual(inspector.urls, [])
        XCTAssertEqual(files.reads, [])
    }

    /// `api serve`'s side: the discovery file is made, with its directory 0700, and read back
    /// through the files.
    func testTheDiscoveryFileIsWrittenThroughTheFiles() throws {
        let files = InMemoryFiles(directories: [Self.runtime: 0o700])
        let found = InspectorDiscovery(inspector: Self.inspector, api: "http://127.0.0.1:18765", pid: 4242, started: 7)
        let path = try found.write(in: Self.directory, files: files)
        XCTAssertEqual(path, InspectorDiscovery.path(in: Self.directory, pid: 4242))
        XCTAssertEqual(files.directories[Self.directory], 0o700)
        XCTAssertEqual(files.writes, [path])
        XCTAssertEqual(files.reads, [path], "read back before it is kept")
        XCTAssertEqual(files.contents[path].flatMap(InspectorDiscovery.parse), found)
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.runtime))
    }

    /// A command line the plan refuses sends nothing, reads no discovery file and removes none.
    func testARefusedCommandLineSendsNothingAndReadsNoFile() {
        let files = InMemoryFiles(directories: [Self.runtime: 0o700, Self.directory: 0o700])
        for line in [["api", "override", "set", "experiment:no-variant"], ["api", "override", "list", "--all"],
                     ["api", "override", "list", "--server", "http://example.com:80"], ["api", "override", "clear", "--all", "flag:x"],
                     ["api", "override", "identity", "flag:x=true"]] {
            let inspector = Inspector()
            let result = runCLI(line, environment: ["XDG_RUNTIME_DIR": Self.runtime], transport: inspector, files: files)
            XCTAssertEqual(result.status, 64, "\(line): \(result.stderr)")
            XCTAssertEqual(inspector.urls, [], "\(line)")
        }
        XCTAssertEqual(files.reads, [])
        XCTAssertEqual(files.removals, [])
    }
}
