import AppDNACore

/// What an origin server accepts that a proxy would not (RFC 9112 §3.2): `webhook listen`,
/// `api serve` and the inspectors serve their own paths, never another host's. Checked by the
/// server on every request head before any handler or route table sees it, so nothing built
/// from a target (a forward, an inspector's re-send command) can name another host.
///
/// - the target is origin-form, a path starting with `/`: absolute-form
///   (`http://host/x`), authority-form (`host:443`), `@host:port/x` and asterisk-form
///   (`OPTIONS *`) are 400;
/// - `CONNECT` (a tunnel) and `TRACE` (echoes the request, credentials included) are 405;
/// - a Host field, where there is one, is a valid `host[:port]`: not empty, no userinfo (`@`),
///   no path, a port of at most 65535.
enum OriginServerRules {
    /// The methods an origin server here never serves, whatever the route.
    static let refusedMethods = ["CONNECT", "TRACE"]

    static func refusal(_ head: RawHTTPRequest.Head) -> RequestReader.Refusal? {
        if refusedMethods.contains(head.method) {
            return RequestReader.Refusal(status: 405, reason: "\(head.method) is not served: this is an origin server, not a proxy",
                                         allow: "GET, HEAD, POST")
        }
        guard head.target.utf8.first == UInt8(ascii: "/") else {
            return RequestReader.Refusal(status: 400, reason: "the request target '\(HeaderText.excerpt(head.target))' is not a path "
                                         + "starting with / (origin-form, RFC 9112 §3.2.1): this server serves only its own paths")
        }
        for host in HeaderName.all("Host", in: head.headers, nameOf: \.name) where !isValidHost(Array(host.value.utf8)) {
            return RequestReader.Refusal(status: 400, reason: "the Host field '\(HeaderText.excerpt(host.value))' is not a host[:port]")
        }
        return nil
    }

    /// `uri-host [":" port]` (RFC 9110 §7.2, RFC 3986 §3.2.2): an IP literal in brackets, or
    /// a reg-name of unreserved characters, sub-delimiters and %XX; a port of at most five
    /// digits up to 65535. Empty is not a host.
    static func isValidHost(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        var host = bytes[...]
        var port: ArraySlice<UInt8>? = nil
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[1..<close]
            guard !literal.isEmpty, literal.allSatisfy({ Hex.value(of: $0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return false }
            let rest = bytes[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { return false }
                port = rest.dropFirst()
            }
            host = bytes[...close]
        } else if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            host = bytes[..<colon]
            port = bytes[(colon + 1)...]
            guard !host.isEmpty, host.allSatisfy(isRegNameByte) else { return false }
        } else {
            guard bytes.allSatisfy(isRegNameByte) else { return false }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let number = Int(String(decoding: port, as: UTF8.self)), number <= 65535 else { return false }
        }
        return !host.isEmpty
    }

    /// unreserved / sub-delims / `%` of pct-encoded (RFC 3986): no `@`, `/`, `?`, `#`, space.
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("-._~!$&'()*+,;=%".utf8).contains(byte)
        }
    }
}
