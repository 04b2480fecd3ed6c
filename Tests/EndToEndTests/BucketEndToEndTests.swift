import Foundation
import XCTest
import TestSupport

final class BucketEndToEndTests: XCTestCase {
    func testTheReadmeExample() throws {
        var result = try Binary.run(["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2"])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.text, "hashed string  exp_paywall_v3.a8f3c9d2.user_12345\nhash           3214585791\nbucket         5791\n")
        XCTAssertEqual(result.stderr, "")

        result = try Binary.run(["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5"])
        XCTAssertTrue(result.text.hasSuffix("variant        variant_b\n"), result.text)

        result = try Binary.run(["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--scheme", "docs"])
        XCTAssertTrue(result.text.contains("bucket         90\n"), result.text)
    }

    func testJSONOutputIsValidAndStable() throws {
        let arguments = ["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5", "--json", "--explain"]
        let first = try Binary.run(arguments), second = try Binary.run(arguments)
        XCTAssertEqual(first.stdout, second.stdout, "same input, same bytes")
        let object = try JSONSerialization.jsonObject(with: first.stdout) as! [String: Any]
        XCTAssertEqual(object["bucket"] as? Int, 5791)
        XCTAssertEqual(object["hash"] as? Int, 3_214_585_791)
        XCTAssertEqual(object["variant"] as? String, "variant_b")
        let explain = object["explain"] as! [String: Any]
        XCTAssertEqual(explain["utf8_length"] as? Int, 34)
        XCTAssertEqual((explain["other_scheme"] as! [String: Any])["bucket"] as? Int, 90)
    }

    /// 10,000 random ids, ASCII and not, through batch mode, against Python's mmh3 — an
    /// implementation that shares no code with ours.
    func testBatchAgreesWithPythonMmh3OnRandomIDs() throws {
        let python = try requirePythonModules(["mmh3"], because: "the independent MurmurHash3")
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@éüñçø日本語ユーザー🎉🚀\u{301}")
        var ids: [String] = []
        for index in 0..<10_000 {
            let length = Int.random(in: 0...40, using: &generator)
            var id = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            if index % 2 == 0 { id = String(id.unicodeScalars.filter(\.isASCII)) }
            id = id.replacingOccurrences(of: "\r", with: "")
            ids.append(id.isEmpty ? "e" : id)  // a blank line is no user (skipped and counted)
        }
        let input = Data((ids.joined(separator: "\n") + "\n").utf8)
        let ours = try Binary.run(["bucket", "-", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5"], stdin: input)
        XCTAssertEqual(ours.status, 0, ours.stderr)
        let script = """
        import sys, mmh3
        for line in sys.stdin.buffer.read().split(b"\\n")[:-1]:
            h = mmh3.hash(b"exp_paywall_v3.a8f3c9d2." + line, 0, signed=False)
            b = h % 10000
            sys.stdout.buffer.write(line + b"\\t%d\\t%d\\t%s\\n" % (h, b, b"control" if b < 5000 else b"variant_b"))
        """
        let theirs = try ProcessRunner.run(python, ["-c", script], environment: nil, stdin: input)
        XCTAssertEqual(theirs.status, 0, theirs.stderr)
        let ourLines = ours.text.split(separator: "\n", omittingEmptySubsequences: false)
        let theirLines = theirs.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(ourLines.count, 10_001)
        XCTAssertEqual(ourLines.count, theirLines.count)
        for (index, pair) in zip(ourLines, theirLines).enumerated() where pair.0 != pair.1 {
            XCTFail("line \(index + 1): ours \(pair.0.debugDescription), mmh3 \(pair.1.debugDescription)")
            break
        }
    }

    func testBadInputGivesOneLineAndTheContractStatus() throws {
        let notJSON = try temporaryFile("{\"experiments\": {", name: "broken.json")
        let bundle = try temporaryFile(#"{"bundle_version": 1, "experiments": {"exp_a": {"status": "running", "salt": "s", "variants": [{"id": "a", "weight": 1}]}}}"#)
        let cases: [([String], Int32, String)] = [
            (["bucket", "u", "e", "s", "--jsn"], 64, "did you mean '--json'?"),
            (["bucket", "u"], 64, "needs EXPERIMENT"),
            (["bucket", "u", "e", "s", "--variants"], 64, "needs a value"),
            (["bucket", "u", "e", "s", "--variants", "control:0.5"], 64, "expected ID=WEIGHT"),
            (["bucket", "u", "e", "s", "--variants", "a=0.5,b=0.4"], 64, "weights sum to 0.9"),
            (["bucket", "u", "e", "--bundle", notJSON], 65, "broken.json:1:"),
            (["bucket", "u", "nope", "--bundle", bundle], 64, "no experiment 'nope'"),
            (["bucket", "u", "e", "--bundle", "/nonexistent/appdna.json"], 66, "/nonexistent/appdna.json"),
            (["bucket", "u", "e", "s", "--installed-at", "soon"], 64, "--installed-at"),
            (["bucket", "u", "e", "s", "--scheme", "web"], 64, "takes one of sdk, docs"),
            (["bukcet"], 64, "did you mean 'bucket'?"),
        ]
        for (arguments, status, fragment) in cases {
            let result = try Binary.run(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderrLines.filter { !$0.hasPrefix("hint: ") }.count, 1, "one appdna: line (and perhaps a hint): \(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("appdna: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout.count, 0)
        }
    }

    func testBundleEvaluatesEligibilityAndNamesTheFirstFailingRule() throws {
        let bundle = try temporaryFile("""
        {"bundle_version": 3, "experiments": {"experiments": {"onboarding-v2": {"status": "running", "salt": "k3j4h5",
          "platforms": ["ios"], "targeting": {"countries": ["US"]},
          "variants": [{"id": "control", "weight": 0.5}, {"id": "streamlined", "weight": 0.5}]}}}}
        """)
        var result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle, "--platform", "ios", "--country", "US", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        var object = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        XCTAssertEqual(object["bucket"] as? Int, 3512)
        XCTAssertEqual(object["variant"] as? String, "control")
        XCTAssertEqual(object["eligible"] as? Bool, true)

        result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle, "--platform", "android", "--json"])
        object = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        XCTAssertEqual(object["eligible"] as? Bool, false)
        XCTAssertEqual(object["failed_rule"] as? String, "platform")
        XCTAssertTrue(object["variant"] is NSNull)

        result = try Binary.run(["bucket", "user-123", "onboarding-v2", "--bundle", bundle, "--platform", "ios", "--country", "FR"])
        XCTAssertTrue(result.text.contains("no (first failing rule: countries)"), result.text)
    }

    func testSummaryAndFindAndSelfTest() throws {
        let ids = (0..<20_000).map { "user-\($0)" }.joined(separator: "\n")
        var result = try Binary.run(["bucket", "-", "exp", "salt", "--variants", "a=0.5,b=0.5", "--summary", "--json"], stdin: Data(ids.utf8))
        let summary = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        XCTAssertEqual(summary["users"] as? Int, 20_000)
        XCTAssertEqual(summary["sample_ratio_mismatch"] as? Bool, false)
        let counts = (summary["variants"] as! [[String: Any]]).map { $0["users"] as! Int }
        XCTAssertEqual(counts.reduce(0, +), 20_000)

        result = try Binary.run(["bucket", "--find", "variant_b", "--count", "3", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5"])
        let found = result.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(found.count, 3)
        for user in found {
            let check = try Binary.run(["bucket", user, "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5", "--json"])
            XCTAssertEqual((try JSONSerialization.jsonObject(with: check.stdout) as! [String: Any])["variant"] as? String, "variant_b")
        }

        result = try Binary.run(["bucket", "--self-test"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.text.hasSuffix(" 0 failed\n"))
    }

    func testBrokenPipeEndsQuietlyWithStatusZero() throws {
        let script = "set -o pipefail; seq 1 2000000 | '\(Binary.url.path)' bucket - exp salt | head -n 1; echo \"status=${PIPESTATUS[1]}\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertTrue(text.hasPrefix("1\t"), text)
        XCTAssertTrue(text.hasSuffix("status=0\n"), text)
        XCTAssertEqual(errors, "")
    }

    func testColourOnlyWhenAskedOrOnATerminal() throws {
        let arguments = ["bucket", "u", "e", "s", "--variants", "a=0.5,b=0.5"]
        XCTAssertFalse(try Binary.run(arguments).text.contains("\u{1B}["), "a pipe is not a terminal")
        XCTAssertTrue(try Binary.run(arguments + ["--color", "always"]).text.contains("\u{1B}[1m"))
        XCTAssertTrue(try Binary.run(arguments + ["--color=always"], environment: ["NO_COLOR": "1"]).text.contains("\u{1B}["), "an explicit --color always wins")
    }

    func testHelpVersionAndNoArguments() throws {
        let help = try Binary.run(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.text.contains("Exit status"))
        XCTAssertEqual(try Binary.run([]).text, help.text)
        XCTAssertEqual(try Binary.run(["help", "bucket"]).text, try Binary.run(["bucket", "--help"]).text)
        XCTAssertTrue(try Binary.run(["--version"]).text.hasPrefix("appdna "))
    }
}

final class GroupHelpEndToEndTests: XCTestCase {
    func testGroupsListTheirCommandsAndAloneShowTheirHelp() throws {
        let help = try Binary.run(["webhook", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.text.contains("verify"))
        XCTAssertEqual(try Binary.run(["help", "webhook"]).text, help.text)
        // A group alone is answered as the tool alone is: its help, status 0.
        for group in ["webhook", "bundle", "queue", "api"] {
            let bare = try Binary.run([group])
            XCTAssertEqual(bare.status, 0, group)
            XCTAssertEqual(bare.text, try Binary.run([group, "--help"]).text, group)
            XCTAssertEqual(bare.stderr, "", group)
        }
        XCTAssertEqual(try Binary.run([]).status, 0)
        XCTAssertEqual(try Binary.run([]).text, try Binary.run(["--help"]).text)
        XCTAssertTrue(try Binary.run(["webhook", "verfy"]).stderr.contains("did you mean 'webhook verify'?"))
    }
}

final class BucketLineLimitEndToEndTests: XCTestCase {
    /// One 1 GB line without newline drove `bucket -` to 4.9 GB: the whole line was held.
    func test200MBLineIsSkippedAndReportedInConstantMemory() throws {
        let result = try Binary.measurePeakMemory(["bucket", "-", "exp", "salt"]) { handle in
            handle.write(Data("first\n".utf8))
            let chunk = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
            for _ in 0..<200 { handle.write(chunk) }
            handle.write(Data("\nlast".utf8))
        }
        XCTAssertEqual(result.status, 65)
        XCTAssertEqual(result.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] }, ["first", "last"])
        XCTAssertEqual(result.stderr, "appdna: standard input: 1 line(s) are longer than 65536 bytes (no user id is) and were skipped (line 2)\n")
        XCTAssertLessThan(result.maxRSSKiB, 64 * 1024, "peak RSS \(result.maxRSSKiB) KiB for a 200 MB line")
    }

    func testALineAtTheCapIsStillAnID() throws {
        let id = String(repeating: "u", count: 65_536)
        let result = try Binary.run(["bucket", "-", "exp", "salt"], stdin: Data((id + "\r\n" + id + "u").utf8))
        XCTAssertEqual(result.status, 65)
        XCTAssertEqual(result.text.split(separator: "\n").count, 1)
        XCTAssertEqual(result.stderr, "appdna: standard input: 1 line(s) are longer than 65536 bytes (no user id is) and were skipped (line 2)\n")
    }

    /// Spreadsheet exports end with blank or CR-only lines: they were hashed as a user "".
    func testBlankAndCROnlyLinesAreSkippedAndCounted() throws {
        let result = try Binary.run(["bucket", "-", "exp", "salt", "--variants", "a=0.5,b=0.5", "--summary", "--json"],
                                    stdin: Data("u1\n\nu2\r\n\r\n\r\r\nu3".utf8))
        XCTAssertEqual(result.status, 0)
        let json = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        XCTAssertEqual(json["users"] as? Int, 3)
        XCTAssertEqual(json["distinct_users"] as? Int, 3)
        XCTAssertEqual(result.stderr, "appdna: standard input: 3 blank line(s) were skipped (line 2, 4, 5)\n")
        let rows = try Binary.run(["bucket", "-", "exp", "salt"], stdin: Data("\n\nu1\n".utf8))
        XCTAssertEqual(rows.text.split(separator: "\n").map { $0.split(separator: "\t")[0] }, ["u1"])
    }

    /// A list with repeats reported a false sample-ratio mismatch and no hint why.
    func testSummaryWarnsWhenIDsRepeat() throws {
        var ids = (0..<2000).map { "user-\($0)" }
        ids += Array(ids[0..<1000])  // the first half twice
        let result = try Binary.run(["bucket", "-", "exp", "salt", "--variants", "a=0.5,b=0.5", "--summary"],
                                    stdin: Data(ids.joined(separator: "\n").utf8))
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "appdna: warning: ids repeat: 2000 distinct ids in 3000 lines; a repeated user is counted once per line, which skews the split and the sample-ratio test (deduplicate, e.g. with sort -u)\n")
        // Beyond the exact limit the estimate is used, without false alarms on distinct ids.
        let many = (0..<150_000).map { "id-\($0)" }.joined(separator: "\n")
        let distinct = try Binary.run(["bucket", "-", "exp", "salt", "--summary", "--json"], stdin: Data(many.utf8))
        XCTAssertEqual(distinct.stderr, "")
        let json = try JSONSerialization.jsonObject(with: distinct.stdout) as! [String: Any]
        XCTAssertEqual(json["distinct_users_approximate"] as? Bool, true)
        XCTAssertEqual(Double(json["distinct_users"] as! Int), 150_000, accuracy: 150_000 * 0.05)
        let repeated = try Binary.run(["bucket", "-", "exp", "salt", "--summary"], stdin: Data((many + "\n" + many).utf8))
        XCTAssertTrue(repeated.stderr.hasPrefix("appdna: warning: ids repeat: about "), repeated.stderr)
    }
}
