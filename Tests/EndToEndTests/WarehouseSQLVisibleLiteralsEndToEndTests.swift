import Foundation
import XCTest
import TestSupport
import AppDNACore

/// Issue 32.1's rule for the SQL: the query `appdna warehouse …` prints lands in CI logs and
/// review diffs, so a bundle's C0, DEL, C1 (U+009B is a terminal's CSI) and bidi controls
/// (U+202A–U+202E, U+2066–U+2069 reorder what a reviewer sees) never appear raw in it: each
/// engine's literal spells them in its own escape (ClickHouse `\xHH` per UTF-8 byte, Spark
/// `\uXXXX`, DuckDB `chr(n)`). That the escaped literals hold the same bytes is the engine
/// suite's job (`WarehouseEngineTests`: the hostile experiments give the same rows as `bucket`).
final class WarehouseSQLVisibleLiteralsEndToEndTests: XCTestCase {
    /// Every place a bundle value reaches a literal: experiment ids (an output column), salts
    /// (ClickHouse hashes them as a literal prefix), variant ids, countries, platforms, trait
    /// names and values, a minimum app version.
    private static let bundle = #"""
        {"bundle_version": 7, "experiments": {
          "x\u009b31m\u202e\u2066y\u2028": {"salt": "s\u202d\u0085\u0007", "status": "running",
            "platforms": ["ios\u202a"], "targeting": {"countries": ["U\u009bS"], "min_app_version": "1.\u2069",
              "user_traits": [{"trait": "plan\u2067", "operator": "eq", "value": "pro\u202c"},
                              {"trait": "plan\u2067", "operator": "in", "value": ["a\u2068", "b\u001b[2J"]}]},
            "variants": [{"id": "a\u2069\u009b", "weight": 0.5}, {"id": "b\u0007\u200f", "weight": 0.5}]},
          "plain": {"salt": "\u061c", "status": "running", "variants": [{"id": "c\u2029", "weight": 1}]}
        }}
        """#

    /// What must not appear raw: C0 but the query's own line feeds, DEL, C1, the bidi controls,
    /// the line and paragraph separators.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        default: return false
        }
    }

    func testNoControlOrBidiCharacterOfTheBundleAppearsRawInAnyQuery() throws {
        let scratch = try ScratchDirectory("sql-visible-literals")
        defer { scratch.remove() }
        let bundle = try scratch.file("hostile.json", Array(Self.bundle.utf8))
        let escapedRLO = ["clickhouse": #"\xe2\x80\xae"#, "spark": #"\u202e"#, "duckdb": "chr(8238)"]
        for engine in SQLEngines.names {
            // Each engine's own spelling of U+202E: a new engine must say how it spells one.
            guard let rlo = escapedRLO[engine] else {
                XCTFail("\(engine): add its spelling of U+202E to escapedRLO")
                continue
            }
            var queries: [(String, [String])] = []
            for scheme in ["sdk", "docs"] {
                queries.append(("assignment --scheme \(scheme)", ["warehouse", "assignment", bundle, "--dialect", engine, "--scheme", scheme,
                                                                  "--platform-column", "platform", "--country-column", "country",
                                                                  "--app-version-column", "app_version", "--trait-column", "plan\u{2067}=plan"]))
            }
            for command in ["audit", "srm", "duplicates"] {
                queries.append((command, ["warehouse", command, bundle, "--dialect", engine, "--exposures", "exposures"]
                                + (command == "audit" ? ["--platform-column", "platform", "--country-column", "country"] : [])))
            }
            for (name, arguments) in queries {
                let result = try Binary.run(arguments)
                XCTAssertEqual(result.status, 0, "\(engine) \(name): \(result.stderr)")
                XCTAssertTrue(result.text.hasPrefix("SELECT") || result.text.hasPrefix("WITH"), "\(engine) \(name): \(result.text.prefix(200))")
                let raw = result.text.unicodeScalars.filter(Self.isInvisible)
                XCTAssertEqual(raw.map { "U+" + String($0.value, radix: 16, uppercase: true) }, [], "\(engine) \(name): raw characters in the SQL")
                XCTAssertTrue(result.text.contains(rlo), "\(engine) \(name): the experiment id's U+202E spelled \(rlo)")
            }
        }
    }
}
