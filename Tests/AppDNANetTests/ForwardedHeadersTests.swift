import XCTest
@testable import AppDNANet

/// What `webhook listen` passes on (RFC 9110 §7.6): no hop-by-hop header, in any case, nor one
/// that `Connection` names; the signature untouched; X-Forwarded-* added after the tunnel's.
final class ForwardedHeadersTests: XCTestCase {
    func testHopByHopHeadersAndThoseConnectionNamesAreDropped() {
        let received: [(name: String, value: String)] = [
            ("Host", "hooks.example.test"), ("X-AppDNA-Signature", "sha256=abc"), ("connection", "Keep-Alive, x-private-hop"),
            ("X-Private-Hop", "1"), ("KEEP-ALIVE", "timeout=5"), ("Proxy-Authorization", "Basic x"), ("proxy-authenticate", "Basic"),
            ("TE", "trailers"), ("Trailer", "X-Sum"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"), ("Content-Length", "2"),
            ("Expect", "100-continue"), ("Content-Type", "application/json"),
        ]
        let forwarded = ForwardedHeaders.forwarded(received, peer: "198.51.100.4:50123")
        XCTAssertEqual(forwarded.map(\.name), ["X-AppDNA-Signature", "Content-Type", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host"])
        XCTAssertEqual(forwarded.map(\.value), ["sha256=abc", "application/json", "198.51.100.4", "http", "hooks.example.test"])
        XCTAssertEqual(ForwardedHeaders.endToEnd(received).map(\.name), ["X-AppDNA-Signature", "Content-Type"])
    }

    func testATunnelsForwardedHeadersAreKeptAndExtended() {
        let received: [(name: String, value: String)] = [
            ("Host", "127.0.0.1:8787"), ("X-Forwarded-For", "203.0.113.9"), ("x-forwarded-for", "10.0.0.2"),
            ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "abc.ngrok.app"),
        ]
        let forwarded = ForwardedHeaders.forwarded(received, peer: "127.0.0.1:40000")
        XCTAssertEqual(forwarded.filter { $0.name.lowercased() == "x-forwarded-for" }.map(\.value), ["203.0.113.9, 10.0.0.2, 127.0.0.1"])
        XCTAssertEqual(forwarded.first { $0.name == "X-Forwarded-Proto" }?.value, "https")
        XCTAssertEqual(forwarded.first { $0.name == "X-Forwarded-Host" }?.value, "abc.ngrok.app")
    }
}
