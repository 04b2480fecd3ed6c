import AppDNACore
import AppDNANet

/// Who may use the inspector. It listens on 127.0.0.1 only, but any web page the developer
/// visits can make the browser send requests there, so:
/// - every request must name the inspector itself in `Host` (`127.0.0.1:PORT` or
///   `localhost:PORT`): a page whose own host name was rebound to 127.0.0.1 (DNS rebinding)
///   sends its own name and is refused;
/// - a replay (the one request that does something) must carry the page's per-run token in
///   `X-AppDNA-Inspector-Token` (another page cannot read it: the browser keeps pages of other
///   origins from reading this one) and no `Origin` other than the inspector's own;
/// - every answer forbids framing, sniffing and any script, style or connection from
///   elsewhere (`headers`), so the page's own code is all that runs in it.
public struct InspectorGuard: Sendable {
    let port: Int
    /// 128 random bits in hex, new for every run.
    let token: String

    public static let tokenHeader = "X-AppDNA-Inspector-Token"

    init(port: Int, token: String = InspectorGuard.randomToken()) {
        self.port = port
        self.token = token
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<32).map { _ in digits[Int(generator.next() & 15)] })
    }

    /// The origins of the page itself.
    var origins: [String] { ["http://127.0.0.1:\(port)", "http://localhost:\(port)"] }

    /// Why a request is refused whatever it asks (nil: it is for this inspector).
    func hostRefusal(_ request: HTTPServer.Request) -> String? {
        let names = port == 80 ? ["127.0.0.1", "localhost"] : []
        let accepted = origins.map { String($0.dropFirst("http://".count)) } + names
        guard let host = request.head.value(of: "Host").map({ HeaderText.trimmed($0).lowercased() }), accepted.contains(host) else {
            return "the inspector answers requests for 127.0.0.1:\(port) or localhost:\(port) only (Host: "
                + (request.head.value(of: "Host") ?? "none") + ")"
        }
        return nil
    }

    /// Why a request that changes something (a replay) is refused (nil: allowed).
    func actionRefusal(_ request: HTTPServer.Request) -> String? {
        actionRefusal(request.head)
    }

    /// The guard of the rows that act (`RouteGuard.inspectorToken`), checked at the head: one
    /// token, this run's, and at most one `Origin`, the inspector's own. A repeated `Origin` or
    /// token is refused (403): a check of the first alone would let a second one through.
    func actionRefusal(_ head: RawHTTPRequest.Head) -> String? {
        if RouteGuards.isRepeated("Origin", in: head) { return "Origin is given more than once" }
        if RouteGuards.isRepeated(Self.tokenHeader, in: head) { return "\(Self.tokenHeader) is given more than once" }
        if let origin = head.value(of: "Origin"), !origins.contains(HeaderText.trimmed(origin)) {
            return "a page from another origin (\(HeaderText.excerpt(origin))) cannot use the inspector"
        }
        guard let given = head.value(of: Self.tokenHeader) else {
            return "\(Self.tokenHeader) is missing: it is in the page's appdna-inspector-token meta tag"
        }
        guard Self.sameInConstantTime(Array(HeaderText.trimmed(given).utf8), Array(token.utf8)) else {
            return "\(Self.tokenHeader) is not this run's token"
        }
        return nil
    }

    /// Compares every byte whatever differs first, so the time taken tells nothing about the token.
    static func sameInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Sent with every answer. The Content-Security-Policy allows the page's own script and
    /// style files and requests to itself, and nothing else: no inline script or style, no
    /// `eval`, no external resource (the page works offline), no frames, no forms.
    static let headers: [(name: String, value: String)] = [
        ("Content-Security-Policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
            + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
    ]
}
