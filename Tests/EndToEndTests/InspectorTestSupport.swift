import Foundation
import TestSupport
import XCTest

/// A running `appdna webhook listen --inspect 0 …` or `appdna api serve --inspect 0 …`, with the
/// two ports it printed on stderr: the listener's and the inspector's.
final class InspectedProcess {
    let process: Process
    let listenerPort: Int
    let inspectorPort: Int
    let stdoutPath: String
    let stderrPath: String

    var inspector: String { "http://127.0.0.1:\(inspectorPort)" }
    var listener: String { "http://127.0.0.1:\(listenerPort)" }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Starts `appdna ARGUMENTS --port 0 --inspect 0` in `directory` and waits for both ports.
    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws {
        let name = UUID().uuidString
        stdoutPath = directory.appendingPathComponent("inspected-\(name).out").path
        stderrPath = directory.appendingPathComponent("inspected-\(name).err").path
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments + ["--port", "0"] + (arguments.contains("--inspect") ? [] : ["--inspect", "0"])
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let started = Date()
        var ports: (listener: Int, inspector: Int)?
        while Date().timeIntervalSince(started) < 20 {
            ports = Self.ports(in: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
            if ports != nil || !process.isRunning { break }
            usleep(20_000)
        }
        guard let ports else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            throw BrowserSession.Failure(description: "appdna did not start: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
        }
        listenerPort = ports.listener
        inspectorPort = ports.inspector
    }

    /// "inspector at http://127.0.0.1:P/" and "listening on http://H:P" (webhook listen) or
    /// "… at http://H:P;" (api serve).
    static func ports(in stderr: String) -> (listener: Int, inspector: Int)? {
        func port(after pattern: String) -> Int? {
            guard let range = stderr.range(of: pattern, options: .regularExpression) else { return nil }
            return Int(stderr[range].split(separator: ":").last!.filter(\.isNumber))
        }
        guard let inspector = port(after: #"inspector at http://127\.0\.0\.1:[0-9]+"#),
              let listener = port(after: #"(listening on|\) at) http://[0-9.]+:[0-9]+"#) else { return nil }
        return (listener, inspector)
    }

    /// SIGTERM, then waits for the exit; the status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// One HTTP exchange made with curl: status, headers (names lower-cased) and body bytes.
struct CurlExchange {
    let status: Int
    let headers: [String: String]
    let body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
}

extension XCTestCase {
    /// curl `url` with `arguments` (method, headers, body) in `directory`.
    func curl(_ url: String, _ arguments: [String] = [], in directory: URL) throws -> CurlExchange {
        let curl = try requireTool("curl", because: "the inspector's API is tested with curl")
        let name = UUID().uuidString
        let bodyPath = directory.appendingPathComponent("curl-\(name).body").path
        let headerPath = directory.appendingPathComponent("curl-\(name).head").path
        let result = try ProcessRunner.run(curl, ["-sS", "--max-time", "30", "-o", bodyPath, "-D", headerPath, "-w", "%{http_code}"] + arguments + [url],
                                           environment: [:])
        XCTAssertEqual(result.status, 0, "curl \(url): \(result.stderr)")
        var headers: [String: String] = [:]
        for line in ((try? String(contentsOfFile: headerPath, encoding: .utf8)) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return CurlExchange(status: Int(result.stdout) ?? 0, headers: headers,
                            body: (try? Data(contentsOf: URL(fileURLWithPath: bodyPath))) ?? Data())
    }

    /// Sends `body` to `url` signed with the secret in `secretPath` (as `webhook trigger --body` does).
    func sendDelivery(_ body: Data, to url: String, secretPath: String, type: String = "subscription.renewed", in directory: URL) throws {
        let path = directory.appendingPathComponent("body-\(UUID().uuidString)").path
        try body.write(to: URL(fileURLWithPath: path))
        let sent = try Binary.run(["webhook", "trigger", type, "--body", path, "--to", url, "--secret-file", secretPath])
        XCTAssertTrue(sent.status == 0 || sent.status == 1, "webhook trigger: \(sent.stderr)")
    }

    /// The page's token, as a script in the page would read it.
    func inspectorToken(_ inspector: String, in directory: URL) throws -> String {
        let page = try curl(inspector + "/", in: directory).text
        let marker = #"<meta name="appdna-inspector-token" content=""#
        guard let start = page.range(of: marker) else { return "" }
        return String(page[start.upperBound...].prefix { $0 != "\"" })
    }
}
