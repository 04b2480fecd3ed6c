import Foundation
import XCTest
import TestSupport

/// Issue 54.3: `api serve`, `api override` and what the commands share touch files only
/// through the command's `FileAccess` (`CommandIO.files`), so each one's file behaviour runs
/// in memory (`InMemoryFiles`). Under Commands/API and Commands/Shared no code names a file
/// primitive of the Platform layer.
final class APIFileDoorTests: XCTestCase {
    static let primitives = ["FileReading", "AtomicFile", "SystemFile", "FileStatus", "FileSystem", "ChunkReading", "RecordFile", "FileWriting",
                             "DiskSync", "SystemFileAccess"]
    static let directories = ["Sources/AppDNACLI/Commands/API", "Sources/AppDNACLI/Commands/Shared"]
    /// The one line allowed, and why: the key reader over the system's files that
    /// `LiveBundleConnection` (Commands/Bundle) still calls without its command's files.
    static let allowed = ["Sources/AppDNACLI/Commands/Shared/APIAccess.swift: try key(keyFile: keyFile, environment: environment, files: SystemFileAccess())"]

    /// `file:line: text` for each use of a primitive in `source`, comments left out.
    static func uses(in source: String, file: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "(^|[^A-Za-z0-9_])(" + primitives.joined(separator: "|") + #")([^A-Za-z0-9_]|$)"#)
        var found: [String] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.components(separatedBy: "//").first ?? ""
            if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil,
               !allowed.contains("\(file): \(line.trimmingCharacters(in: .whitespaces))") {
                found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    func testTheAPICommandsAndTheSharedFilesGoThroughTheDoor() throws {
        var found: [String] = []
        var scanned = 0
        for directory in Self.directories {
            let root = repositoryRoot.appendingPathComponent(directory)
            for file in try FileManager.default.contentsOfDirectory(atPath: root.path) where file.hasSuffix(".swift") {
                scanned += 1
                found += Self.uses(in: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: directory + "/" + file)
            }
        }
        XCTAssertGreaterThanOrEqual(scanned, 15, "the files are found")
        XCTAssertEqual(found, [], "\n" + found.joined(separator: "\n"))
    }

    func testAPlantedCallIsFound() {
        let planted = "try AtomicFile.replace(path: p, with: b)\n// FileReading.readAll in a comment\nlet x = MyFileStatus.y\nlet f = SystemFileAccess()\n"
        XCTAssertEqual(Self.uses(in: planted, file: "planted.swift").count, 2)
    }
}
