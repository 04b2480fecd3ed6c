import Foundation
import TestSupport
import XCTest

/// A real browser for the tests: Debian's headless Chromium, driven through its chromedriver by
/// `Tests/Browser/browser_session.py` (Selenium), one JSON command per line. The test drives
/// the page step by step between its own actions, and the browser stays open across them.
/// Missing Chromium, chromedriver or Selenium is `missing` (a skip here, a failure in CI;
/// scripts/install-test-tools installs them).
final class BrowserSession {
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private var buffered = Data()
    /// The browser's version, as chromedriver reports it.
    private(set) var version = ""

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        let why = "the inspector page is tested in a real browser"
        let chromium = try Self.browser(because: why)
        let chromedriver = try Self.driver(because: why)
        let python = try requirePythonModules(["selenium"], because: why)
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [repositoryRoot.appendingPathComponent("Tests/Browser/browser_session.py").path, chromium, chromedriver]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
        let hello = try reply()
        if let error = hello["error"] as? String { throw Failure(description: error) }
        version = hello["version"] as? String ?? ""
    }

    deinit { close() }

    /// Debian's chromium; on macOS, Google Chrome's or Chromium's app when no command is on PATH.
    static func browser(because why: String) throws -> String {
        if let path = findTool("chromium") ?? findTool("chromium-browser") { return path }
        #if os(macOS)
        for app in ["/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Chromium.app/Contents/MacOS/Chromium"]
        where FileManager.default.isExecutableFile(atPath: app) {
            return app
        }
        #endif
        throw missing("chromium", because: why)
    }

    /// chromedriver on PATH, or where GitHub's runners keep it (CHROMEWEBDRIVER).
    static func driver(because why: String) throws -> String {
        if let path = findTool("chromedriver") { return path }
        if let folder = ProcessInfo.processInfo.environment["CHROMEWEBDRIVER"],
           FileManager.default.isExecutableFile(atPath: folder + "/chromedriver") {
            return folder + "/chromedriver"
        }
        throw missing("chromedriver", because: why)
    }

    /// Closes the browser and waits for it to go.
    func close() {
        guard process.isRunning else { return }
        try? input.write(contentsOf: Data("{\"quit\": true}\n".utf8))
        try? input.close()
        process.waitUntilExit()
    }

    /// Sends one command; its `value` (nil when it has none). An error reply throws, naming the command.
    @discardableResult
    func send(_ command: [String: Any]) throws -> Any? {
        let line = try JSONSerialization.data(withJSONObject: command) + Data("\n".utf8)
        try input.write(contentsOf: line)
        let answer = try reply()
        if let error = answer["error"] as? String {
            throw Failure(description: "\(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)): \(error)")
        }
        return answer["value"]
    }

    private func reply() throws -> [String: Any] {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = buffered[buffered.startIndex..<newline]
                buffered = Data(buffered[(newline + 1)...])
                guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                    throw Failure(description: "not a reply: \(String(decoding: line, as: UTF8.self))")
                }
                return object
            }
            let more = output.availableData
            if more.isEmpty { throw Failure(description: "the browser session ended") }
            buffered += more
        }
    }

    // MARK: - The commands, typed

    func open(_ url: String) throws { try send(["open": url]) }

    /// Lays the page out in a `width` x `height` window (CSS pixels), as a screen of that size would.
    func viewport(width: Int, height: Int) throws { try send(["viewport": [width, height]]) }

    /// Until an element matches `css` (with `text` in its textContent, or `count` of them); the
    /// bound only ends a wait that would never succeed (a loaded CI machine is slow, not wrong).
    func wait(_ css: String, text: String? = nil, count: Int? = nil, timeout: Double = 60) throws {
        var command: [String: Any] = ["wait": css, "timeout": timeout]
        if let text { command["text"] = text }
        if let count { command["count"] = count }
        try send(command)
    }

    func text(_ css: String) throws -> String { try send(["text": css]) as? String ?? "" }
    func texts(_ css: String) throws -> [String] { try send(["texts": css]) as? [String] ?? [] }
    func count(_ css: String) throws -> Int { try send(["count": css]) as? Int ?? -1 }
    func attribute(_ css: String, _ name: String) throws -> String? { try send(["attribute": css, "name": name]) as? String }
    func click(_ css: String) throws { try send(["click": css]) }
    /// Empties the field, then types `keys` into it key by key.
    func type(_ css: String, _ keys: String) throws { try send(["type": css, "keys": keys]) }
    /// Chooses the option whose value is `value` in a `<select>`.
    func select(_ css: String, value: String) throws { try send(["select": css, "value": value]) }
    func script(_ body: String) throws -> Any? { try send(["script": body]) }
    /// A script that ends by calling `arguments[0](result)` (a fetch, say).
    func asyncScript(_ body: String) throws -> Any? { try send(["async": body]) }
    func screenshot(_ path: String) throws { try send(["screenshot": path]) }
    /// What the page logged to its console since the last call (CSP violations among it).
    func console() throws -> [String] { try send(["console": true]) as? [String] ?? [] }
}
