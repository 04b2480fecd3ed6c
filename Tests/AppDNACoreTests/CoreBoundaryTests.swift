import Foundation
import XCTest
import TestSupport

/// Package.swift says what Core is: the domain as values and typed errors over a platform
/// layer in Core/Platform. This keeps it true: outside Core/Platform no Core file starts
/// threads, loads libraries, reads the environment, prints or exits.
final class CoreBoundaryTests: XCTestCase {
    static let forbidden: [(pattern: String, why: String)] = [
        (#"\bpthread_create\b|\bThread\("#, "threads start in Platform/ThreadSpawner"),
        (#"\bdlopen\b|\bdlsym\b"#, "system libraries are loaded in the platform layer"),
        (#"\bgetenv\b|\benviron\b"#, "the environment is read through Platform/ProcessEnvironment"),
        (#"(^|[^.\w])print\(|\bputs\(|\bfputs\(|\bexit\(|\b_exit\("#, "Core never prints or exits"),
    ]
    /// Files outside Platform that may do one of these, and why (none: libsqlite3 is loaded
    /// through Platform/SystemLibrary like the others).
    static let allowed: [String: String] = [:]

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

    func testCoreOutsideThePlatformLayerHasNoSideDoors() throws {
        let core = repositoryRoot.appendingPathComponent("Sources/AppDNACore")
        let files = FileManager.default.enumerator(atPath: core.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Platform/") }
        XCTAssertGreaterThan(files.count, 50)
        var all: [String] = []
        for file in files where Self.allowed[file] == nil {
            all += Self.findings(try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        XCTAssertEqual(all, [], "\n" + all.joined(separator: "\n"))
    }

    func testPlantedSideDoorsAreCaught() {
        let planted = "let x = getenv(\"HOME\")\nprint(x)\nlet h = dlopen(nil, 0)\nexit(1)\n"
        XCTAssertEqual(Self.findings(planted, file: "planted.swift").count, 4)
        XCTAssertEqual(Self.findings("tape.print(x)\nlet exitCode = 1\n", file: "fine.swift"), [])
    }
}
