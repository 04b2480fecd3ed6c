import AppDNACore
import AppDNANet

/// `api serve --bootstrap live`: the live API's bootstrap, fetched with the SDK key
/// (APPDNA_SDK_KEY: --key-file is the key devices must send) from APPDNA_API_URL, each fetch
/// bounded as the SDK bounds its own (15 s; platform facts §7).
enum SDKBootstrapFetch {
    /// The key and the API, read and checked by the plan.
    struct Settings: Sendable {
        let key: APIKey
        let base: String
    }

    /// The key, the API's address and the HTTP client, checked (78) without a request.
    static func settings(_ invocation: Invocation) throws -> Settings {
        let settings = Settings(key: try APIAccess.key(keyFile: nil, environment: invocation.io.environment, files: invocation.io.files),
                                base: try APIAccess.baseURL(invocation.io.environment))
        _ = try client(invocation)
        return settings
    }

    static func client(_ invocation: Invocation) throws -> HTTPClient {
        try APIAccess.client(invocation, retries: 1, maxResponseBytes: 1 << 20)
    }

    static func live(_ settings: Settings, _ invocation: Invocation) throws -> @Sendable () throws -> HTTPResponse {
        let client = try client(invocation)
        let api = AppDNAAPI(base: settings.base, key: settings.key, client: client)
        return { try api.get(SDKBootstrap.path, deadline: Deadline(secondsFromNow: 15, clock: client.clock)) }
    }
}
