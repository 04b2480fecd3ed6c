import AppDNACore
import AppDNANet

/// The API connection `bundle fetch` and `bundle diff @remote` share: the key (from
/// APPDNA_SDK_KEY or --key-file), the checked base URL, one deadline for the whole command and
/// an HTTP client with the retry policy of --retries. What is said over it is Net's
/// `BundleFetchSession`; this reads and checks the command's configuration for it.
struct LiveBundleConnection {
    /// The requests, the deadline and the retry budget (see `BundleFetchSession`).
    let session: BundleFetchSession

    var api: AppDNAAPI { session.api }
    var deadline: Deadline { session.deadline }
    var budget: RetryBudget { session.budget }
    var key: APIKey { api.key }
    var base: String { api.base }
    /// The most a bundle answer may hold, decoded, unless the command says otherwise
    /// (`bundle fetch --max-size`): far above real bundles, far below what a gzip bomb expands to.
    static let defaultMaxResponseBytes = 64 << 20

    /// The connection a plan's API settings describe (the arguments are not read again);
    /// reads and checks the configuration (78 on any problem) before any request is made.
    init(_ invocation: Invocation, api: APISettings, maxResponseBytes: Int = LiveBundleConnection.defaultMaxResponseBytes) throws {
        try self.init(invocation, key: APIAccess.key(keyFile: api.keyFile, environment: invocation.io.environment, files: invocation.io.files),
                      timeout: api.timeout, retries: api.retries, maxResponseBytes: maxResponseBytes)
    }

    /// A connection with a key read before and its own bound and retries (`api serve --bundle
    /// @remote` fetches again and again, from request threads: the key was read once at start,
    /// and each fetch gets `timeout` and `retries` of its own).
    init(_ invocation: Invocation, key: APIKey, timeout: Double, retries: Int, maxResponseBytes: Int = LiveBundleConnection.defaultMaxResponseBytes) throws {
        let base = try APIAccess.baseURL(invocation.io.environment)
        let client = try APIAccess.client(invocation, retries: retries, maxResponseBytes: maxResponseBytes)
        session = BundleFetchSession(api: AppDNAAPI(base: base, key: key, client: client),
                                     deadline: Deadline(secondsFromNow: timeout, clock: client.clock), budget: RetryBudget(retries: retries))
    }

    /// The live bundle's response; a status other than 2xx is an error (77 for 401/403, else 69/75).
    func downloadBundle() throws -> HTTPResponse {
        try session.downloadBundle()
    }
}
