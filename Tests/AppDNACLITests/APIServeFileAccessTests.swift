import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import AppDNAServers
import TestSupport

/// Issue 54.3: `api serve`'s files (the bundle, the `--state` file, `--write-bundled`, the
/// `--key-file`) and `api override`'s discovery files go through the command's `FileAccess`,
/// and its plan checks every flag before anything is written (54.1). Every path is in a
/// directory that does not exist: a read or a write that went around the injected files would
/// fail (66, 73) instead of landing in memory.
final class APIServeFileAccessTests: XCTestCase {
    static let directory = "/nonexistent-appdna-serve"
    static let bundle = directory + "/bundle.json"
    static let state = directory + "/state.json"
    static let forced = "experiment:exp_paywall_v3=variant_b"

    func files(_ more: [String: [UInt8]] = [:], refused: Set<String> = []) -> InMemoryFiles {
        InMemoryFiles([Self.bundle: Array(BundleFixtures.apiBundle(version: 42).utf8)].merging(more) { $1 },
                      directories: [Self.directory: 0o755, Self.directory + "/MyApp": 0o755], refused: refused)
    }

    func served(_ files: InMemoryFiles, overrides: [BundleOverride]) throws -> ServedBundle {
        try ServedBundle(source: .file(path: Self.bundle), name: Self.bundle, statePath: Self.state, overrides: overrides, files: files,
                         clock: SystemClock(), words: { FlagWording.message(for: $0) }, warn: { _ in }, refetchFailed: { _, _ in })
    }

