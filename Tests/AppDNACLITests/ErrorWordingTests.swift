import Foundation
import XCTest
import TestSupport
@testable import AppDNACLI
@testable import AppDNACore

/// Issue 34.3: errors reach users in the tool's words, never as a Swift dump of an error value
/// (`JSONSyntaxError(reason: AppDNACore.JSONSyntaxError.Reason.unexpectedCharacter(…)…)`).
final class ErrorWordingTests: XCTestCase {
    struct Unclassified: Error { let secretField = "dumped" }

    func testEveryErrorIsWordedByTheOneFunction() throws {
        let syntax: any Error
        do { _ = try JSONDocument(bytes: Array("# README".utf8)); return XCTFail("parsed") } catch { syntax = error }
        XCTAssertEqual(FlagWording.message(for: syntax), "line 1, column 1: expected a value, found '#'")
        let other = FlagWording.message(for: Unclassified())
        XCTAssertEqual(other, "internal error: an unexpected Unclassified was thrown")
        XCTAssertFalse(other.contains("dumped"))
    }

    /// Interpolating a caught error (`"\(error)"`) prints whatever Swift's reflection makes of
    /// it; the CLI words errors through `FlagWording.message(for:)` instead. This scan keeps it so.
    func testNoSourceInterpolatesAnErrorValue() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(pattern: #"\\\((error|failure|caught)\)|String\(describing: (error|failure)|\(error as\? Failure\)\?\.message"#)
        var offenders: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    offenders.append("\(file.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        XCTAssertEqual(offenders, [], "word errors with FlagWording.message(for:)")
    }
}
