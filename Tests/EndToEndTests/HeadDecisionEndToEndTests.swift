import Foundation
import TestSupport
import XCTest

/// Every server decides a request at its head: route, method, the row's guard and the row's body
/// limit. A refused request is answered while the client has sent only its head, with a huge
/// Content-Length announced and no body byte sent: a server that read the body first would
/// wait for it, and the receive here would time out (today's 60 MiB batch with a wrong key was
/// read whole, +65 MB, before its 401). Each case runs against the real binary.
final class HeadDecisionEndToEndTests: XCTestCase {
    static let key = "adn_test_head0000000000000001"
    /// 60 MiB announced, never sent.
    static let huge = 60 << 20
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("head-decision")
        addTeardownBlock { [scratch] in scratch?.remove() }
    }

    /// Sends `head` (and nothing of the body it announces) on a connection kept open, and reads
    /// the answer's status line and headers; nil when none came within `seconds` (the server
    /// waits for the body).
    static func answerToHead(_ head: String, port: Int, seconds: Int = 10) -> (status: Int, head: String)? {
        let fd = TestSocket.tcp(AF_INET)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(head.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, TestSocket.sendFlags) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.starts(with: Array("HTTP/1.1 ".utf8)) || !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += chunk[..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let status = Int(text.dropFirst(9).prefix(3)) else { return nil }
        return (status, text.components(separatedBy: "\r\n\r\n")[0])
    }

    static func head(_ method: String, _ target: String, port: Int, _ headers: [String] = [], length: Int = huge) -> String {
        "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    }

    func status(_ method: String, _ target: String, port: Int, _ headers: [String] = [], length: Int = huge,
                file: StaticString = #filePath, line: UInt = #line) -> Int? {
        let answer = Self.answerToHead(Self.head(method, target, port: port, headers, length: length), port: port)
        XCTAssertNotNil(answer, "\(method) \(target): no answer to the head alone (the server waits for the body)", file: file, line: line)
        return answer?.status
    }

    func testAPIServeRefusesAtTheHeadBeforeTheBody() throws {
        let bundle = try scratch.file("bundle.json", Array(#"{"bundle_version": 1, "experiments": {}}"#.utf8) + [0x0A])
        let keyFile = try scratch.file("key", Array(Self.key.utf8))
        let served = try InspectedProcess(["api", "serve", "--bundle", bundle, "--key-file", keyFile], in: scratch.url)
        defer { served.stop() }
        let port = served.listenerPort
        // The 60 MiB batch with a wrong key, a missing key, the key twice: 401 from the head.
        XCTAssertEqual(status("POST", "/api/v1/ingest/events", port: port, ["x-api-key: adn_test_wrong"]), 401)
        XCTAssertEqual(status("POST", "/api/v1/ingest/events", port: port), 401)
        XCTAssertEqual(status("POST", "/api/v1/ingest/events", port: port, ["x-api-key: \(Self.key)", "x-api-key: \(Self.key)"]), 401)
        // No such path, another method, a body where the row takes none, one over the row's limit.
        XCTAssertEqual(status("POST", "/api/v1/nowhere", port: port, ["x-api-key: \(Self.key)"]), 404)
        XCTAssertEqual(status("PUT", "/api/v1/sdk/config-bundle", port: port, ["x-api-key: \(Self.key)"]), 405)
        XCTAssertEqual(status("GET", "/api/v1/sdk/config-bundle", port: port, ["x-api-key: \(Self.key)"]), 413)
        XCTAssertEqual(status("POST", "/api/v1/ingest/events", port: port, ["x-api-key: \(Self.key)"], length: (64 << 20) + 1), 413)
        // The refusals are logged as requests, with their endpoint.
        XCTAssertTrue(served.stdout.contains("401"), served.stdout)

        // The inspector: an action without the token, with a foreign or a repeated Origin, with the token twice.
        let inspector = served.inspectorPort
        let token = try inspectorToken(served.inspector, in: scratch.url)
        XCTAssertEqual(status("POST", "/api/bundle/refetch", port: inspector), 403)
        XCTAssertEqual(status("PUT", "/api/overrides/flag/dark", port: inspector), 403)
        XCTAssertEqual(status("DELETE", "/api/overrides/flag/dark", port: inspector, ["X-AppDNA-Inspector-Token: \(token)", "Origin: http://evil.example"]), 403)
        XCTAssertEqual(status("PUT", "/api/overrides/flag/dark", port: inspector,
                              ["X-AppDNA-Inspector-Token: \(token)", "Origin: http://127.0.0.1:\(inspector)", "Origin: http://evil.example"]), 403)
        XCTAssertEqual(status("PUT", "/api/overrides/flag/dark", port: inspector,
                              ["X-AppDNA-Inspector-Token: \(token)", "X-AppDNA-Inspector-Token: \(token)"]), 403)
        // With the token, a value over the row's 64 KiB: 413 from the head; a read with a body: 413.
        XCTAssertEqual(status("PUT", "/api/overrides/flag/dark", port: inspector, ["X-AppDNA-Inspector-Token: \(token)"]), 413)
        XCTAssertEqual(status("GET", "/api/overrides", port: inspector), 413)
        XCTAssertEqual(status("GET", "/api/nowhere", port: inspector), 404)
    }

    func testWebhookListenAndItsInspectorRefuseAtTheHead() throws {
        let secret = try scratch.file("secret", Array("whsec_head_decision".utf8))
        let listening = try InspectedProcess(["webhook", "listen", "--secret-file", secret], in: scratch.url)
        defer { listening.stop() }
        XCTAssertEqual(status("GET", "/hooks", port: listening.listenerPort), 405)
        XCTAssertEqual(status("POST", "/hooks", port: listening.listenerPort), 413, "over --max-body")
        let inspector = listening.inspectorPort
        XCTAssertEqual(status("POST", "/api/deliveries/1/replay", port: inspector), 403)
        XCTAssertEqual(status("POST", "/api/deliveries/1/replay", port: inspector, ["X-AppDNA-Inspector-Token: 0", "Origin: http://evil.example"]), 403)
        XCTAssertEqual(status("GET", "/api/deliveries", port: inspector, ["Host: rebound.example"]), 400, "two Host fields")
    }
}
