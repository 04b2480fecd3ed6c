import XCTest
@testable import AppDNACLI
import TestSupport

/// One syntax for every duration and size flag: a number of seconds or `ms`/`s`/`m`/`h`/`d`;
/// bytes or `B`/`KiB`/`MiB`/`GiB`. Each form, through the real parser and the real flags.
final class DurationAndSizeSyntaxTests: XCTestCase {
    let parser = ArgumentParser(table: .appdna)

    /// The parsed flags of `argv`; anything but a command to run (help, a version) fails the test.
    func arguments(_ argv: [String]) throws -> ParsedArguments {
        guard case .run(_, let parsed) = try parser.parse(argv) else { throw TestFailure("not parsed as a command: \(argv)") }
        return parsed
    }

    func testEveryDurationForm() throws {
        let forms: [(String, Double)] = [("30", 30), ("0.5", 0.5), ("250ms", 0.25), ("5s", 5), ("2m", 120), ("1h", 3600), ("1d", 86_400), ("1.5h", 5400), ("5S", 5)]
        for (text, seconds) in forms {
            XCTAssertEqual(UnitText.seconds(from: text), seconds, text)
            // --timeout was "SECONDS" only: "5s" used to be refused.
            XCTAssertEqual(try arguments(["bundle", "fetch", "--timeout", text])[APIFlags.timeout], seconds, text)
            if seconds <= 3600 {
                XCTAssertEqual(try arguments(["webhook", "listen", "--idle-timeout=\(text)"])[WebhookListenFlags.idleTimeout], seconds, text)
            }
        }
        // --max-age (milliseconds) takes the same forms: a bare number is seconds, as everywhere.
        XCTAssertEqual(try arguments(["queue", "replay", "q.json", "--max-age", "7"])[QueueReplayFlags.maxAge], 7000)
        XCTAssertEqual(try arguments(["queue", "replay", "q.json", "--max-age", "1500ms"])[QueueReplayFlags.maxAge], 1500)
        XCTAssertEqual(try arguments(["queue", "replay", "q.json", "--max-age", "7d"])[QueueReplayFlags.maxAge], 7 * 86_400_000)
        XCTAssertEqual(try arguments(["api", "serve", "--latency", "250ms"])[APIServeFlags.latency], 0.25)
    }

    func testDurationMistakesAreRefusedWithTheSyntax() {
        for text in ["", "5x", "s", "-1", "1e3", "inf", "5 s", "2w", "0x10", "1h30m"] {
            XCTAssertNil(UnitText.seconds(from: text), text)
            XCTAssertThrowsError(try parser.parse(["bundle", "fetch", "--timeout", text]), text) { error in
                XCTAssertTrue("\(error)".contains("ms, s, m, h, d"), "\(error)")
            }
        }
        // Within the form but out of range.
        XCTAssertThrowsError(try parser.parse(["bundle", "fetch", "--timeout", "2d"]))
    }

    func testEverySizeForm() throws {
        let forms: [(String, Int)] = [("1048576", 1_048_576), ("1MiB", 1_048_576), ("512KiB", 524_288), ("1.5KiB", 1536), ("100B", 100), ("1GiB", 1 << 30), ("2mib", 2 << 20)]
        for (text, bytes) in forms {
            XCTAssertEqual(UnitText.bytes(from: text), bytes, text)
            XCTAssertEqual(try arguments(["webhook", "listen", "--max-body", text])[WebhookListenFlags.maxBody], bytes, text)
        }
        XCTAssertEqual(try arguments(["api", "serve", "--status-413-over", "64KiB"])[APIServeFlags.status413Over], 65_536)
        for text in ["", "1MB", "1M", "0.5B", "-1", "KiB", "2GiB"] {
            XCTAssertThrowsError(try parser.parse(["webhook", "listen", "--max-body", text]), text) { error in
                XCTAssertTrue("\(error)".contains("KiB, MiB, GiB"), "\(error)")
            }
        }
    }

    func testHelpSaysItOnce() throws {
        let help = HelpRenderer(table: .appdna).render(path: [])
        XCTAssertEqual(help.components(separatedBy: "Durations are seconds").count, 2, help)
        XCTAssertEqual(HelpRenderer(table: .appdna).render(path: ["bundle", "fetch"]).components(separatedBy: "Durations are seconds").count, 1)
    }
}
