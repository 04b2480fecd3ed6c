import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import TestSupport

/// Issue 54.1 and 54.3 for `queue replay`, the `webhook` commands and `warehouse`: each is a plan
/// and a perform; the plan keeps neither the arguments nor the invocation, has no effect, and
/// refuses what the command line decides before anything is opened; their folders touch files
/// only through `CommandIO.files`.
final class QueueWebhookWarehousePlanTests: XCTestCase {
    static let folders = ["Commands/Queue", "Commands/Webhook", "Commands/Warehouse"]

    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-plans-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    func path(_ name: String) -> String { scratch.appendingPathComponent(name).path }

    /// The type names of everything `value` holds, walked by reflection (classes once each).
    static func heldTypes(_ value: Any) -> Set<String> {
        var seen = Set<ObjectIdentifier>(), found = Set<String>()
        func walk(_ value: Any, depth: Int) {
            guard depth < 12 else { return }
            found.insert(String(describing: type(of: value)))
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .class, let object = value as AnyObject? {
                guard seen.insert(ObjectIdentifier(object)).inserted else { return }
            }
            for child in mirror.children { walk(child.value, depth: depth + 1) }
        }
        walk(value, depth: 0)
        return found
    }

    /// Each command line planned alone (no run): the plan is made, and it holds neither the
    /// arguments nor the invocation; nothing is left on disk.
    func testThePlansHoldNeitherTheArgumentsNorTheInvocationAndLeaveNothing() throws {
        let queue = path("pending_events.json"), body = path("body.json"), secret = path("secret.txt"), bundle = path("bundle.json")
        try Data("[]".utf8).write(to: URL(fileURLWithPath: queue))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: body))
        try Data("whsec_x\n".utf8).write(to: URL(fileURLWithPath: secret))
        try Data(BundleFixtures.apiBundle().utf8).write(to: URL(fileURLWithPath: bundle))
        let environment = ["APPDNA_SDK_KEY": "adn_live_E2EsecretKEY0123456789zz3f9a", "APPDNA_API_URL": "http://127.0.0.1:9"]
        let lines: [[String]] = [
            ["queue", "replay", queue, "--yes"], ["queue", "replay", queue, "--dry-run", "--json"],
            ["webhook", "verify", body, "--signature", "sha256=" + String(repeating: "0", count: 64), "--secret-file", secret],
            ["webhook", "sign", body, "--secret-file", secret],
            ["webhook", "listen", "--port", "0", "--record", path("record.ndjson"), "--secret-file", secret],
            ["warehouse", "assignment", bundle, "--dialect", "duckdb"], ["warehouse", "audit", bundle, "--dialect", "duckdb", "--exposures", "e"],
            ["warehouse", "srm", bundle, "--dialect", "spark", "--exposures", "e"], ["warehouse", "duplicates", "@remote", "--dialect", "clickhouse", "--exposures", "e"],
        ]
        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        for line in lines {
            guard case .run(let command, let arguments) = try ArgumentParser(table: .appdna).parse(line) else { return XCTFail("\(line)") }
            let io = CommandIO(stdout: OutputSink(capturingAsTerminal: false), stderr: OutputSink(capturingAsTerminal: false), stdinDescriptor: -1,
                               stdinIsTerminal: false, environment: environment)
            let plan = try command.run.planOnly(arguments, Invocation(command: command, arguments: arguments, io: io, options: GlobalOptions(arguments, io: io)))
            let held = Self.heldTypes(plan)
            XCTAssertFalse(held.contains("ParsedArguments"), "\(line.joined(separator: " ")): the plan keeps the arguments")
            XCTAssertFalse(held.contains("Invocation"), "\(line.joined(separator: " ")): the plan keeps the invocation")
            XCTAssertEqual(io.stdout.capturedText + io.stderr.capturedText, "", "\(line.joined(separator: " ")): the plan prints nothing")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted(), before, "no state directory, no record file")
    }

    func testThePlantedArgumentsAreFoundInAPlan() {
        struct Kept { let arguments: [Any] }
        XCTAssertTrue(Self.heldTypes(Kept(arguments: [ParsedArguments()])).contains("ParsedArguments"))
    }

    /// `webhook listen` refuses a bad --host, or a forward flag without --forward-to, in its plan:
    /// the record file is not created (it was, before the port was bound and the host refused).
    func testAListenRefusedByItsFlagsLeavesNoRecordFile() {
        let record = path("record.ndjson")
        // The bad --host with each: a listener that took the forward flags would stop there
        // (64 for the host, not for them) instead of listening for ever.
        for (extra, refusal) in [([String](), "'not-an-address' is not an IPv4 or IPv6 address"),
                                 (["--forward-invalid"], "--forward-invalid goes with --forward-to URL"),
                                 (["--forward-timeout", "3"], "--forward-timeout goes with --forward-to URL")] {
            let run = runCLI(["webhook", "listen", "--port", "0", "--record", record, "--host", "not-an-address"] + extra,
                             environment: ["APPDNA_WEBHOOK_SECRET": "whsec_x"])
            XCTAssertEqual(run.status, 64, "\(extra): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(refusal), run.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: record), "\(extra): the record file was created")
        }
    }

    /// `file:line: text` of each line of `source` (comments left out) that calls the platform's
    /// file layer or reads the invocation's arguments.
    static func bypasses(in source: String, file: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"\b(FileReading|AtomicFile|SystemFile|FileStatus\.|FileSystem|ChunkReading|RecordFile|FileWriting|DiskSync)\b|invocation\.arguments"#)
        var found: [String] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.components(separatedBy: "//").first ?? ""
            if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    func testTheirFoldersTouchFilesOnlyThroughTheDoor() throws {
        let root = repositoryRoot.appendingPathComponent("Sources/AppDNACLI")
        var found: [String] = [], scanned = 0
        for folder in Self.folders {
            for file in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path) where file.hasSuffix(".swift") {
                let source = try String(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(file), encoding: .utf8)
                found += Self.bypasses(in: source, file: folder + "/" + file)
                scanned += 1
            }
        }
        XCTAssertGreaterThan(scanned, 20, "the folders are found")
        XCTAssertEqual(found, [], "\n" + found.joined(separator: "\n"))
    }

    func testAPlantedBypassIsFound() {
        let planted = "let b = try FileReading.readAll(path: p)\n// FileStatus.of in a comment\nlet k = invocation.arguments[F.x]\nlet s = try files.status(path: p)\n"
        XCTAssertEqual(Self.bypasses(in: planted, file: "planted.swift").count, 2)
    }
}
