import AppDNACore

/// The AppDNA API as this tool calls it, written once: the base URL, the endpoints' paths and
/// the headers every request carries (the key in `x-api-key`, nowhere else). Requests go
/// through `client`, so its transport and clock (scripted and virtual in tests) serve every
/// endpoint: `bundle fetch`, `bundle diff @remote` and `queue replay`.
public struct AppDNAAPI: Sendable {
    public static let bundlePath = "/api/v1/sdk/config-bundle"
    public static let bundleVersionPath = "/api/v1/sdk/config-bundle/version"
    public static let ingestPath = "/api/v1/ingest/events"
    /// The most of an ingest answer kept (for the dead-letter file); the rest is dropped as it
    /// arrives, so a server answering with gigabytes costs no memory.
    public static let keptIngestAnswerBytes = 4096

    /// Without a trailing slash (`https://api.appdna.ai`).
    public let base: String
    public let key: APIKey
    public let client: HTTPClient

    public init(base: String, key: APIKey, client: HTTPClient) {
        self.base = base
        self.key = key
        self.client = client
    }

    public func url(_ path: String) -> String { base + path }

    /// GET `path` (the bundle, its version), retried by the client's policy within `deadline`,
    /// drawing on `budget` when the command shares one across requests.
    public func get(_ path: String, deadline: Deadline, budget: RetryBudget? = nil) throws(HTTPError) -> HTTPResponse {
        let request = HTTPRequest(url: url(path), headers: [("x-api-key", key.secret), ("Accept", "application/json")])
        return try client.send(request, deadline: deadline, budget: budget)
    }

    /// POST `{"batch":[…]}` (`json`, uncompressed) to the ingest endpoint exactly as the SDK
    /// does: raw DEFLATE body, `Content-Encoding: deflate`, and the platform and SDK version of
    /// its events in `x-sdk-platform` / `x-sdk-version`. Returns the answer whatever its status.
    public func postEvents(_ json: [UInt8], platform: String, sdkVersion: String, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        let request = HTTPRequest(method: "POST", url: url(Self.ingestPath), headers: [
            ("x-api-key", key.secret),
            ("Content-Type", "application/json"),
            ("Content-Encoding", "deflate"),
            ("x-sdk-version", sdkVersion),
            ("x-sdk-platform", platform),
            ("Accept", "application/json"),
        ], body: try RawDeflate.compress(json), keepBodyBytes: Self.keptIngestAnswerBytes)
        return try client.send(request, deadline: deadline)
    }
}
