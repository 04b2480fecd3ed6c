import AppDNACore

/// Just enough of a URL to decide where a request may go: scheme, host, port.
public struct HTTPURL: Sendable, Equatable {
    public let scheme: String
    /// Lower-cased; IPv6 literals without brackets.
    public let host: String
    public let port: Int
    /// Path and query, "/" when absent.
    public let pathAndQuery: String

    public init?(_ text: String) {
        guard let separator = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { (c: Character) -> Bool in c == "/" || c == "?" || c == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host: Substring
        var portText: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { return nil }
        var port = scheme == "https" ? 443 : 80
        if let portText, !portText.isEmpty {
            guard let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        let path = rest.prefix(while: { $0 != "#" })
        self.pathAndQuery = path.isEmpty ? "/" : (path.hasPrefix("/") ? String(path) : "/" + path)
    }

    /// localhost, 127.0.0.0/8 and ::1: where plain http is acceptable (tests, local fakes).
    public var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// "api.appdna.ai" or "127.0.0.1:8080" (the port when not the scheme's default).
    public var hostAndPort: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? shown : "\(shown):\(port)"
    }

    /// Same host and port, or the same host moving from http to https on the default ports.
    public func isSameHost(as other: HTTPURL) -> Bool {
        guard host == other.host else { return false }
        if scheme == other.scheme { return port == other.port }
        return scheme == "http" && other.scheme == "https" && port == 80 && other.port == 443
    }

    /// Refuses what `appdna` never sends a key to: non-HTTP(S) URLs and plain http to anything
    /// but loopback (status 78).
    public static func checkedForAPI(_ text: String, variable: String) throws(HTTPError) -> HTTPURL {
        guard let url = HTTPURL(text) else {
            throw HTTPError(.configuration, "\(variable) is not an http(s) URL: '\(text)'",
                            hint: "use a URL like https://api.appdna.ai")
        }
        // The API's paths are appended to it: a query or a fragment would end up in front of
        // them (`…?q=1/api/v1/…`) and the request would go somewhere else.
        if text.utf8.contains(UInt8(ascii: "?")) || text.utf8.contains(UInt8(ascii: "#")) {
            throw HTTPError(.configuration, "\(variable) has a query or a fragment: '\(text)'",
                            hint: "give the base URL alone, like https://api.appdna.ai (the API's paths are appended to it)")
        }
        if url.scheme == "http" && !url.isLoopback {
            throw HTTPError(.configuration, "\(variable) uses plain http (\(url.hostAndPort)): the API key would travel unencrypted",
                            hint: "use https://; plain http is accepted only for loopback hosts (localhost, 127.0.0.1, ::1)")
        }
        return url
    }
}