    /// The start's override is proven without a write, written through the files once kept,
    /// read back by the next start, and a change at run time replaces it there.
    func testTheStateFileIsWrittenAndReadThroughTheFiles() throws {
        let files = files()
        let item = try BundleOverride(parsing: Self.forced)
        let first = try served(files, overrides: [item])
        XCTAssertEqual(files.writes, [], "proven, not written, before keep")
        try first.keep()
        XCTAssertEqual(files.writes, [Self.state])
        let kept = try OverrideState.decode(try XCTUnwrap(files.contents[Self.state]), name: "state")
        XCTAssertEqual(kept.overrides.list, [item])
        XCTAssertEqual(kept.changes, 1)
        XCTAssertEqual(try first.answers().bundleVersion, 43)

        // A restart without --override reads the state back from the same files.
        let second = try served(files, overrides: [])
        try second.keep()
        XCTAssertEqual(second.overrides, [item])
        XCTAssertEqual(try second.answers().bundleVersion, 43)
        XCTAssertEqual(files.writes, [Self.state], "the state as it was is not written again")
        XCTAssertTrue(try second.clear(kind: .experiment, key: "exp_paywall_v3"))
        XCTAssertEqual(files.writes, [Self.state, Self.state])
        let cleared = try OverrideState.decode(try XCTUnwrap(files.contents[Self.state]), name: "state")
        XCTAssertEqual(cleared.overrides.list, [])
        XCTAssertEqual(cleared.changes, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.directory))
    }

    /// A state file that is not one is refused as read through the files (65), before anything.
    func testAStateFileThatIsNotOneIsRefusedFromTheFiles() {
        let files = files([Self.state: Array("not json".utf8)])
        XCTAssertThrowsError(try served(files, overrides: [])) { error in
            XCTAssertEqual((error as? ClassifiedError)?.kind, .malformedInput, "\(error)")
        }
        XCTAssertEqual(files.writes, [])
    }

    /// `--record`: the file is opened and appended to through the files (`DeliveryRecorder`,
    /// which `api serve` hands its command's files); a refused path is 73.
    func testRecordAppendsThroughTheFiles() throws {
        let path = Self.directory + "/events.ndjson"
        let files = files()
        let recorder = try DeliveryRecorder(path: path, files: files)
        XCTAssertNil(recorder.append(line: Array("{\"event_id\":\"e1\"}\n".utf8)))
        XCTAssertNil(recorder.append(line: Array("{\"event_id\":\"e2\"}\n".utf8)))
        XCTAssertEqual(files.contents[path].map { String(decoding: $0, as: UTF8.self) }, "{\"event_id\":\"e1\"}\n{\"event_id\":\"e2\"}\n")
        XCTAssertThrowsError(try DeliveryRecorder(path: path, files: self.files(refused: [path]))) { error in
            XCTAssertEqual((error as? ClassifiedError)?.kind, .cannotCreateOutput, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.directory))
    }

    // MARK: - The plan

    /// The plan of `line` run over `files`, with the arguments closed after it, as the runner does.
    func plan(_ line: [String], _ files: InMemoryFiles, bundle: String = APIServeFileAccessTests.bundle, environment: [String: String] = [:]) throws -> APIServePlan {
        guard case .run(let command, let arguments) = try ArgumentParser(table: .appdna).parse(["api", "serve", "--bundle", bundle, "--state", Self.state] + line) else {
            throw Failure(.internalError, "not a command line")
        }
        let io = CommandIO(stdout: OutputSink(capturingAsTerminal: false), stderr: OutputSink(capturingAsTerminal: false), stdinDescriptor: -1,
                           stdinIsTerminal: false, environment: environment, transport: nil, clock: SystemClock(), files: files)
        defer { arguments.close() }
        return try APIServeCommand.plan(arguments, Invocation(command: command, io: io, options: GlobalOptions(arguments, io: io)))
    }

    func assertRefused(_ line: [String], _ files: InMemoryFiles, status: FailureKind, saying words: String,
                       file: StaticString = #filePath, line number: UInt = #line) {
        XCTAssertThrowsError(try plan(line, files), file: file, line: number) { error in
            XCTAssertEqual((error as? ClassifiedError)?.kind, status, "\(error)", file: file, line: number)
            XCTAssertTrue(FlagWording.message(for: error).contains(words), FlagWording.message(for: error), file: file, line: number)
        }
        XCTAssertEqual(files.writes, [], "\(line) wrote", file: file, line: number)
    }

    func testThePlanProvesTheOverridesReadingOnly() throws {
        let files = files()
        let plan = try plan(["--override", Self.forced], files)
        XCTAssertEqual(plan.overrides.map(\.text), [Self.forced])
        XCTAssertEqual(files.writes, [])
        XCTAssertEqual(Set(files.reads), [Self.bundle, Self.state], "the bundle and the state were read through the files")
        // A variant the bundle does not have: refused by the plan (64), nothing written.
        assertRefused(["--override", "experiment:exp_paywall_v3=nope"], files, status: .usage, saying: "nope")
    }

    func testEveryFlagIsCheckedByThePlanBeforeAnyFileIsRead() {
        for (line, words) in [(["--override", Self.forced, "--fail", "bogus"], "--fail"),
                              (["--inspect-keep", "5"], "--inspect-keep goes with --inspect"),
                              (["--refetch", "1m"], "--refetch goes with --bundle @remote"),
                              (["--write-bundled", Self.directory + "/app.json", "--bootstrap", "live"], "--write-bundled goes with --bootstrap local")] {
            let files = files()
            assertRefused(line, files, status: .usage, saying: words)
            XCTAssertEqual(files.reads, [], "\(line): read before refusing")
        }
    }

    /// With `--bundle @remote` the plan loads the state (through the files) and checks the
    /// API's configuration, but fetches nothing: a state file that is not one is refused (65)
    /// before any request.
    func testARemoteBundlesPlanLoadsTheStateAndSendsNothing() throws {
        let environment = ["APPDNA_SDK_KEY": "adn_test_FileAccessKEY0123456789zz", "APPDNA_API_URL": "http://127.0.0.1:9"]
        let files = files()
        let plan = try plan(["--refetch", "5m"], files, bundle: "@remote", environment: environment)
        guard case .remote(let key, let every) = plan.source else { return XCTFail("not the live bundle") }
        XCTAssertEqual(key.secret, environment["APPDNA_SDK_KEY"])
        XCTAssertEqual(every, 300)
        XCTAssertEqual(files.reads, [Self.state])
        let broken = self.files([Self.state: Array("[]".utf8)])
        XCTAssertThrowsError(try self.plan([], broken, bundle: "@remote", environment: environment)) { error in
            XCTAssertEqual((error as? ClassifiedError)?.kind, .malformedInput, "\(error)")
        }
        XCTAssertEqual(broken.writes, [])
    }

    /// The key file is read once, by the plan, through the files; an empty one is refused (78).
    func testTheKeyFileIsReadOnceThroughTheFiles() throws {
        let keyFile = Self.directory + "/key"
        let files = files([keyFile: Array("k-123\n".utf8)])
        let plan = try plan(["--key-file", keyFile], files)
        XCTAssertEqual(plan.requiredKey, Array("k-123".utf8))
        XCTAssertEqual(files.reads.filter { $0 == keyFile }.count, 1)
        assertRefused(["--key-file", keyFile], self.files([keyFile: Array("\n".utf8)]), status: .configuration, saying: "is empty")
    }

    /// `--write-bundled`: checked by the plan (a refused path is 73 before anything), and the
    /// served bundle written through the files, in the SDK shape, passing bundle validate.
    func testWriteBundledGoesThroughTheFiles() throws {
        let app = Self.directory + "/MyApp/appdna-config.json"
        assertRefused(["--write-bundled", app], files(refused: [app]), status: .cannotCreateOutput, saying: "permission denied")

        let files = files()
        let plan = try plan(["--write-bundled", app, "--override", Self.forced], files)
        let bundled = try XCTUnwrap(plan.bundled)
        let served = try served(files, overrides: plan.overrides)
        try served.keep()
        var notes: [String] = []
        bundled.write(try served.answers(), note: { notes.append($0) })
        XCTAssertEqual(files.writes, [Self.state, app], notes.joined(separator: "\n"))
        let written = try XCTUnwrap(files.contents[app])
        XCTAssertEqual(BundleValidator.validate(bytes: written).filter { $0.severity == .error }.count, 0)
        let root = try JSONDocument(bytes: written).root
        XCTAssertEqual(root["bundle_version"]?.int64, 43)
        XCTAssertNil(root["content"], "the SDK file shape")
        XCTAssertTrue(notes.first?.hasPrefix("wrote bundle_version 43 to \(app)") == true, notes.joined(separator: "\n"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.directory))
    }
}
