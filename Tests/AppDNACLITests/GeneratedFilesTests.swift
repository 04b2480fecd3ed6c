import Foundation
import XCTest
@testable import AppDNACLI
import AppDNAServers
import AppDNACore
import TestSupport

/// The committed man page, completion scripts and OpenAPI descriptions must be exactly what the
/// command table and the route tables generate.
/// Regenerate with: APPDNA_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests
/// (this also re-records the --help golden files, see HelpGoldenTests.swift).
final class GeneratedFilesTests: XCTestCase {
    func check(_ relativePath: String, _ generated: String) throws {
        let url = repositoryRoot.appendingPathComponent(relativePath)
        if ProcessInfo.processInfo.environment["APPDNA_UPDATE_GENERATED"] == "1" {
            try generated.write(to: url, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOf: url, encoding: .utf8)
        XCTAssertEqual(committed, generated, "\(relativePath) is out of date: run APPDNA_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests")
    }

    func testManPageIsUpToDate() throws {
        try check("man/appdna.1", ManPageRenderer(table: .appdna).render())
    }

    func testCompletionsAreUpToDate() throws {
        for shell in CompletionShell.allCases {
            try check(shell.committedPath, shell.script(for: .appdna))
        }
    }

    /// docs/openapi/: each server's OpenAPI description, generated from its route table.
    func testOpenAPIDescriptionsAreUpToDate() throws {
        for (path, document) in ServerDescriptions.committed {
            try check(path, String(decoding: JSONWriter(indent: 2).write(document) + [0x0A], as: UTF8.self))
        }
    }

    /// docs/local-api.md's table of override kinds, between its markers, from `BundleOverride.Kind`.
    func testOverrideKindsTableIsUpToDate() throws {
        let path = "docs/local-api.md"
        let committed = try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        let begin = "<!-- override-kinds:begin -->\n", end = "<!-- override-kinds:end -->"
        guard let start = committed.range(of: begin), let stop = committed.range(of: end, range: start.upperBound..<committed.endIndex) else {
            return XCTFail("\(path) has no override-kinds markers")
        }
        try check(path, String(committed[..<start.upperBound]) + BundleOverride.Kind.markdownTable + String(committed[stop.lowerBound...]))
    }

    func testInspectorPageIsUpToDate() throws {
        try check(InspectorPageEmbedding.generated, try InspectorPageEmbedding.render())
    }

    func testGenerationIsDeterministic() {
        XCTAssertEqual(ManPageRenderer(table: .appdna).render(), ManPageRenderer(table: .appdna).render())
        for shell in CompletionShell.allCases {
            XCTAssertEqual(shell.script(for: .appdna), shell.script(for: .appdna))
        }
    }
}
