import Foundation
import XCTest
import TestSupport
@testable import AppDNACore

/// The SQL that `appdna` writes hashes exactly as devices do: the generated MurmurHash3
/// expression runs on the real engines (DuckDB, chDB = ClickHouse in-process) over strings
/// passed as literals built by `SQLQuoting`, and every hash equals `MurmurHash3.x86_32(utf8:)`.
/// Hostile strings (quotes, backslashes, an injection attempt, NFC/NFD, emoji, control
/// characters) check the quoting at the same time: a literal whose bytes were altered would
/// hash differently, and one that escaped its quotes would not run.
final class WarehouseHashTests: XCTestCase {
    static let hostile: [String] = [
        "", "a", "ab", "abc", "abcd", "abcde", "user-0001234", "checkout_2024.s3cr3t.user-1",
        "'); DROP TABLE users; --", "it's", "''", "\\", "\\'", "a\\\\b", "\\x41", "\\u0041",
        "caf\u{e9}", "cafe\u{301}", "🚀", "é🚀x", "日本語のユーザー", "tab\there", "line\nbreak", "\u{1}\u{7f}",
        "\"double\"", "--", "/* c */", "%", "_", "$1", "? ",
    ]

    static func corpus() -> [String] {
        var generator = SplitMix64(seed: 0x5eed_2026)
        var strings = hostile
        let alphabet = Array("abcXYZ019 -_.'\\\"é🚀\u{301}日\t".unicodeScalars)
        for length in 0..<40 {
            for _ in 0..<25 {
                var text = String.UnicodeScalarView()
                for _ in 0..<length { text.append(alphabet[Int(generator.next() % UInt64(alphabet.count))]) }
                strings.append(String(text))
            }
        }
        return strings
    }

    func testGeneratedHashAgreesOnDuckDB() throws {
        try checkHashes(on: .duckdb)
    }

    func testNativeHashAgreesOnChDB() throws {
        try checkHashes(on: .clickhouse)
    }

    private func checkHashes(on dialect: SQLDialect) throws {
        let strings = Self.corpus()
        let expression = SQLMurmurHash(dialect: dialect).hash(of: "s")
        let rows = strings.enumerated().map { "(\($0.offset), \(SQLQuoting.literal($0.element, in: dialect)))" }
        let query: String
        switch dialect {
        case .clickhouse:
            query = "SELECT idx, \(expression) FROM values('idx UInt32, s String', \(rows.joined(separator: ", "))) ORDER BY idx"
        case .duckdb, .spark:
            query = "SELECT idx, \(expression) FROM (VALUES \(rows.joined(separator: ", "))) AS t(idx, s) ORDER BY idx"
        }
        let results = try WarehouseEngine.run(query, on: dialect)
        XCTAssertEqual(results.count, strings.count)
        for (row, text) in zip(results, strings) {
            XCTAssertEqual(row.last, String(MurmurHash3.x86_32(utf8: text)), "hash of \(text.debugDescription) on \(dialect)")
        }
    }
}

/// Runs one query on a real engine through its Python package and returns the rows as
/// tab-separated fields. Skips, with the reason, when the package is not installed
/// (scripts/install-test-tools installs chdb and duckdb).
enum WarehouseEngine {
    static func run(_ query: String, on dialect: SQLDialect) throws -> [[String]] {
        let module = dialect == .clickhouse ? "chdb" : dialect.rawValue
        let script = """
        import sys
        query = sys.stdin.read()
        try:
            import \(module)
        except ImportError as error:
            print("SKIP", error); sys.exit(3)
        if "\(module)" == "chdb":
            sys.stdout.write(str(chdb.query(query, "TabSeparated")))
        else:
            for row in duckdb.sql(query).fetchall():
                print("\\t".join(str(value) for value in row))
        """
        let output = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script], environment: nil, stdin: Data(query.utf8))
        if output.status == 3 { throw missing("python3 module \(module)", because: "runs the warehouse SQL on its engine: \(output.stdout)") }
        guard output.status == 0 else {
            XCTFail("\(dialect) rejected the query: \(output.stderr.prefix(2000))")
            return []
        }
        return output.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
}
