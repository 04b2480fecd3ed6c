import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import LoopbackHTTPServer
import TestSupport

/// Issue 54.1: no refused command line leaves a file, a socket or a request behind, shown
/// with the built binary on the lines `TableWalk` makes from the table (every command and
/// mode; one line for each distinct refusal of each command). The API and the inspector URL
/// point at a listener of the test that counts what reaches it; every port a line asks for is
/// held by another listener of the test, so a command that bound before refusing would say the
/// port is in use (69) instead of its refusal; the files the lines name sit in a directory
/// whose every entry (name, size, time) is compared before and after each line.
final class RefusedLinesLeaveNothingEndToEndTests: XCTestCase {
    func testNoRefusedLineLeavesAFileASocketOrARequest() throws {
        let counted = try LoopbackHTTPServer { _, _ in LoopbackHTTPServer.Reply(status: 500) }
        let held = try LoopbackHTTPServer { _, _ in LoopbackHTTPServer.Reply(status: 500) }
        defer { counted.stop(); held.stop() }
        var samples = try TableWalk.Samples.make()
        samples.port = String(held.port)
        defer { try? FileManager.default.removeItem(atPath: samples.directory) }
        let walk = TableWalk(table: .appdna, samples: samples)
        let environment = ["APPDNA_API_KEY": "adn_test_walk", "APPDNA_API_URL": counted.baseURL, "APPDNA_SERVER": counted.baseURL,
                           "HOME": samples.directory + "/home", "XDG_RUNTIME_DIR": samples.directory + "/run",
                           "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "LC_ALL": "C.UTF-8"]
        var faults: [String] = [], run = 0
        for command in CommandTable.appdna.commands {
            var seen = Set<String>()
            for line in walk.lines(for: command) {
                guard let verdict = walk.judge(line, environment: environment), let refusal = verdict.refusal,
                      refusal.kind != .internalError, seen.insert(refusal.message).inserted else { continue }
                let before = Self.snapshot(samples.directory)
                let result = try Self.runBounded(line, environment: environment, in: samples.directory)
                run += 1
                let name = line.joined(separator: " ").replacingOccurrences(of: samples.directory + "/", with: "")
                if result.status != ExitStatus(refusal.kind).rawValue {
                    faults.append("\(name): exit \(result.status), its plan refuses with \(ExitStatus(refusal.kind).rawValue): \(result.stderr)")
                }
                if result.stderr.contains("in use") { faults.append("\(name): bound a port before refusing: \(result.stderr)") }
                let after = Self.snapshot(samples.directory)
                if after != before {
                    faults.append("\(name): refused, but changed \(after.symmetricDifference(before).sorted())")
                }
            }
        }
        print("refused lines run through the binary: \(run)")
        XCTAssertEqual(faults, [])
        XCTAssertEqual(counted.requests.map { "\($0.method) \($0.path)" }, [], "a refused line sent a request")
        XCTAssertGreaterThan(run, 60, "refused lines run")
    }

    /// Every entry below `directory`: its path, size and modification time.
    static func snapshot(_ directory: String) -> Set<String> {
        var entries = Set<String>()
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let path = enumerator?.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + path)
            entries.insert("\(path) \(attributes?[.size] ?? 0) \(attributes?[.modificationDate] ?? "")")
        }
        return entries
    }

    /// Runs the binary with no stdin, terminated after 20 s (a refused line ends at once).
    static func runBounded(_ arguments: [String], environment: [String: String], in directory: String) throws -> (status: Int32, stderr: String) {
        let output = try ProcessRunner.run(BuiltBinary.url.path, arguments, environment: environment, currentDirectory: directory, timeout: 20)
        return (output.status, output.stderr)
    }
}
