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
    /// returns what the mode reads, or throws the conflict).
    struct Mode: Sendable {
        let arguments: [String]
        let name: String
        let decide: @Sendable (ParsedArguments) throws -> ModeFlags
    }

    static let bucket: @Sendable (ParsedArguments) throws -> ModeFlags = { try BucketMode.decide($0).flags }
    static let fetch: @Sendable (ParsedArguments) throws -> ModeFlags = { try BundleFetchMode.decide($0).flags }
    static let trigger: @Sendable (ParsedArguments) throws -> ModeFlags = { try WebhookTriggerMode.decide($0).flags }
    static let inspect: @Sendable (ParsedArguments) throws -> ModeFlags = { try QueueInspectMode.decide($0).flags }

    static let modes: [Mode] = [
        Mode(arguments: ["bucket", "--self-test"], name: "--self-test", decide: bucket),
        Mode(arguments: ["bucket", "--vectors"], name: "--vectors", decide: bucket),
        Mode(arguments: ["bucket", "--find", "b", "exp", "salt"], name: "--find", decide: bucket),
        Mode(arguments: ["bucket", "u", "--bundle", "b.json"], name: "every experiment of a bundle (no EXPERIMENT)", decide: bucket),
        Mode(arguments: ["bucket", "-", "--bundle", "b.json"], name: "a batch over every experiment (USER '-', no EXPERIMENT)", decide: bucket),
        Mode(arguments: ["bucket", "-", "exp", "salt"], name: "a batch (USER '-')", decide: bucket),
        Mode(arguments: ["bucket", "-", "exp", "salt", "--summary"], name: "--summary", decide: bucket),
        Mode(arguments: ["bucket", "u", "exp", "salt"], name: "one user's report", decide: bucket),
        Mode(arguments: ["bundle", "fetch"], name: "a fetch", decide: fetch),
        Mode(arguments: ["bundle", "fetch", "--keep-on-failure"], name: "--keep-on-failure", decide: fetch),
        Mode(arguments: ["bundle", "fetch", "--check"], name: "--check", decide: fetch),
        Mode(arguments: ["webhook", "trigger", "--list"], name: "--list", decide: trigger),
        Mode(arguments: ["webhook", "trigger", "--replay", "d.ndjson"], name: "--replay", decide: trigger),
        Mode(arguments: ["webhook", "trigger", "user.created", "--print"], name: "--print", decide: trigger),
        Mode(arguments: ["webhook", "trigger", "user.created"], name: "a delivery of TYPE", decide: trigger),
        Mode(arguments: ["queue", "inspect", "q.json"], name: "the summary", decide: inspect),
        Mode(arguments: ["queue", "inspect", "q.json", "--bundle", "b.json"], name: "the exposure audit (--bundle)", decide: inspect),
        Mode(arguments: ["queue", "inspect", "q.json", "--events"], name: "--events", decide: inspect),
    ]

    /// Flags that choose another mode (or, for `--sql`, another command's job): adding one
    /// changes what the line means, so only a usage error is asked of them.
    static let selectors: Set<String> = ["self-test", "vectors", "find", "summary", "check", "keep-on-failure", "list", "replay",
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
            let rules = try mode.decide(parsed)
            XCTAssertEqual(rules.mode, mode.name, "\(mode.arguments)")
            for flag in command.flags where !rules.reads(flag) && !(flag.hidden && Self.retired.contains(flag.long)) {
                let line = mode.arguments + ["--" + flag.long] + (flag.valueName == nil ? [] : [flag.sampleValue.isEmpty ? "x" : flag.sampleValue])
                walked += 1
                do {
                    let (_, withFlag) = try Self.parse(line)
                    let other = try mode.decide(withFlag)
                    // A selector may lead to another mode, which reads it; never to the same one.
                    if !Self.selectors.contains(flag.long) || other.mode == mode.name || !other.reads(flag) {
                        XCTFail("\(line.joined(separator: " ")): accepted, but \(mode.name) does not read --\(flag.long)")
                    }
                } catch let failure as Failure {
                    XCTAssertEqual(failure.kind, .usage, "\(line)")
                    if !Self.selectors.contains(flag.long) {
                        XCTAssertTrue(failure.message.hasPrefix("--\(flag.long) does not go with \(mode.name)"), "\(line): \(failure.message)")
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
            let rules = try mode.decide(parsed)
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
