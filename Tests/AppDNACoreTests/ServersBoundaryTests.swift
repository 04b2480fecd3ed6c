import Foundation
import XCTest
import TestSupport

/// Package.swift says what AppDNAServers is (issue 49): the three local servers over Net and
/// Core, values in and values out. This keeps it true: it depends on Core and Net only, imports
/// nothing above them, and never prints, exits or reaches for the CLI's streams; what it
/// reports the CLI renders (`ListenReport`, `ServeReport`).
final class ServersBoundaryTests: XCTestCase {
    static let forbidden: [(pattern: String, why: String)] = [
        (#"^\s*(@testable\s+)?import\s+(AppDNACLI|AppDNAReplay|Foundation)\b"#, "the servers sit on Core and Net only (and no Foundation)"),
        (#"(^|[^.\w])print\(|\bputs\(|\bfputs\(|\bexit\(|\b_exit\("#, "the servers never print or exit: they report to the CLI"),
        (#"\b(Invocation|OutputSink|Styler|ParsedArguments)\b|\.stdout\b|\.stderr\b"#, "streams, styles and arguments are the CLI's"),
    ]

    static func findings(_ source: String, file: String) -> [String] {
        let rules = forbidden.map { (try! NSRegularExpression(pattern: $0.pattern), $0.why) }
        var found: [String] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            for (rule, why) in rules where rule.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces)) (\(why))")
            }
        }
        return found
    }

    func testTheServersNeverPrintNorReachAboveNet() throws {
        let servers = repositoryRoot.appendingPathComponent("Sources/AppDNAServers")
        // The embedded page is HTML, CSS and JavaScript in string literals, not code.
        let files = FileManager.default.enumerator(atPath: servers.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && $0 != "Inspector/InspectorPage.swift" }
        XCTAssertGreaterThan(files.count, 20)
        var all: [String] = []
        for file in files {
            all += Self.findings(try String(contentsOf: servers.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        XCTAssertEqual(all, [], "\n" + all.joined(separator: "\n"))
    }

    /// The targets' dependencies as Package.swift declares them: the servers on Core and Net, the
    /// CLI on the servers, nothing below the CLI on it.
    func testThePackageLayersTheServersBetweenNetAndTheCLI() throws {
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        func dependencies(of target: String) -> [String]? {
            let pattern = try! NSRegularExpression(pattern: #"\.target\(name: ""# + target + #"", dependencies: \[([^\]]*)\]"#)
            guard let match = pattern.firstMatch(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) else { return nil }
            return manifest[Range(match.range(at: 1), in: manifest)!].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"")) }
        }
        XCTAssertEqual(dependencies(of: "AppDNAServers"), ["AppDNACore", "AppDNANet"])
        XCTAssertTrue(dependencies(of: "AppDNACLI")?.contains("AppDNAServers") == true)
        for lower in ["AppDNACore", "AppDNANet", "AppDNAReplay"] {
            XCTAssertFalse(dependencies(of: lower)?.contains("AppDNAServers") ?? false, "\(lower) sits below the servers")
        }
    }

    func testPlantedSideDoorsAreFound() {
        let planted = """
            import AppDNACLI
            print("served")
            invocation.stdout.writeLine(line)  // a line
            let style: Styler
            """
        XCTAssertEqual(Self.findings(planted, file: "planted.swift").count, 4)
        let fine = """
            import AppDNANet
            // print("a comment") and Invocation in a comment
            report.served(outcome)
            """
        XCTAssertEqual(Self.findings(fine, file: "fine.swift"), [])
    }
}
