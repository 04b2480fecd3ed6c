import Foundation
import XCTest
import TestSupport

/// Common mistakes get the right answer (issue 25 item 3): a flag before its command names the
/// command of the group typed, an id argument that is not UTF-8 is refused, fetch checks that it
/// can write before it downloads, and `--explain` over a whole bundle explains every row.
final class HintsEndToEndTests: XCTestCase {
    func testFlagBeforeItsCommandNamesTheCommandOfThatGroup() throws {
        let queue = try Binary.run(["queue", "--json", "inspect", "pending_events.json"])
        XCTAssertEqual(queue.status, 64)
        XCTAssertEqual(queue.stderr, "appdna: unknown flag '--json'; --json belongs to 'appdna queue inspect': put it after the command\n")
        XCTAssertTrue(try Binary.run(["webhook", "--record", "f", "listen"]).stderr.contains("belongs to 'appdna webhook listen'"))
        XCTAssertTrue(try Binary.run(["bundle", "--json"]).stderr.contains("belongs to 'appdna bundle "))
    }

    func testAUserIDArgumentThatIsNotUTF8IsRefusedAsOnStdin() throws {
        // Process takes Swift strings; bash passes the raw byte.
        let script = #"appdna bucket "$(printf 'user\377')" exp salt; echo "status $?"; printf 'user\377\n' | appdna bucket - exp salt; echo "status $?""#
        let result = try ProcessRunner.run("/bin/bash", ["-c", script],
                                           environment: ["PATH": Binary.url.deletingLastPathComponent().path + ":/usr/bin:/bin", "LC_ALL": "C"])
        XCTAssertTrue(result.stdout.contains("status 65\n"), result.stdout + result.stderr)
        XCTAssertTrue(result.stderr.contains("appdna: the user id is not valid UTF-8"), result.stderr)
        XCTAssertFalse(result.stdout.contains("hashed string"), "the repaired id must not be hashed")
        XCTAssertEqual(result.stdout.components(separatedBy: "status 65").count, 3, "stdin refuses it too: \(result.stdout)")
    }

    func testFetchChecksTheOutputDirectoryBeforeDownloading() throws {
        let scratch = try ScratchDirectory("fetch-output-dir")
        defer { scratch.remove() }
        let bundle = try scratch.file("served.json", Array(#"{"bundle_version": 3, "experiments": {}}"#.utf8))
        let server = try APIServeProcess(["--bundle", bundle])
        let environment = ["APPDNA_SDK_KEY": "adn_test_hints00000000000000001", "APPDNA_API_URL": server.baseURL]
        let missing = try Binary.run(["bundle", "fetch", "-o", scratch.path + "/no-such-dir/appdna-config.json"], environment: environment)
        XCTAssertEqual(missing.status, 73)
        XCTAssertTrue(missing.stderr.contains("cannot create a file in \(scratch.path)/no-such-dir: "), missing.stderr)
        let directory = try Binary.run(["bundle", "fetch", "-o", scratch.path], environment: environment)
        XCTAssertEqual(directory.status, 73)
        XCTAssertTrue(directory.stderr.contains("is a directory"), directory.stderr)
        if getuid() != 0 {
            let readOnly = scratch.path + "/read-only"
            try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o555])
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: readOnly) }
            XCTAssertEqual(try Binary.run(["bundle", "fetch", "-o", readOnly + "/appdna-config.json"], environment: environment).status, 73)
        }
        server.stop()
        XCTAssertEqual(server.requestLines, [], "nothing was downloaded")
    }

    /// 34.8: a missing output directory is 73 with the same hint for every file a command
    /// creates — `-o` (codegen, fetch) and `--record` (webhook listen, api serve) alike.
    func testEveryOutputWithAMissingDirectorySaysToCreateIt() throws {
        let missing = "/nonexistent appdna dir"
        let hint = "hint: the directory \(missing) does not exist; create it first (mkdir -p '\(missing)')\n"
        let bundle = repositoryRoot.appendingPathComponent("examples/bundles/appdna-config.json").path
        let runs = [
            try Binary.run(["bundle", "codegen", bundle, "-o", missing + "/AppDNAConfig.swift"]),
            try Binary.run(["webhook", "listen", "--port", "0", "--record", missing + "/deliveries.ndjson"],
                           environment: ["APPDNA_WEBHOOK_SECRET": "whsec_hint"]),
            try Binary.run(["api", "serve", "--port", "0", "--bundle", bundle, "--record", missing + "/requests.ndjson"]),
        ]
        for run in runs {
            XCTAssertEqual(run.status, 73, run.stderr)
            XCTAssertTrue(run.stderr.hasSuffix(hint), run.stderr)
        }
    }

    func testExplainOverAWholeBundleExplainsEachRow() throws {
        let bundle = repositoryRoot.appendingPathComponent("examples/experiments/appdna-config.json").path
        let result = try Binary.run(["bucket", "user_1", "--bundle", bundle, "--explain"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let plain = try Binary.run(["bucket", "user_1", "--bundle", bundle]).text
        XCTAssertTrue(result.text.hasPrefix(plain), "the table first")
        for experiment in ["onboarding-v2", "paywall-price", "pro-upsell", "dark-mode"] {
            let single = try Binary.run(["bucket", "user_1", experiment, "--bundle", bundle, "--explain"]).text
            XCTAssertTrue(result.text.contains("\n\(experiment):\n" + single), experiment)
        }
        // paywall-price has a blank salt: the old-iOS cause is spelled out.
        XCTAssertTrue(result.text.contains("blank-salt: the salt is blank"), result.text)
        XCTAssertTrue(result.text.contains("iOS <= 1.0.69 hashes \"paywall-price..user_1\""), result.text)
        XCTAssertEqual(try Binary.run(["bucket", "-", "--bundle", bundle, "--explain"]).status, 64)
    }
}
