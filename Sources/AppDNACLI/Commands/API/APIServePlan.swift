import AppDNACore
import AppDNANet
import AppDNAServers

/// Everything `api serve` runs with, read from its flags once and checked before anything is
/// written, bound or sent (issue 54.1): every flag's usage error (64), the keys and the API's
/// configuration (78), and, for a bundle file, the bundle, the `--state` file and every
/// `--override` proven against them (66, 65, 64). The run then works from this value alone: a
/// refused start leaves no state file, no lock, no port and no discovery file behind.
struct APIServePlan: Sendable {
    /// Where the served bundle comes from.
    enum Source: Sendable {
        case file(path: String)
        /// `--bundle @remote`: the key its fetches send, read here once (the refetch runs on a
        /// request's thread, minutes later, and reads neither the flags nor the key file again),
        /// and `--refetch`.
        case remote(key: APIKey, every: Double?)
    }

    /// `--bundle` as given: how messages name the source.
    let bundleName: String
    let source: Source
    let overrides: [BundleOverride]
    let faults: ServeFaults
    let bootstrap: BootstrapMode
    /// `--bootstrap live`: the SDK key and the API it asks for the bootstrap.
    let liveBootstrap: SDKBootstrapFetch.Settings?
    let bundled: BundledFile?
    /// The key every request must carry (`--key-file`, `--key-from-env`); nil: any non-empty key.
    let requiredKey: [UInt8]?
    let statePath: String
    let record: String?
    let host: String
    let port: Int
    let inspector: InspectorServer.Settings?
    let json: Bool

    /// Each fetch of the live bundle (`--bundle @remote`) is bounded by 60 s with 3 retries.
    static let remoteTimeout = 60.0
    static let remoteRetries = 3

