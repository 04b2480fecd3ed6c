import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import TestSupport

/// `queue replay`'s state directory (journal, lock, dead letters) and its key file go through
/// the files the command is given (`CommandIO.files`), and its plan refuses what the command
/// line and configuration decide (78 without a key) before any queue is read or the journal
/// touched. The state directory is in a directory that does not exist, so a write that went
/// around the injected files would fail (73) instead of landing in memory.
final class QueueReplayFileAccessTests: XCTestCase {
    static let key = "adn_live_E2EsecretKEY0123456789zz3f9a"
    /// 2026-02-19T10:00:00Z
    static let now: Int64 = 1_771_495_200_000
    static let state = "/nonexistent-appdna-directory/replay-state"
    static var journal: String { state + "/journal" }
    static var deadLetters: String { state + "/dead-letter.ndjson" }
    let clock = VirtualClock(wallStart: QueueReplayFileAccessTests.now)
    var scratch: URL!
    var queue: String { scratch.appendingPathComponent("pending_events.json").path }

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-replay-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // Five events an hour old, NDJSON as the iOS SDK stores them.
        let events = (1...5).map { TestEvents.stored($0, ts: Self.now - 3_600_000) }
        try Data((events.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: queue))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    func api(_ status: Int = 200) -> ScriptedBundleAPI {
        ScriptedBundleAPI(clock: clock) { _, _ in .answer(status) }
    }

    func replay(_ api: ScriptedBundleAPI, files: InMemoryFiles, environment: [String: String]? = nil, extra: [String] = []) -> CapturedRun {
        runCLI(["queue", "replay", queue, "--yes", "--state-dir", Self.state, "--now", String(Self.now)] + extra,
               environment: environment ?? ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": "http://127.0.0.1:9"],
               transport: api, clock: clock, files: files)
    }

    static func journalLine(_ numbers: ClosedRange<Int>) -> String {
        "delivered 200 " + numbers.map { TestEvents.id($0) }.joined(separator: " ") + "\n"
    }

    func testTheJournalIsWrittenThroughTheInjectedFilesAndAReRunResumesFromIt() {
        let files = InMemoryFiles(directories: ["/nonexistent-appdna-directory"])
        let first = replay(api(), files: files, extra: ["--batch-size", "3"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(files.text(Self.journal), ReplayJournal.header + "\n" + Self.journalLine(1...3) + Self.journalLine(4...5))
        XCTAssertEqual(files.directoryPaths, ["/", "/nonexistent-appdna-directory", Self.state])
        XCTAssertEqual(files.permissions[Self.state], 0o700)
        XCTAssertEqual(files.permissions[Self.journal], 0o600)
        XCTAssertEqual(files.text(Self.state + "/lock"), "\(ProcessInfo.processInfo.processIdentifier)\n", "the lock names its holder")
        XCTAssertEqual(files.locked, [], "the lock goes with the run")
        XCTAssertEqual(files.syncs.filter { $0 == Self.journal }.count, 2, "each batch synced before it counts")
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.state))

        // The same files again: everything is recorded, nothing is sent.
        let again = api()
        let second = replay(again, files: files)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(again.paths, [])
        XCTAssertTrue(second.stderr.contains("nothing to send: of 5 events read, 5 already delivered"), second.stderr)
    }

    func testARunResumesFromAJournalItFindsInTheInjectedFiles() {
        // An earlier run delivered events 1 and 2, and was killed half way through a line.
        let files = InMemoryFiles([Self.journal: Array((ReplayJournal.header + "\n" + Self.journalLine(1...2) + "delivered 200 0000").utf8)], directories: ["/nonexistent-appdna-directory", Self.state])
        let api = api()
        let run = replay(api, files: files)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(api.paths, [AppDNAAPI.ingestPath], "one batch: events 3 to 5")
        XCTAssertEqual(files.text(Self.journal),
                       ReplayJournal.header + "\n" + Self.journalLine(1...2) + "delivered 200 0000\n" + Self.journalLine(3...5))
    }

