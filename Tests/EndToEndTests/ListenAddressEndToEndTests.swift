import Foundation
import TestSupport
import XCTest

/// `--host` of both servers: IPv6 addresses are listened on (and said with brackets in every
/// URL the tool prints), anything that is not an address is a usage error (64), never 78,
/// which the help keeps for a missing secret or key.
final class ListenAddressEndToEndTests: XCTestCase {
    /// Starts `appdna ARGUMENTS --port 0` and returns it with the URL it printed on stderr.
    func start(_ arguments: [String], in scratch: ScratchDirectory) throws -> (process: Process, url: String) {
        let stderrPath = scratch.path + "/stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments + ["--port", "0"]
        process.environment = ["PATH": "/usr/bin:/bin", "APPDNA_WEBHOOK_SECRET": "whsec_ipv6"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && process.isRunning {
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let url = text.firstMatch(of: /(?:on|at) (http:\/\/\[[0-9a-f:]+\]:\d+)/) { return (process, String(url.1)) }
            usleep(20_000)
        }
        process.terminate()
        throw TestFailure("did not start: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
    }

    func testBothServersListenOnIPv6Loopback() throws {
        guard Sockets6.loopbackWorks() else {
            throw missing("IPv6 loopback (::1)", because: "the servers are tested listening on it", remedy: "enable IPv6 on lo")
        }
        let scratch = try ScratchDirectory("ipv6")
        defer { scratch.remove() }
        let bundle = try scratch.file("bundle.json", Array(#"{"bundle_version":4,"experiments":{}}"#.utf8))
        let (serve, serveURL) = try start(["api", "serve", "--host", "::1", "--bundle", bundle, "--state", scratch.path + "/state.json"], in: scratch)
        defer { serve.terminate(); serve.waitUntilExit() }
        XCTAssertTrue(serveURL.hasPrefix("http://[::1]:"), serveURL)
        let version = try curl(serveURL + "/api/v1/sdk/config-bundle/version", ["-g", "-H", "x-api-key: k"], in: scratch.url)
        XCTAssertEqual(version.status, 200, version.text)
        XCTAssertTrue(version.text.contains("\"bundle_version\":4"), version.text)

        let (listen, listenURL) = try start(["webhook", "listen", "--host", "::1"], in: scratch)
        defer { listen.terminate(); listen.waitUntilExit() }
        let delivery = try curl(listenURL + "/hooks", ["-g", "-X", "POST", "--data", "{}"], in: scratch.url)
        XCTAssertEqual(delivery.status, 401, "unsigned: checked and refused, over IPv6")
        let wrong = try curl(listenURL + "/hooks", ["-g"], in: scratch.url)
        XCTAssertEqual(wrong.status, 405)
        XCTAssertEqual(wrong.headers["allow"], "POST")
    }

    func testAHostThatIsNotAnAddressIsAUsageError() throws {
        for host in ["not-an-ip", "1.2.3.4.5", "::g", "[::1]", "", "127.0.0.1:80", "999.0.0.1"] {
            for command in [["webhook", "listen"], ["api", "serve", "--bundle", "/nonexistent-but-not-read-first"]] {
                let result = try Binary.run(command + ["--host", host, "--port", "0"], environment: ["APPDNA_WEBHOOK_SECRET": "s"])
                if command[0] == "webhook" || result.stderr.contains("--host") {
                    XCTAssertEqual(result.status, 64, "\(command) --host '\(host)': \(result.stderr)")
                }
            }
        }
    }
}

/// Whether this machine can bind ::1 (a container without IPv6 cannot).
enum Sockets6 {
    static func loopbackWorks() -> Bool {
        let fd = TestSocket.tcp(AF_INET6)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        } == 0
    }
}
