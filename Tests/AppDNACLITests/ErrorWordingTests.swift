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

    /// Interpolating an error (`"\(error)"`) prints its `description`: for every classified
    /// error that is its message (the protocol says so), so no error reaches a user as a dump of
    /// its fields wherever it is interpolated.
    func testAnInterpolatedErrorReadsAsItsMessage() throws {
        var syntax: JSONSyntaxError?
        do { _ = try JSONDocument(bytes: Array("# README".utf8)) } catch { syntax = error }
        XCTAssertEqual(syntax.map { "\($0)" }, "line 1, column 1: expected a value, found '#'")
        XCTAssertEqual("\(Failure(.usage, "the words"))", "the words")
    }

    /// Every error type the sources declare is worded: a classified error (its message) or
    /// CustomStringConvertible. The exceptions are control flow inside the HTTP server and the
    /// socket layer, caught where they are thrown and never shown.
    func testEveryErrorTypeIsWorded() throws {
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let declaration = try NSRegularExpression(pattern: #"(?:struct|enum|class) ([A-Za-z]+)[^{]*:([^{]*)\{"#)
        let internalControlFlow: Set<String> = ["ListenFailure", "ReadFailure", "Refusal"]
        var unworded: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let name = String(text[Range(match.range(at: 1), in: text)!])
                let conformances = text[Range(match.range(at: 2), in: text)!].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                guard conformances.contains("Error") else { continue }
                if !conformances.contains("CustomStringConvertible") && !internalControlFlow.contains(name) {
                    unworded.append("\(file.lastPathComponent): \(name)")
                }
            }
        }
        XCTAssertEqual(unworded, [], "make it a ClassifiedError (or CustomStringConvertible) so that it reads in the tool's words")
    }
}
