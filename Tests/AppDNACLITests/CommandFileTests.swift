import Foundation
import XCTest
import TestSupport

/// Issue 35.5: no command file is a utility module. A command's file (`Commands/**/XCommand.swift`,
/// `enum XCommand`) is reached only by the command table, which names its run function, help
/// text and flags; what two commands or files share lives in a file named for what it is
/// (`QueueOperands`, `DeliveryClient`, `BundleFetchReport`, `BundleCheckReport` …), so that
/// changing one command cannot break another through a helper it happened to define.
final class CommandFileTests: XCTestCase {
    static let table = "Commands/CommandTable+AppDNA.swift"

    /// `file:line: text` for each use of `command.` in `source`, comments left out.
    static func uses(of command: String, in source: String, file: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "(^|[^A-Za-z0-9_])" + command + #"\."#)
        return SourceLines.matching(source, file: file) { pattern.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
    }

    func testNoFileReachesIntoAnotherCommandsFile() throws {
        let root = repositoryRoot.appendingPathComponent("Sources/AppDNACLI")
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        let commands = files.filter { $0.hasPrefix("Commands/") && $0.hasSuffix("Command.swift") }
        XCTAssertGreaterThanOrEqual(commands.count, 10, "the command files are found")
        var sources: [String: String] = [:]
        for file in files { sources[file] = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) }
        var found: [String] = []
        for commandFile in commands {
            let name = URL(fileURLWithPath: commandFile).deletingPathExtension().lastPathComponent
            XCTAssertTrue(sources[commandFile]!.contains("enum \(name) "), "\(commandFile) declares \(name)")
            for (file, source) in sources where file != commandFile && file != Self.table {
                found += Self.uses(of: name, in: source, file: file)
            }
        }
        XCTAssertEqual(found.sorted(), [], "\n" + found.sorted().joined(separator: "\n"))
    }

    func testAPlantedReachIsFound() {
        let planted = "let (s, _) = QueueInspectCommand.queueSources(invocation)\n// QueueInspectCommand.x in a comment\nlet y = MyQueueInspectCommand.z\n"
        XCTAssertEqual(Self.uses(of: "QueueInspectCommand", in: planted, file: "planted.swift").count, 1)
    }
}
