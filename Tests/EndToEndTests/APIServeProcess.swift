import Foundation
import XCTest

/// `appdna api serve` running as a real process on a free loopback port, for the tests that
/// need an AppDNA API (and for the documents' blocks): started with `--port 0`, ready once it
/// names its address on stderr, stopped with SIGINT (as Ctrl-C), after which its request
/// lines (stdout) and summary (stderr) can be read. `command` runs another server the same way
/// (`webhook listen`).
final class APIServeProcess {
    let process = Process()
    let baseURL: String
    private let stdoutPath: URL
    private let stderrPath: URL
    private(set) var stopped = false

    init(_ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
         command: [String] = ["api", "serve"]) throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        stdoutPath = scratch.appendingPathComponent("stdout")
        stderrPath = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath.path, contents: nil)
        process.executableURL = Binary.url
        // A state file of its own unless the test names one: one api serve per state file
        // (issue 50), and the tests run in parallel from one working directory.
        let state = command == ["api", "serve"] && !arguments.contains("--state") ? ["--state", scratch.appendingPathComponent("overrides.json").path] : []
        process.arguments = command + ["--port", "0"] + state + arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutPath)
        process.standardError = try FileHandle(forWritingTo: stderrPath)
        try process.run()
        // Ready when the address is on stderr (or gone, when it could not start).
        let deadline = Date().addingTimeInterval(20)
        var found: String?
        while found == nil && Date() < deadline && process.isRunning {
            let text = (try? String(contentsOf: stderrPath, encoding: .utf8)) ?? ""
            found = text.firstMatch(of: /(?:at|on) (http:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) }
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            process.terminate()
            throw NSError(domain: "APIServeProcess", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "api serve did not start: \((try? String(contentsOf: stderrPath, encoding: .utf8)) ?? "")"])
        }
        baseURL = found
    }

    deinit {
        if !stopped { stop() }
        try? FileManager.default.removeItem(at: stdoutPath.deletingLastPathComponent())
    }

    /// Ctrl-C; waits for the summary. Returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if !stopped {
            stopped = true
            if process.isRunning { kill(process.processIdentifier, SIGINT) }
            process.waitUntilExit()
        }
        return process.terminationStatus
    }

    var requestLines: [String] {
        ((try? String(contentsOf: stdoutPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    var stderr: String { (try? String(contentsOf: stderrPath, encoding: .utf8)) ?? "" }
}
