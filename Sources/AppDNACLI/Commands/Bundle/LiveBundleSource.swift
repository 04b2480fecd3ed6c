import AppDNACore
import AppDNANet

/// `@remote` as the plan of `bundle validate`, `diff` or `codegen` holds it: the configuration
/// the download needs, read and checked when the plan is made (the key from APPDNA_SDK_KEY or
/// --key-file, APPDNA_API_URL, the CA variables: 78 for any of them) so that a command line
/// that cannot fetch is refused before anything is read or sent; the connection itself (the
/// client, the deadline that --timeout starts) is made by the run.
struct LiveBundleSource {
    let key: APIKey
    let timeout: Double
    let retries: Int
    /// The API flags as given, for a "run …" hint that fetches again (`bundle codegen --check`).
    let givenWords: [String]

    /// Checks the configuration as `LiveBundleConnection` will use it, in its order: the key,
    /// the base URL, the trusted certificates (those only for the system's transport).
    init(_ api: APISettings, io: CommandIO) throws {
        key = try APIAccess.key(keyFile: api.keyFile, environment: io.environment, files: io.files)
        _ = try APIAccess.baseURL(io.environment)
        if io.transport == nil { _ = try TLSTrust(environment: io.environment) }
        timeout = api.timeout
        retries = api.retries
        givenWords = api.givenWords
    }

    /// The connection: one deadline and one retry budget for every request of the run.
    func connect(_ invocation: Invocation) throws -> LiveBundleConnection {
        try LiveBundleConnection(invocation, key: key, timeout: timeout, retries: retries)
    }

    /// The live bundle, in the SDK file shape.
    func document(_ invocation: Invocation) throws -> JSONDocument {
        try BundleArgument.liveBundle(over: connect(invocation))
    }

    /// With an operand `@remote`, the API flags and the configuration they complete; without
    /// one, nil, and an API flag given is refused (64): it would change nothing.
    static func plan(_ arguments: ParsedArguments, _ io: CommandIO, remote: Bool) throws -> LiveBundleSource? {
        let api = try APISettings(arguments, bundle: remote ? BundleArgument.remote : nil)
        return remote ? try LiveBundleSource(api, io: io) : nil
    }
}