    static func make(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> APIServePlan {
        guard let bundleName = arguments[APIServeFlags.bundle] else {
            throw Failure(.usage, "api serve needs a bundle to serve: --bundle FILE (appdna bundle fetch -o FILE writes one) or --bundle @remote")
        }
        try BundleArgument.checkSpelling(bundleName)
        let remote = bundleName == BundleArgument.remote
        // The command line first (64), then the configuration (78), then the files (66, 65, 73).
        let overrides = try arguments[APIServeFlags.override].map { text throws(Failure) in try BundleOverride(parsing: text) }
        // --fail's companions change nothing without it; two sources of the key would leave one unheard.
        if arguments[APIServeFlags.fail] == nil {
            for flag in [APIServeFlags.failAfter.spec, APIServeFlags.retryAfter.spec] where arguments.given(flag) {
                throw Failure(.usage, "--\(flag.long) goes with --fail (it shapes the failures --fail injects)")
            }
        }
        if arguments.given(APIServeFlags.keyFile.spec) && arguments[APIServeFlags.keyFromEnv] {
            throw Failure(.usage, "--key-file and --key-from-env each name the one key api serve accepts: give one")
        }
        if let inspect = arguments[APIServeFlags.inspect], inspect != 0, inspect == arguments[APIServeFlags.port] {
            throw Failure(.usage, "--inspect \(inspect) is the port api serve listens on (--port): give the inspector another port")
        }
        // Each file in one role: the source bundle, the written bundle, the state and the record.
        try OutputPaths.refuseSameFile([("--bundle", bundleName == BundleArgument.remote ? nil : bundleName),
                                        ("--write-bundled", arguments[APIServeFlags.writeBundled]),
                                        ("--state", arguments[APIServeFlags.state]), ("--record", arguments[APIServeFlags.record])])
        let faults = try ServeFaults(fail: arguments[APIServeFlags.fail], after: arguments[APIServeFlags.failAfter], retryAfter: arguments[APIServeFlags.retryAfter],
                                     latency: arguments[APIServeFlags.latency], maxEventBody: arguments[APIServeFlags.status413Over])
        let bootstrap = arguments[APIServeFlags.bootstrap]
        let refetch = arguments[APIServeFlags.refetch]
        if !remote && refetch != nil { throw Failure(.usage, "--refetch goes with --bundle @remote (a file is read again whenever it changes)") }
        let inspector = try InspectorLaunch.settings(arguments, inspect: APIServeFlags.inspect, keep: APIServeFlags.inspectKeep, maxBytes: APIServeFlags.inspectMaxBytes)
        let writeBundled = arguments[APIServeFlags.writeBundled]
        let keyFile = arguments[APIServeFlags.keyFile], keyFromEnv = arguments[APIServeFlags.keyFromEnv]
        let statePath = arguments[APIServeFlags.state]
        let files = invocation.io.files
        let bundled = try BundledFile(writeBundled, mode: bootstrap, files: files)
        try OutputPaths.checkRegular(writeBundled, flag: "--write-bundled", files)
        // The key file is read once, here: the key requests must carry and, for @remote, the
        // key its fetches send.
        let keyFileRead = try keyFile.map { path in
            (path: path, bytes: try files.readSettingFile(path, holding: "the API key", hint: "--key-file takes the path of a file that holds only the key"))
        }
        let requiredKey = try Self.requiredKey(keyFile: keyFileRead, fromEnvironment: keyFromEnv, environment: invocation.io.environment)
        let liveBootstrap = bootstrap == .live ? try SDKBootstrapFetch.settings(invocation) : nil
        let source: Source
        if remote {
            let environment = invocation.io.environment
            let key = try keyFileRead.map { try APIAccess.key(fileBytes: $0.bytes, path: $0.path) }
                ?? APIAccess.key(keyFile: nil, environment: environment, files: files)
            // The API's address and the HTTP client are checked (78) without a request.
            _ = try LiveBundleConnection(invocation, key: key, timeout: remoteTimeout, retries: remoteRetries)
            source = .remote(key: key, every: refetch)
        } else {
            source = .file(path: bundleName)
        }
        try RecordPath.check(arguments[APIServeFlags.record], invocation.io.files)
        let plan = APIServePlan(bundleName: bundleName, source: source, overrides: overrides, faults: faults, bootstrap: bootstrap, liveBootstrap: liveBootstrap,
                                bundled: bundled, requiredKey: requiredKey, statePath: statePath, record: arguments[APIServeFlags.record],
                                host: arguments[APIServeFlags.host], port: arguments[APIServeFlags.port], inspector: inspector, json: arguments[APIServeFlags.json])
        // A file is proven here, with the state and every --override, reading only. The live
        // bundle cannot be (its fetch is a request): the state is loaded here (a file that is
        // not one is refused before the fetch), and the run proves the rest before it binds.
        switch source {
        case .file: _ = try plan.served(invocation, warn: { _ in })
        case .remote: _ = try OverrideState.load(path: statePath, files: files)
        }
        return plan
    }

    /// The key every request must carry: the key file's bytes without one trailing newline,
    /// or APPDNA_SDK_KEY with `--key-from-env`; nil when any non-empty key will do.
    static func requiredKey(keyFile: (path: String, bytes: [UInt8])?, fromEnvironment: Bool, environment: [String: String]) throws -> [UInt8]? {
        if let (path, read) = keyFile {
            var bytes = read
            if bytes.last == 0x0A { bytes.removeLast() }
            if bytes.last == 0x0D { bytes.removeLast() }
            guard !bytes.isEmpty else { throw Failure(.configuration, "--key-file \(path) is empty") }
            return bytes
        }
        if fromEnvironment {
            guard let value = environment[APIAccess.keyVariable], !value.isEmpty else {
                throw Failure(.configuration, "--key-from-env: \(APIAccess.keyVariable) is not set")
            }
            return Array(value.utf8)
        }
        return nil
    }

    /// The bundle this plan names, with the overrides of `--state` and `--override`, read
    /// through the command's files; nothing is written until `keep`. For `@remote` the live
    /// bundle is fetched (with the key the plan read), at once and on every refetch.
    func served(_ invocation: Invocation, warn: @escaping @Sendable (String) -> Void) throws -> ServedBundle {
        let served: ServedBundle.Source
        switch source {
        case .file(let path):
            served = .file(path: path)
        case .remote(let key, let every):
            served = .remote(fetch: {
                try BundleArgument.liveBundle(over: LiveBundleConnection(invocation, key: key, timeout: Self.remoteTimeout, retries: Self.remoteRetries))
            }, every: every)
        }
        return try ServedBundle(source: served, name: bundleName, statePath: statePath, overrides: overrides, files: invocation.io.files,
                                clock: invocation.io.clock, words: { FlagWording.message(for: $0) }, warn: warn,
                                refetchFailed: { error, version in
                                    invocation.warn("--refetch: \(FlagWording.message(for: error)); still serving bundle_version \(version)")
                                })
    }
}
