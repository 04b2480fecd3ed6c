import Foundation
import XCTest
import LoopbackHTTPServer
import TestSupport

/// What an outside attack on "every command plans before it acts" found (issue 54), each now
/// refused by the plan, with the built binary: nothing left behind, no request sent.
final class OutsiderPlanFindingsEndToEndTests: XCTestCase {
    var directory: String!
    var counted: LoopbackHTTPServer!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "appdna-outsider-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(#"{"bundle_version": 3, "api_version": 1, "config": {"greeting": "hi"}, "experiments": {"e": {"salt": "s", "status": "running", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}}}"#.utf8)
            .write(to: URL(fileURLWithPath: directory + "/bundle.json"))
        try Data("adn_test_outsider_key_0123456789\n".utf8).write(to: URL(fileURLWithPath: directory + "/key.txt"))
        try Data("[]".utf8).write(to: URL(fileURLWithPath: directory + "/pending_events.json"))
        counted = try LoopbackHTTPServer { _, _ in LoopbackHTTPServer.Reply(status: 400, json: #"{"error":"bad"}"#) }
    }

    override func tearDown() {
        counted.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var environment: [String: String] {
        ["APPDNA_SDK_KEY": "adn_test_outsider_key_0123456789", "APPDNA_API_URL": counted.baseURL, "HOME": directory,
         "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
    }

    func run(_ line: [String], environment: [String: String]? = nil) throws -> (status: Int32, stderr: String) {
        try RefusedLinesLeaveNothingEndToEndTests.runBounded(line, environment: environment ?? self.environment, in: directory)
    }

    func assertRefused(_ line: [String], _ status: Int32, _ words: String, environment: [String: String]? = nil,
                       file: StaticString = #filePath, line number: UInt = #line) throws {
        let before = RefusedLinesLeaveNothingEndToEndTests.snapshot(directory)
        let result = try run(line, environment: environment)
        XCTAssertEqual(result.status, status, "\(line): \(result.stderr)", file: file, line: number)
        XCTAssertTrue(result.stderr.contains(words), "\(line): \(result.stderr)", file: file, line: number)
        XCTAssertEqual(RefusedLinesLeaveNothingEndToEndTests.snapshot(directory), before, "\(line) left something", file: file, line: number)
        XCTAssertEqual(counted.requests.count, 0, "\(line) sent a request", file: file, line: number)
    }

    /// A device as a key, secret or body file was read until memory ran out.
    func testADeviceIsNeverReadAsAKeyASecretOrABody() throws {
        try assertRefused(["bundle", "fetch", "-o", "out.json", "--key-file", "/dev/zero"], 78, "/dev/zero is a character device, not a file")
        try assertRefused(["webhook", "sign", "bundle.json", "--secret-file", "/dev/zero"], 78, "/dev/zero is a character device, not a file")
        try assertRefused(["webhook", "trigger", "subscription.renewed", "--body", "/dev/zero", "--to", counted.baseURL], 66,
                          "/dev/zero is a character device, not a file")
    }

    /// One file in two roles: the source overwritten by what is served, the key by the bundle.
    func testOneFileIsNeverGivenTwoRoles() throws {
        try assertRefused(["bundle", "codegen", "bundle.json", "-o", "./bundle.json"], 64, "FILE and -o name the same file (bundle.json)")
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--write-bundled", "bundle.json", "--port", "0"], 64,
                          "--bundle and --write-bundled name the same file")
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--record", "bundle.json", "--port", "0"], 64,
                          "--bundle and --record name the same file")
        try assertRefused(["bundle", "fetch", "-o", "key.txt", "--key-file", "key.txt"], 64, "-o and --key-file name the same file (key.txt)")
    }

    /// A base URL with a query or a fragment sent requests somewhere else, and exited 0.
    func testAnAPIURLWithAQueryOrAFragmentIsConfigurationNotARequest() throws {
        for url in [counted.baseURL + "/base?q=1", counted.baseURL + "?x=1", counted.baseURL + "#frag"] {
            var environment = environment
            environment["APPDNA_API_URL"] = url
            try assertRefused(["bundle", "fetch", "-o", "-", "--raw"], 78, "APPDNA_API_URL has a query or a fragment", environment: environment)
        }
    }

    /// Flags that changed nothing, and one port in two roles.
    func testFlagsWithoutEffectAndOnePortTwiceAreUsageErrors() throws {
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--fail-after", "3"], 64, "--fail-after goes with --fail")
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--retry-after", "1"], 64, "--retry-after goes with --fail")
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--key-file", "key.txt", "--key-from-env"], 64, "give one")
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--port", "18260", "--inspect", "18260"], 64, "is the port api serve listens on")
        try assertRefused(["webhook", "listen", "--secret-file", "key.txt", "--port", "18261", "--inspect", "18261"], 64,
                          "is the port webhook listen listens on")
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--state", ""], 64, "--state takes a path, not an empty word")
    }

    /// Flags a mode never uses were taken and changed nothing (the output byte for byte the same).
    func testFlagsAModeDoesNotUseAreRefused() throws {
        try assertRefused(["bucket", "u1", "e", "s", "--variants", "a=0.5,b=0.5", "--platform", "ios"], 64,
                          "--platform does not go with --variants (no bundle to target)")
        try assertRefused(["bucket", "u1", "e", "s", "--variants", "a=0.5,b=0.5", "--timeout", "5"], 64, "--timeout does not go with local bundles")
        try assertRefused(["bucket", "u1", "e", "--bundle", "bundle.json", "--key-file", "key.txt"], 64, "--key-file does not go with local bundles")
        try assertRefused(["queue", "inspect", "pending_events.json", "--bundle", "bundle.json", "--key-file", "key.txt"], 64,
                          "--key-file does not go with local bundles")
        try assertRefused(["warehouse", "assignment", "bundle.json", "--dialect", "duckdb", "--timeout", "5"], 64, "--timeout does not go with local bundles")
        try assertRefused(["queue", "replay", "pending_events.json", "--dry-run", "--yes"], 64, "--yes does not go with --dry-run")
        try assertRefused(["queue", "replay", "pending_events.json", "--dry-run", "--include-stale", "--max-age", "1h"], 64,
                          "--max-age does not go with --include-stale")
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: directory + "/recorded.ndjson"))
        try assertRefused(["webhook", "trigger", "--replay", "recorded.ndjson", "--to", counted.baseURL, "--secret-file", "key.txt"], 64,
                          "--secret-file does not go with --replay without --resign")
        try assertRefused(["bundle", "fetch", "-o", "-", "--force"], 64, "--force does not go with -o -")
    }

    /// A start that failed at its port left an empty record file: the file is opened once the
    /// ports are bound, and a new file's missing directory is the plan's 73, in the one wording.
    func testAPortInUseLeavesNoRecordFileAndAMissingDirectoryIsThePlans() throws {
        let held = String(counted.port)
        try assertRefused(["webhook", "listen", "--secret-file", "key.txt", "--port", held, "--record", "deliveries.ndjson"], 69, "in use")
        try assertRefused(["api", "serve", "--bundle", "bundle.json", "--port", held, "--state", "state.json", "--record", "events.ndjson"], 69, "in use")
        try assertRefused(["webhook", "listen", "--secret-file", "key.txt", "--port", "0", "--record", "nodir/deliveries.ndjson"], 73,
                          "create it first (mkdir -p")
    }

    /// What a plan can tell from the files alone is told before anything is sent.
    func testAStateDirectoryThatIsAFileAndAMissingFileBesideTheLiveBundleAreRefusedFirst() throws {
        try assertRefused(["queue", "replay", "pending_events.json", "--yes", "--state-dir", "bundle.json"], 73,
                          "--state-dir bundle.json is a regular file, not a directory")
        try assertRefused(["bundle", "validate", "@remote", "missing.json"], 66, "missing.json")
    }

    /// A FIFO as --dead-letter blocked the run for good at its first refused event (after
    /// sending); a missing directory failed it then.
    func testADeadLetterPathThatCannotTakeRecordsIsRefusedBeforeAnyRequest() throws {
        XCTAssertEqual(mkfifo(directory + "/fifo", 0o600), 0)
        try assertRefused(["queue", "replay", "pending_events.json", "--yes", "--state-dir", "state", "--dead-letter", "fifo"], 73,
                          "fifo is a FIFO, not a regular file: --dead-letter writes only to a regular file")
        try assertRefused(["queue", "replay", "pending_events.json", "--yes", "--state-dir", "state", "--dead-letter", "nodir/dead.ndjson"], 73,
                          "the directory nodir does not exist")
    }
}
