import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import TestSupport

/// Issue 35.3 / 34.5: each multi-mode command decides its mode in one function, and every flag
/// the mode does not read is refused there (64), worded once — never ignored. This test walks
/// every mode of every such command and adds, one at a time, each flag of the command that the
/// mode does not read.
final class ModeConflictTests: XCTestCase {
    /// One mode: a command line that selects it, and the command's mode function (which
    /// returns the kind of mode decided and what the mode reads, or throws the conflict).
    struct Mode: Sendable {
        let arguments: [String]
        /// The kind of mode the line is meant to select (`Kind` of the command's mode enum).
        let kind: String
        let decide: @Sendable (ParsedArguments) throws -> (kind: String, flags: ModeFlags)
    }

    /// The modes to walk come from the enums: every `Kind` of every mode enum, each with a
    /// command line that selects it. The lines are switches over the kinds, so a mode added
    /// to an enum does not compile here until it has a line, and is walked from then on.
    static let modes: [Mode] =
        BucketMode.Kind.allCases.map { kind in
            Mode(arguments: line(kind), kind: "\(kind)", decide: { let mode = try BucketMode.decide($0); return ("\(mode.kind)", mode.flags) })
        }
        + BundleFetchMode.Kind.allCases.map { kind in
            Mode(arguments: line(kind), kind: "\(kind)", decide: { let mode = try BundleFetchMode.decide($0); return ("\(mode.kind)", mode.flags) })
        }
        + WebhookTriggerMode.Kind.allCases.map { kind in
            Mode(arguments: line(kind), kind: "\(kind)", decide: { let mode = try WebhookTriggerMode.decide($0); return ("\(mode.kind)", mode.flags) })
        }
        + QueueInspectMode.Kind.allCases.map { kind in
            Mode(arguments: line(kind), kind: "\(kind)", decide: { let mode = try QueueInspectMode.decide($0); return ("\(mode.kind)", mode.flags) })
        }

    static func line(_ kind: BucketMode.Kind) -> [String] {
        switch kind {
        case .selfTest: return ["bucket", "--self-test"]
        case .vectors: return ["bucket", "--vectors"]
        case .find: return ["bucket", "--find", "b", "exp", "salt"]
        case .force: return ["bucket", "--force-variant", "exp=b", "--bundle", "b.json"]
        case .allExperiments: return ["bucket", "u", "--bundle", "b.json"]
        case .allExperimentsBatch: return ["bucket", "-", "--bundle", "b.json"]
        case .batch: return ["bucket", "-", "exp", "salt"]
        case .summary: return ["bucket", "-", "exp", "salt", "--summary"]
        case .single: return ["bucket", "u", "exp", "salt"]
        }
    }

    static func line(_ kind: BundleFetchMode.Kind) -> [String] {
        switch kind {
        case .fetch: return ["bundle", "fetch"]
        case .fetchKeepingOnFailure: return ["bundle", "fetch", "--keep-on-failure"]
        case .check: return ["bundle", "fetch", "--check"]
        }
    }

    static func line(_ kind: WebhookTriggerMode.Kind) -> [String] {
        switch kind {
        case .list: return ["webhook", "trigger", "--list"]
        case .replay: return ["webhook", "trigger", "--replay", "d.ndjson"]
        case .print: return ["webhook", "trigger", "user.created", "--print"]
        case .send: return ["webhook", "trigger", "user.created"]
        }
    }

    static func line(_ kind: QueueInspectMode.Kind) -> [String] {
        switch kind {
        case .summary: return ["queue", "inspect", "q.json"]
        case .audit: return ["queue", "inspect", "q.json", "--bundle", "b.json"]
        case .events: return ["queue", "inspect", "q.json", "--events"]
        }
    }

    /// Flags that choose another mode (or, for `--sql`, another command's job): adding one
    /// changes what the line means, so only a usage error is asked of them.
    static let selectors: Set<String> = ["self-test", "vectors", "find", "force-variant", "summary", "check", "keep-on-failure", "list", "replay",
                                         "print", "events", "name", "user", "since", "until", "bundle"]

    /// The retired `--sql` spellings are another command's job now: `RetiredSQLFlags` answers
    /// them before any mode is decided (`WarehouseSQLBadInputEndToEndTests`), so the walk
    /// leaves them out.
    static let retired = Set((RetiredSQLFlags.bucketSpecs + RetiredSQLFlags.queueInspectSpecs).map(\.long))

    static func parse(_ arguments: [String]) throws -> (CommandSpec, ParsedArguments) {
        guard case .run(let command, let parsed) = try ArgumentParser(table: .appdna).parse(arguments) else {
            throw Failure(.internalError, "not a command line: \(arguments)")
        }
        return (command, parsed)
    }

