import Foundation
import XCTest
import TestSupport
import AppDNACore

/// Adding an engine to `SQLEngines.all` without a row-for-row engine suite would ship SQL that
/// no engine ever ran: every engine the tool writes SQL for has its `test<Name>()` in
/// `WarehouseEngineTests` running the whole suite on it (`runSuite(on: "<name>")`).
final class WarehouseEngineSuiteCoverageTests: XCTestCase {
    func testEveryEngineHasARowForRowSuite() throws {
        let suite = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/EndToEndTests/WarehouseEngineTests.swift"), encoding: .utf8)
        XCTAssertEqual(Self.enginesMissingASuite(SQLEngines.names, in: suite), [],
                       "each engine needs `func test<Name>() throws { try runSuite(on: \"<name>\") }` in WarehouseEngineTests")
    }

    /// The check itself, on a planted omission: a suite file without DuckDB's test is caught.
    func testAnEngineWithoutASuiteIsNamed() throws {
        let suite = try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/EndToEndTests/WarehouseEngineTests.swift"), encoding: .utf8)
        let planted = suite.replacingOccurrences(of: #"try runSuite(on: "duckdb")"#, with: "")
        XCTAssertEqual(Self.enginesMissingASuite(SQLEngines.names, in: planted), ["duckdb"])
    }

    /// The engines whose suite call does not stand in a test method of `source`.
    static func enginesMissingASuite(_ engines: [String], in source: String) -> [String] {
        engines.filter { engine in
            let call = #"try runSuite(on: "\#(engine)")"#
            return !source.components(separatedBy: "\n").contains { line in
                line.contains("func test") && line.contains(call)
            }
        }
    }
}
