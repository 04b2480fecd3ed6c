import Foundation
import XCTest
import TestSupport

/// Issue 26, "Bad input": what `bucket --sql` and `queue inspect --sql` do with input they
/// cannot turn into a query. Nothing but SQL ever reaches stdout, and nothing at all when the
/// answer is an error; names that are not plain identifiers are refused, never spliced in.
final class WarehouseSQLBadInputEndToEndTests: XCTestCase {
    private var scratch: ScratchDirectory!
    private var bundle = ""

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("sql-bad-input")
        bundle = try scratch.file("bundle.json", Array(#"""
        {"bundle_version": 3, "experiments": {
          "checkout": {"status": "running", "salt": "'); DROP TABLE users; --", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
          "bad-weights": {"status": "running", "salt": "x", "variants": [{"id": "a", "weight": "0.5"}, {"id": "b", "weight": 0.7}]},
          "bad-targeting": {"status": "running", "salt": "y", "targeting": {"countries": "US"}, "variants": [{"id": "a", "weight": 1}]}
        }}
        """#.utf8))
    }

    override func tearDown() { scratch.remove() }

    /// Runs `arguments` and checks the status, that stdout is empty, and that stderr says `says`.
    private func refused(_ arguments: [String], status: Int32, says: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try Binary.run(arguments)
        XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
        XCTAssertEqual(result.text, "", "no SQL on an error", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(says), result.stderr, file: file, line: line)
    }

    func testAnUnknownDialectIsAUsageErrorListingTheThree() throws {
        try refused(["bucket", "--sql", "oracle", "--bundle", bundle], status: 64, says: "clickhouse, spark, duckdb")
        try refused(["queue", "inspect", "--sql", "postgres", "--bundle", bundle, "--exposures", "e"], status: 64, says: "clickhouse, spark, duckdb")
    }

    func testAFileThatIsNotABundleGivesItsFindingAndNoSQL() throws {
        let notJSON = try scratch.file("not.json", Array("{\"experiments\": [1,".utf8))
        let noExperiments = try scratch.file("empty.json", Array(#"{"bundle_version": 1}"#.utf8))
        for path in [notJSON, noExperiments] {
            let result = try Binary.run(["bucket", "--sql", "duckdb", "--bundle", path])
            XCTAssertEqual(result.status, 65, result.stderr)
            XCTAssertEqual(result.text, "")
            XCTAssertTrue(result.stderr.contains(path), result.stderr)
            let audit = try Binary.run(["queue", "inspect", "--sql", "clickhouse", "--bundle", path, "--exposures", "e"])
            XCTAssertEqual(audit.status, 65, audit.stderr)
            XCTAssertEqual(audit.text, "")
        }
        try refused(["bucket", "--sql", "duckdb", "--bundle", scratch.url.appendingPathComponent("missing.json").path], status: 66, says: "missing.json")
    }

    /// Rule-level errors become SQL that does what devices do (tested on the engines elsewhere);
    /// the count goes to stderr, stdout holds the query alone.
    func testABundleWithRuleErrorsBecomesSQLWithTheErrorCountOnStderr() throws {
        for arguments in [["bucket", "--sql", "spark", "--bundle", bundle],
                          ["queue", "inspect", "--sql", "duckdb", "--bundle", bundle, "--exposures", "e"]] {
            let result = try Binary.run(arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.text.hasPrefix("SELECT "), result.text)
            XCTAssertTrue(result.stderr.contains("validation error"), result.stderr)
        }
    }

    func testNamesThatAreNotPlainIdentifiersAreRefused() throws {
        let hostile = ["users; DROP TABLE users", "a b", "1x", "t'x", "\"t\"", "a.b.c.d", ""]
        for name in hostile {
            try refused(["bucket", "--sql", "clickhouse", "--bundle", bundle, "--table", name], status: 64, says: "not a plain SQL identifier")
            try refused(["bucket", "--sql", "clickhouse", "--bundle", bundle, "--platform-column", name], status: 64, says: "not a plain SQL identifier")
            try refused(["bucket", "--sql", "duckdb", "--bundle", bundle, "--trait-column", "plan=\(name)"], status: 64, says: "not a plain SQL identifier")
            for flag in ["--exposures", "--event-id-column", "--variant-column", "--sdk-version-column", "--bundle-version-column", "--session-column"] {
                var arguments = ["queue", "inspect", "--sql", "spark", "--bundle", bundle, "--exposures", "e", flag, name]
                if flag == "--session-column" { arguments.append("--duplicates") }
                try refused(arguments, status: 64, says: "not a plain SQL identifier")
            }
        }
        XCTAssertEqual(try Binary.run(["bucket", "--sql", "clickhouse", "--bundle", bundle, "--table", "analytics.users"]).status, 0, "db.table is a plain name")
    }

    func testAnExperimentNotInTheBundleIsAUsageErrorWithASuggestion() throws {
        try refused(["bucket", "--sql", "clickhouse", "--bundle", bundle, "--experiment", "chekout"], status: 64, says: "did you mean 'checkout'")
        try refused(["queue", "inspect", "--sql", "clickhouse", "--bundle", bundle, "--exposures", "e", "--srm", "--experiment", "chekout"],
                    status: 64, says: "did you mean 'checkout'")
    }

    /// The salt `'); DROP TABLE users; --` is one string literal in every dialect: the query is
    /// one statement, and the salt's bytes appear only inside a literal, escaped for the dialect.
    func testAnInjectionInASaltStaysInsideItsLiteral() throws {
        let expected = ["clickhouse": #"'checkout.\'); DROP TABLE users; --.'"#, "spark": #"'checkout.\'); DROP TABLE users; --.'"#,
                        "duckdb": #"'checkout.''); DROP TABLE users; --.'"#]
        for (dialect, literal) in expected {
            let result = try Binary.run(["bucket", "--sql", dialect, "--bundle", bundle, "--experiment", "checkout"])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertTrue(result.text.contains(literal), "\(dialect): \(result.text)")
            XCTAssertEqual(result.text.components(separatedBy: "DROP TABLE").count, 2, "the salt appears once, in its literal")
        }
    }

    func testSrmAndDuplicatesTogetherAndQueueFilesWithSQLAreRefused() throws {
        try refused(["queue", "inspect", "--sql", "clickhouse", "--bundle", bundle, "--exposures", "e", "--srm", "--duplicates"], status: 64, says: "--srm and --duplicates")
        try refused(["queue", "inspect", "--sql", "clickhouse", "--bundle", bundle], status: 64, says: "--exposures TABLE")
        try refused(["queue", "inspect", "--sql", "clickhouse", "--exposures", "e"], status: 64, says: "--bundle FILE")
        try refused(["queue", "inspect", "--sql", "clickhouse", "--bundle", bundle, "--exposures", "e", "--experiment", "checkout"],
                    status: 64, says: "--experiment goes with --srm or --duplicates")
    }
}
