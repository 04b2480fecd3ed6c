import AppDNACore

/// The headers `webhook listen` passes on to the handler, as a proxy that knows HTTP does
/// (RFC 9110 §7.6): the end-to-end headers of the delivery (the signature among them, its value
/// unchanged), none of the hop-by-hop ones, and where the delivery came from.
public enum ForwardedHeaders {
    /// Headers about one connection (RFC 9110 §7.6.1, plus the old `Proxy-Connection`); the
    /// headers named in `Connection` are dropped too.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]
    /// Headers of this request's own framing and target: the forwarded request gets its own.
    static let regenerated: Set<String> = ["host", "content-length", "expect"]

    /// `headers` as received from `peer` ("203.0.113.7:51234"), made ready to forward:
    /// hop-by-hop headers removed; `X-Forwarded-For` gets the peer's address appended (after
    /// what a proxy in front, such as the tunnel, put there); `X-Forwarded-Proto` (`http`) and
    /// `X-Forwarded-Host` (the `Host` received) are set unless a proxy in front already set them.
    public static func forwarded(_ headers: [(name: String, value: String)], peer: String) -> [(name: String, value: String)] {
        var kept = endToEnd(headers).filter { !HeaderName.same($0.name, "X-Forwarded-For") }

        let address = peer.lastIndex(of: ":").map { String(peer[..<$0]) } ?? peer
        let earlier = HeaderName.all("X-Forwarded-For", in: headers, nameOf: \.name).map { HeaderText.trimmed($0.value) }
        kept.append((name: "X-Forwarded-For", value: (earlier.filter { !$0.isEmpty } + [address]).joined(separator: ", ")))
        if HeaderName.first("X-Forwarded-Proto", in: headers, nameOf: \.name) == nil {
            kept.append((name: "X-Forwarded-Proto", value: "http"))
        }
        if HeaderName.first("X-Forwarded-Host", in: headers, nameOf: \.name) == nil,
           let host = HeaderName.first("Host", in: headers, nameOf: \.name) {
            kept.append((name: "X-Forwarded-Host", value: host.value))
        }
        return kept
    }

    /// `headers` without the hop-by-hop ones (also those named in `Connection`) and without
    /// `Host`, `Content-Length` and `Expect`: what `webhook trigger --replay` re-sends.
    public static func endToEnd(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let named = HeaderName.all("Connection", in: headers, nameOf: \.name)
            .flatMap { $0.value.split(separator: ",") }
            .map { HeaderText.trimmed(String($0)).lowercased() }
        let dropped = hopByHop.union(regenerated).union(named)
        return headers.filter { !dropped.contains($0.name.lowercased()) }
    }
}
