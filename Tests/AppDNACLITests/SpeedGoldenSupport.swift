import AppDNACore
import Foundation
import XCTest

/// Golden files that pin the exact bytes of outputs whose code is tuned for speed
/// (`bucket -`, `bundle validate`), so an optimisation that changes one byte fails a test.
///
/// A golden holds the exit status, stderr, the stdout size and SHA-256, and the first lines of
/// stdout verbatim (to show where a difference starts). They live under the Core tests'
/// Fixtures folder, which the package already excludes from compilation.
/// Record them again only on purpose: `APPDNA_RECORD_GOLDENS=1 swift test --filter Golden`.
enum SpeedGolden {
    static let directory = repositoryRoot.appendingPathComponent("Tests/AppDNACoreTests/Fixtures/speed-goldens")
    static let shownLines = 200

    static func render(status: Int32, stdout: [UInt8], stderr: String) -> String {
        let digest = stdout.withUnsafeBytes { Hex.encode(SHA256.hash($0)) }
        let lines = String(decoding: stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var text = "status: \(status)\nstdout bytes: \(stdout.count)\nstdout lines: \(lines.count - 1)\nstdout sha256: \(digest)\n"
        text += "stderr:\n\(stderr)--- first \(shownLines) lines of stdout\n"
        text += lines.prefix(shownLines).joined(separator: "\n") + "\n"
        return text
    }

    /// Compares `actual` with the golden `name` (or records it when asked to).
    static func check(_ actual: String, name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = directory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["APPDNA_RECORD_GOLDENS"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            XCTFail("missing golden \(url.path); record it with APPDNA_RECORD_GOLDENS=1", file: file, line: line)
            return
        }
        if expected == actual { return }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let first = zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(expectedLines.count, actualLines.count)
        let want = first < expectedLines.count ? String(expectedLines[first]) : "<end>"
        let got = first < actualLines.count ? String(actualLines[first]) : "<end>"
        XCTFail("\(name) differs from its golden at line \(first + 1):\n  golden: \(want)\n  now:    \(got)", file: file, line: line)
    }
}
