import AppDNACore
import AppDNANet

/// `api serve --bootstrap live`: the live API's bootstrap, fetched with the SDK key
/// (APPDNA_SDK_KEY: --key-file is the key devices must send) from APPDNA_API_URL, each fetch
/// bounded as the SDK bounds its own (15 s; platform facts §7).
enum SDKBootstrapFetch {
    static func live(_ invocation: Invocation) throws -> @Sendable () throws -> HTTPResponse {
        let key = try APIAccess.key(keyFile: nil, environment: invocation.io.environment)
        let base = try APIAccess.baseURL(invocation.io.environment)
        let client = try APIAccess.client(invocation, retries: 1, maxResponseBytes: 1 << 20)
        let api = AppDNAAPI(base: base, key: key, client: client)
        return { try api.get(SDKBootstrap.path, deadline: Deadline(secondsFromNow: 15, clock: client.clock)) }
    }
}
