import Foundation
import LoopbackHTTPServer
import XCTest

/// `webhook listen --forward-to` forwards as a proxy that knows HTTP: hop-by-hop headers (and
/// those `Connection` names) stay behind, X-Forwarded-* say where the delivery came from, the
/// body and the signature header arrive byte-identical; requests a proxy must refuse are
/// answered 400, logged, never forwarded.
extension WebhookListenEndToEndTests {
    /// Sends `head` + `body` from Python over a raw socket; returns the status line's code.
    func sendRaw(_ listener: Listener, head: String, body: String = "") throws -> String {
        let script = """
        import socket,sys
        s=socket.create_connection(('127.0.0.1',int(sys.argv[1])))
        s.sendall(bytes.fromhex(sys.argv[2]))
        data=b''
        while True:
            chunk=s.recv(4096)
            if not chunk: break
            data+=chunk
        print(data.split(b' ')[1].decode() if data else 'none')
        """
        // In hex: an argument cannot hold the NUL some requests carry.
        let hex = Array((head + body).utf8).map { String(format: "%02x", $0) }.joined()
        return try python(script, [String(listener.port), hex]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A handler answering 200, a listener forwarding to it, and a signed demo body.
    func forwardingSetUp(_ name: String) throws -> (LoopbackHTTPServer, Listener, body: String, signature: String) {
        let handler = try LoopbackHTTPServer { _, _ in .init(status: 200) }
        let listener = try startListener(["--secret-file", secretPath, "--forward-to", handler.baseURL + "/hook"])
        let bodyPath = try demoBody(name)
        return (handler, listener, try String(contentsOfFile: bodyPath, encoding: .utf8), try pythonSignature(bodyPath: bodyPath, keyPath: secretPath))
    }

    func testForwardingDropsHopByHopHeadersAndSaysWhereTheDeliveryCameFrom() throws {
        let (handler, listener, body, signature) = try forwardingSetUp("proxy")
        defer { handler.stop() }
        let head = "POST /webhooks HTTP/1.1\r\nHost: hooks.example.test\r\nContent-Type: application/json\r\n"
            + "X-AppDNA-Signature: \(signature)\r\nX-AppDNA-Event: subscription.renewed\r\n"
            + "Connection: close, X-Tunnel-Hop\r\nX-Tunnel-Hop: secret-hop\r\nKeep-Alive: timeout=5\r\n"
            + "Proxy-Authorization: Basic dXNlcjpwYXNz\r\nProxy-Authenticate: Basic\r\nTE: trailers\r\nTrailer: X-Checksum\r\n"
            + "Upgrade: websocket\r\nX-Forwarded-For: 203.0.113.7\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        XCTAssertEqual(try sendRaw(listener, head: head, body: body), "200")
        XCTAssertEqual(listener.stop(), 0)

        let forwarded = try XCTUnwrap(handler.requests.first)
        XCTAssertEqual(forwarded.body, Array(body.utf8), "the signed body changed")
        XCTAssertEqual(forwarded.header("X-AppDNA-Signature"), signature)
        XCTAssertEqual(forwarded.header("X-AppDNA-Event"), "subscription.renewed")
        for hop in ["X-Tunnel-Hop", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "TE", "Trailer", "Upgrade", "Transfer-Encoding"] {
            XCTAssertNil(forwarded.header(hop), "\(hop) was forwarded: \(forwarded.headers)")
        }
        XCTAssertNotEqual(forwarded.header("Connection")?.contains("X-Tunnel-Hop"), true)
        XCTAssertEqual(forwarded.header("X-Forwarded-For"), "203.0.113.7, 127.0.0.1")
        XCTAssertEqual(forwarded.header("X-Forwarded-Proto"), "http")
        XCTAssertEqual(forwarded.header("X-Forwarded-Host"), "hooks.example.test")
    }

    func testRequestsAProxyMustRefuseAre400LoggedAndNotForwarded() throws {
        let (handler, listener, body, signature) = try forwardingSetUp("refused")
        defer { handler.stop() }
        let signed = "POST /webhooks HTTP/1.1\r\nHost: x\r\nX-AppDNA-Signature: \(signature)\r\n"
        let cases = [
            signed + "X-Note: a\u{0}b\r\nContent-Length: \(body.utf8.count)\r\n\r\n",
            signed + "X-Note: a\rX-Injected: 1\r\nContent-Length: \(body.utf8.count)\r\n\r\n",
            signed + "X(Note): a\r\nContent-Length: \(body.utf8.count)\r\n\r\n",
            signed + "Content-Length: \(body.utf8.count)\r\nTransfer-Encoding: chunked\r\n\r\n",
        ]
        for head in cases {
            let chunked = head.contains("chunked") ? String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n" : body
            XCTAssertEqual(try sendRaw(listener, head: head, body: chunked), "400", head.debugDescription)
        }
        XCTAssertEqual(listener.stop(), 0)
        XCTAssertEqual(handler.requests.count, 0, "a refused request was forwarded")
        XCTAssertEqual(listener.stdout.components(separatedBy: "rejected 400").count - 1, cases.count, listener.stdout)
        XCTAssertTrue(listener.stdout.contains("holds NUL"), listener.stdout)
        XCTAssertTrue(listener.stdout.contains("both Content-Length and Transfer-Encoding"), listener.stdout)
    }

    func testAForwardFailureIsClassifiedByItsTypeNotItsWording() throws {
        // curl resolves *.localhost to loopback; nothing listens on port 1. The message names the
        // host "timeout.localhost", and the failure is still no timeout.
        let listener = try startListener(["--secret-file", secretPath, "--forward-to", "http://timeout.localhost:1/hook"])
        let bodyPath = try demoBody("classified")
        XCTAssertEqual(try post(listener, bodyPath: bodyPath, signature: try pythonSignature(bodyPath: bodyPath, keyPath: secretPath)).status, 502)
        XCTAssertEqual(listener.stop(), 0)
        XCTAssertTrue(listener.stdout.contains("cannot reach timeout.localhost:1"), listener.stdout)
        XCTAssertTrue(listener.stderr.contains("forwarded: failed ×1"), listener.stderr)
    }
}

/// Out of descriptors, the listener makes room by closing the stalest connection, whether it
/// stopped in its head or in its body, so a new client is still served.
extension WebhookListenEndToEndTests {
    func testPastTheDescriptorLimitTheOldestWaitingConnectionIsClosedFirst() throws {
        let listener = try startListener(["--secret-file", secretPath], openFiles: 48)
        // 80 connections that stop half way, every other one in the body, more than the listener
        // has descriptors for; then, after the delivery below, which of them the listener closed.
        let hold = """
        import socket,sys,time
        held=[]
        for i in range(80):
            s=socket.create_connection(('127.0.0.1',int(sys.argv[1])))
            s.sendall(b'POST /webhooks HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 100\\r\\n\\r\\n{"id":' if i%2 else b'POST /webhooks HT'); held.append(s)
        print('held', flush=True)
        time.sleep(2)
        closed=[]
        for i,s in enumerate(held):
            s.setblocking(False)
            try: closed.append(i) if s.recv(100)==b'' else None
            except BlockingIOError: pass
            except OSError: closed.append(i)
        print(' '.join(map(str,closed)), flush=True)
        """
        let (helper, output) = try startPython(hold, [String(listener.port)])
        XCTAssertEqual(String(decoding: output.readData(ofLength: 5), as: UTF8.self), "held\n")
        let bodyPath = try demoBody("past-the-limit")
        XCTAssertEqual(try post(listener, bodyPath: bodyPath, signature: try pythonSignature(bodyPath: bodyPath, keyPath: secretPath)).status, 200)
        helper.waitUntilExit()
        let closed = String(decoding: output.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")
            .compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertFalse(closed.isEmpty, "no connection was closed to make room")
        XCTAssertEqual(closed, Array(0..<closed.count), "not the oldest first: \(closed)")
        XCTAssertEqual(listener.stop(), 0)
    }
}
