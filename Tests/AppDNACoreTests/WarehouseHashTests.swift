import Foundation
import XCTest
import TestSupport
@testable import AppDNACore

/// The SQL that `appdna` writes hashes exactly as devices do: the generated MurmurHash3
/// runs on the real engines (DuckDB, chDB = ClickHouse in-process; Spark's runs in the one-JVM
/// engine suite, `WarehouseEngineTests`) over strings passed as literals built by each
/// engine, behind a fixed prefix of every length mod 4 and a suffix, and every hash equals
/// `MurmurHash3.x86_32(utf8:)` of the whole. Ids of 30 KB check that long ids hash right.
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

    /// Long ids: 30 KB of ASCII, of two-byte and of four-byte characters, each length mod 4
    /// (written in the query with `repeat`: a literal that long passes ClickHouse's query limit).
    static let long: [(unit: String, count: Int, extra: String)] = [("x", 30_000), ("é", 15_000), ("🚀", 7_500)]
        .flatMap { unit, count in (0..<4).map { (unit, count, String(repeating: "a", count: $0)) } }

    /// Prefixes of each length mod 4 (the whole blocks of one are folded when the query is
    /// written), with and without a suffix; "é" splits a UTF-8 sequence at a block edge.
    static let affixes: [(prefix: String, suffix: String)] = [("", ""), ("checkout.s3cr3t.", ""), ("ab.c.", ".allocation"), ("é.x", ""), ("xé", "yz")]

    func testGeneratedHashAgreesOnDuckDB() throws {
        try checkHashes(on: DuckDBEngine())
    }

    func testNativeHashAgreesOnChDB() throws {
        try checkHashes(on: ClickHouseEngine())
    }

    private func checkHashes(on engine: any SQLEngine) throws {
        let short = Self.corpus()
        let strings = short + Self.long.map { String(repeating: $0.unit, count: $0.count) + $0.extra }
        let values = short.enumerated().map { "(\($0.offset), \(engine.literal($0.element)))" }.joined(separator: ", ")
        let shortTable = engine is ClickHouseEngine ? "SELECT idx, s FROM values('idx UInt32, s String', \(values))"
            : "SELECT * FROM (VALUES \(values)) AS t(idx, s)"
        let longRows = Self.long.enumerated().map { index, id in
            " UNION ALL SELECT \(short.count + index) AS idx, concat(repeat(\(engine.literal(id.unit)), \(id.count)), \(engine.literal(id.extra))) AS s"
        }
        let table = "(" + shortTable + longRows.joined() + ")"
        var rows = SQLRelation(engine: engine, source: table, name: "t")
        let hashes = engine.murmurHash3(Self.affixes.map { HashedBytes(prefix: $0.prefix, text: "s", suffix: $0.suffix) }, in: &rows)
        let results = try WarehouseEngine.run(rows.select("idx, " + hashes.joined(separator: ", ")) + " ORDER BY idx", on: engine.name)
        XCTAssertEqual(results.count, strings.count)
        for (row, text) in zip(results, strings) {
            for (index, affix) in Self.affixes.enumerated() where row.count == Self.affixes.count + 1 {
                XCTAssertEqual(row[index + 1], String(MurmurHash3.x86_32(utf8: affix.prefix + text + affix.suffix)),
                               "hash of \((affix.prefix + text + affix.suffix).prefix(60).debugDescription) on \(engine.name)")
            }
        }
    }
}

/// Runs one query on a real engine through its Python package and returns the rows as
/// tab-separated fields. Skips, with the reason, when the package is not installed
/// (scripts/install-test-tools installs chdb and duckdb).
enum WarehouseEngine {
    static func run(_ query: String, on engine: String) throws -> [[String]] {
        let module = WarehouseEngines.module(of: engine)
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
            duckdb.sql("SET enable_progress_bar = false")  # its bar would go to stdout, before the rows
            for row in duckdb.sql(query).fetchall():
                print("\\t".join(str(value) for value in row))
        """
        let output = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script], environment: nil, stdin: Data(query.utf8))
        if output.status == 3 { throw missing("python3 module \(module)", because: "runs the warehouse SQL on its engine: \(output.stdout)") }
        guard output.status == 0 else {
            XCTFail("\(engine) rejected the query: \(output.stderr.prefix(2000))")
            return []
        }
        return output.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }
}

/// Issue 36.1: Spark's `hash(i, bytes)` hashes `bytes` from the seed `hashInt(i, 42)`;
/// `SparkMurmurHash3` picks `i` so that seed is the state after the bundle's prefix, and
/// undoes `fmix` on Spark's result. Both inversions, checked against `MurmurHash3` itself
/// (Spark's `hashInt(i, seed)` is MurmurHash3_x86_32 of `i`'s four little-endian bytes).
/// The whole hash runs on Spark in `WarehouseEngineTests`.
final class SparkMurmurHash3Tests: XCTestCase {
    func testTheChosenIntHashesToTheWantedSeedAndFmixIsUndone() {
        var generator = SplitMix64(seed: 36)
        let states: [UInt32] = [0, 1, 42, 0xffff_ffff, 0x8000_0000] + (0..<10_000).map { _ in UInt32(truncatingIfNeeded: generator.next()) }
        for state in states {
            let int = SparkMurmurHash3.intHashedTo(state)
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: int >> (8 * $0)) }
            XCTAssertEqual(MurmurHash3.x86_32(bytes, seed: SparkMurmurHash3.sparkSeed), state)
            XCTAssertEqual(SparkMurmurHash3.unmixed(MurmurHash3.finalMix(state)), state)
        }
    }
}
