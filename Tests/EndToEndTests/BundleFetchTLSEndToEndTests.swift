import Foundation
import XCTest
import TestSupport

/// TLS failures reported in words: a real TLS server (`openssl s_server`) on 127.0.0.1 with a
/// self-signed certificate that the system trust store rightly rejects.
extension BundleFetchEndToEndTests {
    func testUntrustedCertificateIsExplainedAndNothingIsWritten() throws {
        let (certificate, key) = try makeSelfSignedCertificate(in: directory)
        let port = try freeLoopbackPort()
        let server = try startTLSServer(port: port, certificate: certificate, key: key, serving: ["-www"])
        defer { server.terminate(); server.waitUntilExit() }
        XCTAssertTrue(waitUntilListening(port: port), "openssl s_server did not start")

        // The test files live in the fetch test's directory; keep only the bundle file there.
        try FileManager.default.removeItem(atPath: certificate)
        try FileManager.default.removeItem(atPath: key)
        try writeOldFile()
        let result = try fetch(nil, ["--retries", "0", "--timeout", "10"], url: "https://127.0.0.1:\(port)")
        XCTAssertEqual(result.status, 69, result.stderr)
        XCTAssertTrue(result.stderr.contains("TLS"), result.stderr)
        XCTAssertTrue(result.stderr.lowercased().contains("certificate"), result.stderr)
        try assertUntouched()
    }

    /// openssl, which makes the certificates and is the TLS server.
    static func openssl() throws -> String { try requireTool("openssl", because: "`openssl s_server` is the TLS server") }

    /// A self-signed certificate for 127.0.0.1 and its key, as PEM files in `directory`.
    func makeSelfSignedCertificate(in directory: URL) throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let made = Process()
        made.executableURL = URL(fileURLWithPath: try Self.openssl())
        made.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                          "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        made.standardOutput = FileHandle.nullDevice
        made.standardError = FileHandle.nullDevice
        try made.run()
        made.waitUntilExit()
        XCTAssertEqual(made.terminationStatus, 0)
        return (certificate, key)
    }

    /// `openssl s_server` on 127.0.0.1:`port` (`-www`: a status page; `-WWW`: the files under
    /// `directory`). The caller terminates it.
    func startTLSServer(port: Int, certificate: String, key: String, serving: [String], directory: URL? = nil) throws -> Process {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: try Self.openssl())
        server.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-quiet"] + serving
        if let directory { server.currentDirectoryURL = directory }
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        server.standardInput = Pipe()
        try server.run()
        return server
    }

    func freeLoopbackPort() throws -> Int {
        let fd = TestSocket.tcp(AF_INET)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw missing("a free loopback port", because: "the TLS server listens on it", remedy: "check that 127.0.0.1 is up") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func waitUntilListening(port: Int) -> Bool {
        for _ in 0..<100 {
            let fd = TestSocket.tcp(AF_INET)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(fd)
            if connected { return true }
            usleep(50_000)
        }
        return false
    }
}
