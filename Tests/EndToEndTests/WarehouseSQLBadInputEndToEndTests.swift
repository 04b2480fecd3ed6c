import Foundation
import XCTest
import TestSupport
import AppDNACore

/// Issue 26, "Bad input", and 35.1: what `appdna warehouse …` does with input it cannot turn
/// into a query, and what the retired `--sql` spellings of `bucket` and `queue inspect` answer.
/// Nothing but SQL ever reaches stdout, and nothing at all when the answer is an error; names
/// that are not plain identifiers are refused, never spliced in.
final class WarehouseSQLBadInputEndToEndTests: XCTestCase {
    private var scratch: ScratchDirectory!
    private var bundle = ""

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("sql-bad-input")
        bundle = try scratch.file("bundle.json", Array(#"""
        {"bundle_version": 3, "experiments": {
          "checkout": {"status": "running", "salt": "'); DROP TABLE users; --", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
          "bad-weights": {"status": "running", "salt": "x", "variants": [{"id": "a", "weight": "0.5"}, {"id": "b", "weight": 0.7}]},
          "bad-targeting": {"status": "running", "salt": "y", "targeting": {"countries": "US"}, "variants": [{"id": "a", "weight": 1}]},
          "caf\u00e9": {"status": "running", "salt": "z", "variants": [{"id": "a", "weight": 1}]}
        }}
        """#.utf8))
    }

    override func tearDown() { scratch.remove() }

    /// Runs `arguments` and checks the status, that stdout is empty, and that stderr says `says`.
    @discardableResult
    private func refused(_ arguments: [String], status: Int32, says: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try Binary.run(arguments)
        XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
        XCTAssertEqual(result.text, "", "no SQL on an error", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(says), result.stderr, file: file, line: line)
        return result.stderr
    }

    func testAnUnknownOrMissingEngineIsAUsageErrorListingTheEngines() throws {
        try refused(["warehouse", "assignment", bundle, "--dialect", "oracle"], status: 64, says: SQLEngines.names.joined(separator: ", "))
        try refused(["warehouse", "audit", bundle, "--dialect", "postgres", "--exposures", "e"], status: 64, says: SQLEngines.names.joined(separator: ", "))
        try refused(["warehouse", "srm", bundle, "--exposures", "e"], status: 64, says: "--dialect " + SQLEngines.names.joined(separator: "|"))
    }

    func testAFileThatIsNotABundleGivesItsFindingAndNoSQL() throws {
        let notJSON = try scratch.file("not.json", Array("{\"experiments\": [1,".utf8))
        let noExperiments = try scratch.file("empty.json", Array(#"{"bundle_version": 1}"#.utf8))
        for path in [notJSON, noExperiments] {
            let result = try Binary.run(["warehouse", "assignment", path, "--dialect", "duckdb"])
            XCTAssertEqual(result.status, 65, result.stderr)
            XCTAssertEqual(result.text, "")
            XCTAssertTrue(result.stderr.contains(path), result.stderr)
            let audit = try Binary.run(["warehouse", "audit", path, "--dialect", "clickhouse", "--exposures", "e"])
            XCTAssertEqual(audit.status, 65, audit.stderr)
            XCTAssertEqual(audit.text, "")
        }
        try refused(["warehouse", "assignment", scratch.url.appendingPathComponent("missing.json").path, "--dialect", "duckdb"], status: 66, says: "missing.json")
    }

    /// Rule-level errors become SQL that does what devices do (tested on the engines elsewhere);
    /// the count goes to stderr, stdout holds the query alone.
    func testABundleWithRuleErrorsBecomesSQLWithTheErrorCountOnStderr() throws {
        for arguments in [["warehouse", "assignment", bundle, "--dialect", "spark"],
                          ["warehouse", "audit", bundle, "--dialect", "duckdb", "--exposures", "e"]] {
            let result = try Binary.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.text.hasPrefix("SELECT "), result.text)
            XCTAssertTrue(result.stderr.contains("validation error"), result.stderr)
        }
    }

    /// 35.4: one wording per bad name, led by the flag that gave it, whichever query reads it.
    func testNamesThatAreNotPlainIdentifiersAreRefusedNamingTheirFlag() throws {
        let hostile = ["users; DROP TABLE users", "a b", "1x", "t'x", "\"t\"", "a.b.c.d", ""]
        for name in hostile {
            try refused(["warehouse", "assignment", bundle, "--dialect", "clickhouse", "--table", name], status: 64,
                        says: "--table '\(name)' is not a plain SQL identifier")
            try refused(["warehouse", "assignment", bundle, "--dialect", "clickhouse", "--platform-column", name], status: 64,
                        says: "--platform-column '\(name)' is not a plain SQL identifier")
            try refused(["warehouse", "assignment", bundle, "--dialect", "duckdb", "--trait-column", "plan=\(name)"], status: 64,
                        says: "--trait-column plan=… '\(name)' is not a plain SQL identifier")
            for (command, flag) in [("audit", "--exposures"), ("audit", "--event-id-column"), ("audit", "--variant-column"), ("audit", "--sdk-version-column"),
                                    ("audit", "--bundle-version-column"), ("duplicates", "--session-column"), ("srm", "--experiment-column")] {
                var arguments = ["warehouse", command, bundle, "--dialect", "spark"]
                if flag != "--exposures" { arguments += ["--exposures", "e"] }
                try refused(arguments + [flag, name], status: 64, says: "\(flag) '\(name)' is not a plain SQL identifier")
            }
            // The same column read by two queries, worded the same.
            for command in ["assignment", "audit", "srm", "duplicates"] {
                try refused(["warehouse", command, bundle, "--dialect", "duckdb", "--exposures", "e", "--user-column", name].filter { command != "assignment" || ($0 != "--exposures" && $0 != "e") },
                            status: 64, says: "--user-column '\(name)' is not a plain SQL identifier")
            }
        }
        XCTAssertEqual(try Binary.run(["warehouse", "assignment", bundle, "--dialect", "clickhouse", "--table", "analytics.users"]).status, 0,
                       "db.table is a plain name")
    }

    /// 32.8: an id that differs from one of the bundle only in normalisation says so, as
    /// `bucket` does; a typo gets a "did you mean".
    func testAnExperimentNotInTheBundleIsAUsageErrorWithASuggestion() throws {
        try refused(["warehouse", "assignment", bundle, "--dialect", "clickhouse", "--experiment", "chekout"], status: 64, says: "did you mean 'checkout'")
        try refused(["warehouse", "srm", bundle, "--dialect", "clickhouse", "--exposures", "e", "--experiment", "chekout"],
                    status: 64, says: "did you mean 'checkout'")
        let nfd = try refused(["warehouse", "duplicates", bundle, "--dialect", "duckdb", "--exposures", "e", "--experiment", "cafe\u{301}"], status: 64,
                              says: "only in Unicode normalisation: NFD vs NFC; devices hash the bytes")
        XCTAssertFalse(nfd.contains("did you mean"), nfd)
    }

    /// The salt `'); DROP TABLE users; --` is one string literal in every engine: the query is
    /// one statement, and the salt's bytes appear only inside a literal, escaped for the engine
    /// (Spark and DuckDB hash the bytes after the fixed prefix's whole blocks, so theirs is in
    /// ClickHouse's spelling only; the engine suite runs the query).
    func testAnInjectionInASaltStaysInsideItsLiteral() throws {
        let result = try Binary.run(["warehouse", "assignment", bundle, "--dialect", "clickhouse", "--experiment", "checkout"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.text.contains(#"'checkout.\'); DROP TABLE users; --.'"#), result.text)
        XCTAssertEqual(result.text.components(separatedBy: "DROP TABLE").count, 2, "the salt appears once, in its literal")
        for engine in SQLEngines.names where engine != "clickhouse" {
            let spelled = try Binary.run(["warehouse", "assignment", bundle, "--dialect", engine, "--experiment", "checkout"])
            XCTAssertEqual(spelled.status, 0, spelled.stderr)
            XCTAssertFalse(spelled.text.contains("DROP TABLE"), "the prefix is folded into a number or byte literal: \(spelled.text)")
        }
    }

    func testTheExposureQueriesNeedTheirTable() throws {
        for command in ["audit", "srm", "duplicates"] {
            try refused(["warehouse", command, bundle, "--dialect", "clickhouse"], status: 64, says: "--exposures TABLE")
        }
        try refused(["warehouse", "audit", bundle, "--dialect", "clickhouse", "--exposures", "e", "--experiment", "checkout"],
                    status: 64, says: "unknown flag '--experiment'")
        try refused(["warehouse", "assignment", "--dialect", "clickhouse"], status: 64, says: "needs BUNDLE")
    }

    /// 35.1: the spellings of the last release answer 64 with the same request as a
    /// `warehouse` command, runnable as printed.
    func testTheRetiredSQLSpellingsNameTheNewCommand() throws {
        let spaced = try scratch.file("my bundle.json", Array(try String(contentsOfFile: bundle, encoding: .utf8).utf8))
        let bucket = try refused(["bucket", "--sql", "clickhouse", "--bundle", spaced, "--table", "analytics.users", "--scheme", "docs",
                                  "--trait-column", "plan=plan_tier"], status: 64, says: "'bucket --sql' moved to its own command, 'appdna warehouse assignment'")
        XCTAssertTrue(bucket.contains("run appdna warehouse assignment '\(spaced)' --dialect clickhouse --scheme docs --table analytics.users --trait-column 'plan=plan_tier'"), bucket)
        let srm = try refused(["queue", "inspect", "--bundle", bundle, "--sql", "duckdb", "--exposures", "e", "--srm", "--variant-column", "v"],
                              status: 64, says: "'appdna warehouse srm'")
        XCTAssertTrue(srm.contains("run appdna warehouse srm \(bundle) --dialect duckdb --exposures e --variant-column v"), srm)
        try refused(["queue", "inspect", "--bundle", bundle, "--sql", "spark", "--exposures", "e", "--duplicates"], status: 64, says: "'appdna warehouse duplicates'")
        let audit = try refused(["queue", "inspect", "--sql", "postgres", "--exposures", "e", "--sdk-version-column", "sdk"], status: 64,
                                says: "'queue inspect --sql' moved to its own command, 'appdna warehouse audit'")
        XCTAssertTrue(audit.contains("run appdna warehouse audit BUNDLE --dialect postgres --exposures e --sdk-version-column sdk"), audit)
        // The printed hint runs.
        let hint = try XCTUnwrap(bucket.components(separatedBy: "run ").last?.split(separator: "\n").first.map(String.init))
        let shell = try ProcessRunner.run("/bin/sh", ["-c", hint.replacingOccurrences(of: "appdna ", with: "'\(Binary.url.path)' ", options: .anchored)],
                                          environment: nil)
        XCTAssertEqual(shell.status, 0, shell.stderr)
        XCTAssertTrue(shell.stdout.hasPrefix("SELECT "), shell.stdout)
    }
}