    /// The state directory's lock is taken through the injected files: held by another run,
    /// the replay stops (75) naming its holder, and nothing is sent or recorded.
    func testALockHeldInTheInjectedFilesStopsTheRun() throws {
        let files = InMemoryFiles(directories: ["/nonexistent-appdna-directory"])
        try files.makeDirectory(Self.state, permissions: 0o700)
        let held = try XCTUnwrap(try files.lockExclusively(path: Self.state + "/lock", permissions: 0o600))
        try held.replaceContents(with: Array("4242\n".utf8))
        let api = api()
        let run = replay(api, files: files)
        XCTAssertEqual(run.status, 75, run.stderr)
        XCTAssertTrue(run.stderr.contains("another appdna queue replay (pid 4242) is replaying this queue"), run.stderr)
        XCTAssertEqual(api.paths, [])
        XCTAssertNil(files.contents[Self.journal])
        withExtendedLifetime(held) {}
    }

    func testDeadLettersAndTheKeyFileGoThroughTheInjectedFiles() throws {
        let keyFile = "/nonexistent-appdna-directory/key.txt"
        let files = InMemoryFiles([keyFile: Array((Self.key + "\n").utf8)], directories: ["/nonexistent-appdna-directory"])
        let run = replay(api(422), files: files, environment: ["APPDNA_API_URL": "http://127.0.0.1:9"], extra: ["--key-file", keyFile])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(files.reads.first, keyFile)
        let lines = try XCTUnwrap(files.text(Self.deadLetters)).split(separator: "\n")
        XCTAssertEqual(lines.count, 5)
        XCTAssertTrue(lines[0].contains(TestEvents.id(1)), String(lines[0]))
        XCTAssertEqual(files.permissions[Self.deadLetters], 0o600)
        XCTAssertEqual(files.text(Self.journal), ReplayJournal.header + "\n" + "dead-letter 422 " + (1...5).map { TestEvents.id($0) }.joined(separator: " ") + "\n")
    }

    /// The flags are checked before anything is read or written: dead letters are never
    /// appended to a queue, and an empty path is no path.
    func testDeadLettersAimedAtAQueueOrAnEmptyPathAreRefusedBeforeAnything() {
        let files = InMemoryFiles(directories: ["/nonexistent-appdna-directory"])
        let api = api()
        for (extra, refusal) in [(["--dead-letter", queue], "--dead-letter \(queue) is one of the queues to replay"),
                                 (["--dead-letter", ""], "--dead-letter takes a path, not an empty word"),
                                 (["--state-dir", ""], "--state-dir takes a path, not an empty word")] {
            let run = runCLI(["queue", "replay", queue, "--yes"] + extra, environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": "http://127.0.0.1:9"],
                             transport: api, clock: clock, files: files)
            XCTAssertEqual(run.status, 64, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("appdna: " + refusal), run.stderr)
        }
        XCTAssertEqual(files.reads + files.writes, [])
        XCTAssertEqual(api.paths, [])
    }

    /// The key is configuration: without one the plan refuses (78) before any queue is read
    /// (a PATH that does not exist would otherwise be 66) and before the journal is touched.
    func testNoKeyIsRefusedBeforeAnyQueueIsReadOrTheJournalTouched() {
        let files = InMemoryFiles([Self.journal: Array((ReplayJournal.header + "\n").utf8)], directories: ["/nonexistent-appdna-directory", Self.state])
        let api = api()
        let run = runCLI(["queue", "replay", scratch.appendingPathComponent("missing.json").path, "--yes", "--state-dir", Self.state],
                         environment: ["APPDNA_API_URL": "http://127.0.0.1:9"], transport: api, clock: clock, files: files)
        XCTAssertEqual(run.status, 78, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("appdna: no API key"), run.stderr)
        XCTAssertFalse(run.stderr.contains("missing.json"), run.stderr)
        XCTAssertEqual(files.reads, [], "the journal is not read")
        XCTAssertEqual(files.changes, [], "nothing made, written or locked")
        XCTAssertEqual(api.paths, [])

        // With a queue that is there: still 78, and the state directory untouched.
        let second = runCLI(["queue", "replay", queue, "--yes", "--state-dir", Self.state, "--key-file", "/nonexistent-appdna-directory/key.txt"],
                            environment: ["APPDNA_API_URL": "http://127.0.0.1:9"], transport: api, clock: clock, files: files)
        XCTAssertEqual(second.status, 78, second.stderr)
        XCTAssertEqual(files.reads, ["/nonexistent-appdna-directory/key.txt"], "the key file only")
        XCTAssertEqual(files.writes, [])
    }
}