    func testEveryModeRefusesEveryFlagItDoesNotRead() throws {
        var walked = 0
        for mode in Self.modes {
            let (command, parsed) = try Self.parse(mode.arguments)
            let (kind, rules) = try mode.decide(parsed)
            XCTAssertEqual(kind, mode.kind, "\(mode.arguments) selects another mode")
            for flag in command.flags where !rules.reads(flag) && !(flag.hidden && Self.retired.contains(flag.long)) {
                let line = mode.arguments + ["--" + flag.long] + (flag.valueName == nil ? [] : [flag.sampleValue.isEmpty ? "x" : flag.sampleValue])
                walked += 1
                do {
                    let (_, withFlag) = try Self.parse(line)
                    let other = try mode.decide(withFlag)
                    // A selector may lead to another mode, which reads it; never to the same one.
                    if !Self.selectors.contains(flag.long) || other.kind == mode.kind || !other.flags.reads(flag) {
                        XCTFail("\(line.joined(separator: " ")): accepted, but \(rules.mode) does not read --\(flag.long)")
                    }
                } catch let failure as Failure {
                    XCTAssertEqual(failure.kind, .usage, "\(line)")
                    if !Self.selectors.contains(flag.long) {
                        XCTAssertTrue(failure.message.hasPrefix("--\(flag.long) does not go with \(rules.mode)"), "\(line): \(failure.message)")
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(walked, 138, "the walk covers the conflicts (138 when --max-size joined the fetch modes)")
    }

    /// The other direction: a flag of a multi-mode command that no mode reads is refused
    /// everywhere, so it is dead (a flag added to the table but not to a mode's list —
    /// `bundle fetch --max-size` once was).
    func testEveryFlagIsReadBySomeMode() throws {
        var readByCommand: [String: Set<String>] = [:]  // not an id: ASCII command and flag names
        var flagsByCommand: [String: [FlagSpec]] = [:]  // not an id: ASCII command names
        for mode in Self.modes {
            let (command, parsed) = try Self.parse(mode.arguments)
            let rules = try mode.decide(parsed).flags
            flagsByCommand[command.path.joined(separator: " ")] = command.flags
            readByCommand[command.path.joined(separator: " "), default: []].formUnion(command.flags.filter(rules.reads).map(\.long))
        }
        for (command, flags) in flagsByCommand.sorted(by: { $0.key < $1.key }) {
            for flag in flags where !(flag.hidden && Self.retired.contains(flag.long)) {
                XCTAssertTrue(readByCommand[command, default: []].contains(flag.long) || Self.selectors.contains(flag.long),
                              "\(command) --\(flag.long): no mode reads it, so every line with it is refused")
            }
        }
    }

    /// The conflicts the issue found, as a user meets them: each is 64 and names both sides.
    func testTheReportedSilentFlagsAreRefusedOrHonoured() {
        let batch = runCLI(["bucket", "-", "exp", "salt", "--json"], stdin: "u1\n")
        XCTAssertEqual(batch.status, 64)
        XCTAssertEqual(batch.stdout, "")
        XCTAssertTrue(batch.stderr.hasPrefix("appdna: --json does not go with a batch (USER '-'); the rows are --format tsv, csv or ndjson"), batch.stderr)

        let version = runCLI(["--version", "--json"])
        XCTAssertEqual(version.status, 64)
        XCTAssertEqual(version.stderr, "appdna: --json does not go with --version; it prints one line, 'appdna VERSION', and takes no command's flags\n")
        XCTAssertFalse(version.stderr.contains("bucket"))

        let list = runCLI(["webhook", "trigger", "--list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let document = try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        let types = document?["event_types"] as? [[String: String]]
        XCTAssertEqual(types?.count, WebhookEventCatalog.all.count)
        XCTAssertEqual(types?.first?["type"], WebhookEventCatalog.all.first?.name)

        // The gate's verdict is in the JSON too, not only on stderr and in the markdown.
        let examples = repositoryRoot.appendingPathComponent("examples/experiments").path
        let gate = runCLI(["bundle", "diff", "--json", "--fail-on-switch", "10", examples + "/appdna-config.json", examples + "/appdna-config-next.json"])
        XCTAssertEqual(gate.status, 1)
        let verdict = (try? JSONSerialization.jsonObject(with: Data(gate.stdout.utf8)) as? [String: Any])?["gate"] as? [String: Any]
        XCTAssertEqual(verdict?["passed"] as? Bool, false)
        XCTAssertEqual(verdict?["failed"] as? [String], ["onboarding-v2"])
        XCTAssertEqual((verdict?["experiments"] as? [[String: Any]])?.map { $0["over"] as? Bool }, [true, false])
        let stat = runCLI(["bundle", "diff", "--stat", "--json", examples + "/appdna-config.json", examples + "/appdna-config-next.json"])
        XCTAssertEqual(stat.stderr, "appdna: --json does not go with --stat; --stat prints a text summary of the changes per section\n")
    }
}
