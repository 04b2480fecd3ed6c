import Foundation
import XCTest
import TestSupport

/// Issue 54.3: a command touches files only through `CommandIO.files` (`FileAccess`), so its
/// file behaviour runs in memory in the tests. No command file calls the platform's file
/// types itself, nor makes the system's door in place of the one it was handed: every file
/// under Commands/ is scanned.
final class CommandFileDoorTests: XCTestCase {
    static let throughTheDoor = ["Commands/"]

    /// Core's platform file types, whose calls only `SystemFileAccess` makes for a command,
    /// and the system's door itself (a command that made one would go around a test's).
    /// `LineReader` and `LineChunkReader` are not among them: `bucket`'s batch streams standard
    /// input through them by descriptor (the stream the test gives the command), never a path.
    static let fileTypes = ["FileReading", "AtomicFile", "SystemFile", "FileStatus", "FileSystem", "ChunkReading", "RecordFile",
                            "FileWriting", "DiskSync", "SystemFileAccess"]

    /// `file:line: text` for each call of a platform file type in `source`, comments left out.
    static func calls(in source: String, file: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "(^|[^A-Za-z0-9_])(" + fileTypes.joined(separator: "|") + #")(\.[a-z]|\()"#)
        return SourceLines.matching(source, file: file) { pattern.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
    }

    func testTheCommandsThroughTheDoorCallNoFileTypeThemselves() throws {
        let root = repositoryRoot.appendingPathComponent("Sources/AppDNACLI")
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }
            .filter { file in file.hasSuffix(".swift") && Self.throughTheDoor.contains { file.hasPrefix($0) } }
        XCTAssertGreaterThanOrEqual(files.count, 80, "the files are found")
        var found: [String] = []
        for file in files {
            found += Self.calls(in: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        XCTAssertEqual(found, [], "\n" + found.joined(separator: "\n"))
    }

    func testAPlantedCallIsFound() {
        let planted = """
        try AtomicFile.replace(path: output, with: generated)
        let kind: FileStatus.Kind = .regular
        // FileReading.readAll(path: path) in a comment
        let bytes = try MyFileReading.readAll(path: path)
        let files = SystemFileAccess()
        """
        XCTAssertEqual(Self.calls(in: planted, file: "planted.swift"), ["planted.swift:1: try AtomicFile.replace(path: output, with: generated)",
                                                                        "planted.swift:5: let files = SystemFileAccess()"])
    }
}
