import Foundation
import XCTest
@testable import AppDNACLI

/// `bundle validate` gives exactly the recorded findings (text and JSON) on a small bundle of each
/// shape the validation benchmark measures. The bundles come from the benchmark's own generator,
/// bench/make_bundle_shapes.py (deterministic), so the test and the benchmark see the same shapes.
final class BundleShapeGoldenTests: XCTestCase {
    func testEveryShapeGivesTheRecordedFindings() throws {
        let generator = repositoryRoot.appendingPathComponent("bench/make_bundle_shapes.py").path
        let shapes = try python([generator, "--list"]).split(separator: "\n").map(String.init)
        XCTAssertEqual(shapes.count, 7, "compact, indent2, indent4, numbers, strings, many-small, few-huge")
        let directory = NSTemporaryDirectory() + "appdna-shapes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        for shape in shapes {
            let path = "\(directory)/\(shape).json"
            _ = try python([generator, shape, path, "24"])
            var rendered = ""
            for format in ["text", "json"] {
                let run = runCLI(["bundle", "validate", "--format", format, path])
                rendered += "== --format \(format): status \(run.status)\n\(run.stdout)== stderr\n\(run.stderr)"
            }
            // The temporary directory differs on every run; the findings do not.
            rendered = rendered.replacingOccurrences(of: directory + "/", with: "")
            XCTAssertTrue(rendered.contains("[E014]") && rendered.contains("[W008]"), "\(shape) carries the deliberate defects")
            try SpeedGolden.check(rendered, name: "validate-\(shape).golden")
        }
    }

    private func python(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3 \(arguments.joined(separator: " "))")
        return String(decoding: output, as: UTF8.self)
    }
}
