import AppDNACore
import XCTest
import Foundation
@testable import AppDNANet
import TestSupport
@testable import AppDNACLI

/// Core reports facts; the CLI words them with its flag names. These pin the exact words, so
/// moving them out of Core changed no byte of output.
final class FlagWordingTests: XCTestCase {
    func testVariantsErrorsAreLedByTheFlag() {
        let result = runCLI(["bucket", "user-1", "exp", "salt", "--variants", "a=0.5,b=0.4"])
        XCTAssertEqual(result.status, 64)
        XCTAssertEqual(result.stderr, "appdna: --variants: weights sum to 0.9, not 1\n")
        let twice = runCLI(["bucket", "user-1", "exp", "salt", "--variants", "a=0.5,a=0.5"])
        XCTAssertEqual(twice.stderr, "appdna: --variants: variant 'a' is listed twice\n")
    }

    func testMissingContextIsNamedByItsFlag() {
        XCTAssertEqual(ContextInput.platform.flagText, "--platform")
        XCTAssertEqual(ContextInput.country.flagText, "--country")
        XCTAssertEqual(ContextInput.appVersion.flagText, "--app-version")
        XCTAssertEqual(ContextInput.installedAt.flagText, "--installed-at")
        XCTAssertEqual(ContextInput.trait("plan").flagText, "--trait plan=VALUE")
    }

    func testWebhookHintsNameTheFlags() throws {
        let scratch = try ScratchDirectory("flag-wording")
        defer { scratch.remove() }
        let body = try scratch.file("body.json", Array("{}".utf8))
        let noSecret = runCLI(["webhook", "verify", body, "--signature", "sha256=" + String(repeating: "0", count: 64)])
        XCTAssertEqual(noSecret.stderr, "appdna: no webhook secret given\nhint: set APPDNA_WEBHOOK_SECRET, or pass --secret-file PATH or --secret-stdin\n")
        let notAHeader = runCLI(["webhook", "verify", body, "--header", "sha256 abc"], environment: ["APPDNA_WEBHOOK_SECRET": "s"])
        XCTAssertTrue(notAHeader.stderr.hasSuffix("\nhint: pass --header 'X-AppDNA-Signature: sha256=<hex>' or --signature sha256=<hex>\n"), notAHeader.stderr)
        let github = runCLI(["webhook", "verify", body, "--header", "X-Hub-Signature-256: sha256=abc"], environment: ["APPDNA_WEBHOOK_SECRET": "s"])
        XCTAssertTrue(github.stderr.hasSuffix("\nhint: that is GitHub's header; AppDNA's is X-AppDNA-Signature\n"), github.stderr)
    }

    func testRemediesAreWordedWithTheFlags() throws {
        let scratch = try ScratchDirectory("flag-remedy")
        defer { scratch.remove() }
        let queue = try scratch.file("q.json", Array("{\"schema_version\":1,\"event_id\":\"e1\"}\n".utf8))
        let state = scratch.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        _ = try scratch.file("state/journal", Array("garbage\n".utf8))
        let replay = runCLI(["queue", "replay", queue, "--state-dir", state, "--dry-run"])
        XCTAssertEqual(replay.status, 65)
        XCTAssertEqual(replay.stderr, "appdna: \(state)/journal: not an appdna replay journal\nhint: point --state-dir at a directory of its own\n")

        let deliveries = try scratch.file("d.ndjson", Array("{\"a\":1}\n".utf8))
        let trigger = runCLI(["webhook", "trigger", "--replay", deliveries, "--to", "http://127.0.0.1:9/x"])
        XCTAssertEqual(trigger.status, 65)
        XCTAssertEqual(trigger.stderr, "appdna: warning: \(deliveries):1: not a recorded delivery (needs method, target and headers); skipped\n"
                       + "appdna: \(deliveries): 1 record skipped (line 1); 0 sent\nhint: record deliveries with 'appdna webhook listen --record FILE'\n")
    }

