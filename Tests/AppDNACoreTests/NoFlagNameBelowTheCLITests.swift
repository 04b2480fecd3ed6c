import Foundation
import XCTest
import TestSupport

/// Core, Net, Replay and Servers report facts; only the CLI words them with its flags (`FlagWording`,
/// `SettingFact`, `Remedy`). A flag name in their text (`"… --record writes …"`) would go stale
/// when the CLI renames the flag, and would be wrong for a command that gives the same setting
/// another way. This scans their sources for a flag name in code (comments may name flags).
final class NoFlagNameBelowTheCLITests: XCTestCase {
    static let modules = ["AppDNACore", "AppDNANet", "AppDNAReplay", "AppDNAServers"]
    /// `--name` not glued to a longer run of dashes or a word (`-----BEGIN`, `a--b`).
    static let flagName = try! NSRegularExpression(pattern: #"(?<![-\w])--[a-z][a-z0-9-]*"#)
    /// Where a comment starts: `//` at the start or after white space (not `https://`).
    static let comment = try! NSRegularExpression(pattern: #"(^|\s)//"#)

    static func findings(_ source: String, file: String) -> [String] {
        var found: [String] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var code = String(line)
            if let start = comment.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) {
                code = String(code[..<Range(start.range, in: code)!.lowerBound])
            }
            for match in flagName.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                found.append("\(file):\(number + 1): \(code[Range(match.range, in: code)!])")
            }
        }
        return found
    }

    func testCoreNetAndReplayNameNoFlag() throws {
        var all: [String] = []
        var scanned = 0
        for module in Self.modules {
            let directory = repositoryRoot.appendingPathComponent("Sources/\(module)")
            let files = FileManager.default.enumerator(atPath: directory.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            scanned += files.count
            for file in files {
                // The inspector page (AppDNAServers), embedded as generated Swift, is HTML, CSS
                // and JavaScript: its `--name`s are CSS custom properties, and its words are the
                // page's, which a person reads beside the command that started it.
                if file == "Inspector/InspectorPage.swift" { continue }
                all += Self.findings(try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8), file: "\(module)/\(file)")
            }
        }
        XCTAssertGreaterThan(scanned, 100)
        XCTAssertEqual(all, [], "word these in the CLI (FlagWording) from a SettingFact or Remedy:\n" + all.joined(separator: "\n"))
    }

    func testPlantedFlagNamesAreCaught() {
        let planted = """
            throw Failure(.usage, "\\(path): --record writes only to a regular file")
            let flag = "--max-body"
            let url = "https://example.com/x --timeout"
            """
        XCTAssertEqual(Self.findings(planted, file: "planted.swift"),
                       ["planted.swift:1: --record", "planted.swift:2: --max-body", "planted.swift:3: --timeout"])
        let fine = """
            /// `webhook listen --record FILE` appends each delivery.
            let marker = Array("-----BEGIN ".utf8)  // PEM, not a flag: --record
            let n = count - 1
            """
        XCTAssertEqual(Self.findings(fine, file: "fine.swift"), [])
    }
}
