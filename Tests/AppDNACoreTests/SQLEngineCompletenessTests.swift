import Foundation
import XCTest
import TestSupport

/// Issue 35.2: an engine that leaves out one spelling does not compile, instead of quietly
/// borrowing another engine's. The test plants engines into a copy of AppDNACore and
/// type-checks it with `swiftc`: a copy of `DuckDBEngine` under another name (it must compile:
/// the planting is sound), and one copy per requirement of `SQLEngine` and
/// `SQLMurmurPrimitives` with that requirement's implementation deleted (each must be
/// refused as not conforming). The requirements are read from the protocols' source, so a new
/// requirement is covered without changing this test — and a default implementation of any
/// of them (which would let an engine skip it) fails the test.
final class SQLEngineCompletenessTests: XCTestCase {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")
    static let warehouse = sources.appendingPathComponent("AppDNACore/Warehouse")

    func testAnEngineMissingAnySpellingDoesNotCompile() throws {
        let swiftc = try requireTool("swiftc", because: "type-checks AppDNACore with planted engines")
        let requirements = try Self.requirements(in: "SQLEngine.swift", protocol: "SQLEngine")
            + Self.requirements(in: "SpelledMurmurHash3.swift", protocol: "SQLMurmurPrimitives")
        XCTAssertGreaterThan(requirements.count, 25, "the protocols' requirements were found: \(requirements)")
        let template = try String(contentsOf: Self.warehouse.appendingPathComponent("DuckDBEngine.swift"), encoding: .utf8)
        var planted = [Self.renamed(template, to: "PlantedComplete")]
        for (index, name) in requirements.enumerated() {
            let without = try XCTUnwrap(Self.removing(name, from: template), "DuckDBEngine implements \(name)")
            planted.append(Self.renamed(without, to: "PlantedWithout\(index)"))
        }

        let scratch = try ScratchDirectory("engine-completeness")
        defer { scratch.remove() }
        let header = Self.sources.appendingPathComponent("CSHA256/include/CSHA256.h").path
        _ = try scratch.file("module.modulemap", Array("module CSHA256 {\n  header \"\(header)\"\n  export *\n}\n".utf8))
        let plantedFile = try scratch.file("Planted.swift", Array(planted.joined(separator: "\n").utf8))
        let core = try FileManager.default.subpathsOfDirectory(atPath: Self.sources.appendingPathComponent("AppDNACore").path)
            .filter { $0.hasSuffix(".swift") }.map { Self.sources.appendingPathComponent("AppDNACore/\($0)").path }
        let result = try ProcessRunner.run(swiftc, ["-typecheck", "-wmo", "-parse-as-library", "-diagnostic-style", "llvm", "-module-name", "AppDNACore", "-I", scratch.url.path]
                                           + core + [plantedFile], environment: nil)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains("error:") }
        XCTAssertFalse(errors.contains { $0.contains("PlantedComplete") }, "a complete engine compiles: \(errors.prefix(5))")
        for (index, name) in requirements.enumerated() {
            XCTAssertTrue(errors.contains { $0.contains("type 'PlantedWithout\(index)' does not conform to protocol") },
                          "an engine without \(name) must not compile")
        }
        XCTAssertEqual(errors.filter { !$0.contains("/Planted.swift:") }, [], "only the planted engines fail")
    }

    /// The names of the `func` and `var` requirements declared in `protocol name { … }` of `file`.
    static func requirements(in file: String, protocol name: String) throws -> [String] {
        let lines = try String(contentsOf: warehouse.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("public protocol \(name):") }) else { return [] }
        return lines[(start + 1)...].prefix { $0 != "}" }.compactMap { line -> String? in
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
            guard let kind = words.first, kind == "func" || kind == "var", words.count > 1 else { return nil }
            return String(words[1].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
        }
    }

    /// `source` without the declaration of the member `name` (from its doc comment to the line
    /// where its braces close), or nil when it has none.
    static func removing(_ name: String, from source: String) -> String? {
        var lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.firstIndex(where: { $0.hasPrefix("    public func \(name)(") || $0.hasPrefix("    public var \(name):") }) else { return nil }
        var last = first, depth = 0
        repeat {
            depth += lines[last].filter { $0 == "{" }.count - lines[last].filter { $0 == "}" }.count
            last += 1
        } while depth > 0 && last < lines.count
        var start = first
        while start > 0, lines[start - 1].hasPrefix("    ///") || lines[start - 1].hasPrefix("    //") { start -= 1 }
        lines.removeSubrange(start..<last)
        return lines.joined(separator: "\n")
    }

    static func renamed(_ source: String, to name: String) -> String {
        source.replacingOccurrences(of: "struct DuckDBEngine:", with: "struct \(name):")
    }
}