    /// The hints Net's errors used to carry, word for word.
    func testNetworkRemediesKeepTheirWords() {
        XCTAssertEqual(FlagWording.text(.currentAPIKey(orNetworkBlockedFrom: nil)),
                       "check that APPDNA_SDK_KEY (or --key-file) holds a current SDK key of this app")
        XCTAssertEqual(FlagWording.text(.currentAPIKey(orNetworkBlockedFrom: "api.example:443")),
                       "check that APPDNA_SDK_KEY (or --key-file) holds a current SDK key of this app; if it does, this network may be blocked from api.example:443")
        XCTAssertEqual(FlagWording.text(.longerTimeout), "the service is slow or unreachable; raise --timeout or retry later")
        XCTAssertEqual(FlagWording.text(.otherPort), "another program uses that port; pick another with --port (0 picks a free one)")
    }

    // Net's and Core's failures of a setting (time limit, request budget, listening address,
    // body limit) are facts; these pin the CLI's words, byte for byte as before.

    func testListenAddressIsNamedByHost() {
        let result = runCLI(["webhook", "listen", "--host", "not-an-ip"], environment: ["APPDNA_WEBHOOK_SECRET": "s"])
        // A usage error (64): 78 is what the help keeps for a missing secret (issue 42.6).
        XCTAssertEqual(result.status, 64, result.stderr)
        XCTAssertEqual(result.stderr, "appdna: --host 'not-an-ip' is not an IPv4 or IPv6 address\nhint: use 127.0.0.1 (the default), ::1, or 0.0.0.0 / :: for all interfaces\n")
    }

    func testUnreadFIFOIsNamedByTimeout() throws {
        let scratch = try ScratchDirectory("flag-fifo")
        defer { scratch.remove() }
        let fifo = scratch.path + "/out"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        do {
            try AtomicFile.replace(path: fifo, with: Array("{}".utf8), timeout: 0.05)
            XCTFail("written to a FIFO nobody reads")
        } catch {
            XCTAssertFalse(error.message.contains("--") || error.hint != nil, error.message)
            XCTAssertEqual(FlagWording.message(for: error), "\(fifo): nothing read it before the time limit (--timeout) ran out; not written")
            XCTAssertEqual(FlagWording.hint(for: error), "start the reader of the FIFO first, or raise --timeout")
        }
    }

    func testBodyLimitIsNamedByMaxBody() {
        var limits = HTTPServer.Limits(maxBodyBytes: 2000, headerTimeout: 1, idleTimeout: 1, maxConnections: 1)
        XCTAssertEqual(limits.bodyLimitText(2000), "the \(NumberText.binarySize(2000)) limit")
        limits.bodyLimitSetting = FlagWording.bodyLimitSetting
        XCTAssertEqual(limits.bodyLimitText(2000), "the \(NumberText.binarySize(2000)) limit (--max-body)")
        XCTAssertEqual(limits.bodyLimitText(1 << 20), "the 1 MiB limit (--max-body)")
    }
}

/// Range errors say what help says: "1 or more", never 9223372036854775807.
final class RangeWordingTests: XCTestCase {
    func testEveryOpenRangeIsWordedAsInHelp() {
        var checked = 0
        for command in CommandTable.appdna.commands {
            for flag in command.flags where flag.takesValue && (flag.range ?? "").hasSuffix(" or more") {
                guard let lower = Int(flag.range!.split(separator: " ")[0]) else { continue }
                let run = runCLI(command.path + ["--\(flag.long)", String(lower - 1)])
                XCTAssertEqual(run.status, 64, "\(command.name) --\(flag.long)")
                XCTAssertTrue(run.stderr.contains("\(lower) or more"), "\(command.name) --\(flag.long): \(run.stderr)")
                XCTAssertFalse(run.stderr.contains(String(Int.max)), "\(command.name) --\(flag.long): \(run.stderr)")
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 2)
    }
}
