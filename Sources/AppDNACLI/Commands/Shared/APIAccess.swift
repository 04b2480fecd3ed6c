import AppDNACore
import AppDNANet

/// What every command that calls the AppDNA API shares: the SDK key (APPDNA_SDK_KEY or
/// --key-file, never a flag value), the checked base URL (APPDNA_API_URL) and an HTTP client
/// with the retry policy and `--verbose` retry notes. `bundle fetch`, `bundle diff @remote`
/// and `queue replay` all come through here.
enum APIAccess {
    static let keyVariable = "APPDNA_SDK_KEY"
    static let urlVariable = "APPDNA_API_URL"
    static let defaultAPIURL = "https://api.appdna.ai"

    /// The key from --key-file or APPDNA_SDK_KEY (78 when missing or malformed), for a plan:
    /// the key file named in `arguments`, read through the command's files.
    static func key(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> APIKey {
        try key(keyFile: arguments[APIFlags.keyFile], environment: invocation.io.environment, files: invocation.io.files)
    }

    /// The key from `keyFile` (the --key-file a plan holds), read through `files` (the
    /// command's `FileAccess`), or APPDNA_SDK_KEY.
    static func key(keyFile: String?, environment: [String: String], files: any FileAccess) throws -> APIKey {
        if let path = keyFile {
            let bytes = try files.readSettingFile(path, holding: "the API key", hint: "--key-file takes the path of a file that holds only the key")
            return try key(fileBytes: bytes, path: path)
        }
        guard let value = environment[keyVariable], !value.isEmpty else {
            throw Failure(.configuration, "no API key: set \(keyVariable) or pass --key-file PATH",
                          hint: "the SDK key (adn_live_… or adn_test_…) is in the AppDNA console; in CI, store it as a secret")
        }
        return try APIKey(value, source: keyVariable)
    }

    /// The key in the bytes of the key file `path`, read once by a plan that needs them twice
    /// (`api serve`: the key requests must carry, and the one `@remote` sends).
    static func key(fileBytes: [UInt8], path: String) throws -> APIKey {
        try APIKey(String(decoding: fileBytes, as: UTF8.self), source: "--key-file \(path)")
    }

    /// APPDNA_API_URL without a trailing slash, checked (78 for plain http to a non-loopback host).
    static func baseURL(_ environment: [String: String]) throws -> String {
        var text = environment[urlVariable].flatMap { $0.isEmpty ? nil : $0 } ?? defaultAPIURL
        while text.hasSuffix("/") { text.removeLast() }
        _ = try HTTPURL.checkedForAPI(text, variable: urlVariable)
        return text
    }

    /// An HTTP client over the command's transport and clock (`CommandIO`) with `retries`
    /// retries: in production the system libcurl, trusting the CA certificates of
    /// CURL_CA_BUNDLE / SSL_CERT_FILE / SSL_CERT_DIR when set (78 when they name no
    /// certificates), and the system clock. Each retry is noted with `--verbose`, through `say` when given
    /// (replay's progress bar must step aside for it).
    /// `maxResponseBytes`: answers larger than this, decoded, fail (with a hint to raise
    /// --max-size); the transport's own limit otherwise.
    static func client(_ invocation: Invocation, retries: Int, maxResponseBytes: Int? = nil,
                       say: (@Sendable (String) -> Void)? = nil) throws -> HTTPClient {
        let say = say ?? { line in invocation.detail(line) }
        func curl() throws -> CurlTransport {
            var curl = CurlTransport(userAgent: "appdna/\(CommandTable.appdna.version)", trust: try TLSTrust(environment: invocation.io.environment))
            if let maxResponseBytes {
                curl.maxBodyBytes = maxResponseBytes
                curl.maxBodyRemedy = .largerResponseLimit
            }
            return curl
        }
        return HTTPClient(
            transport: try invocation.io.transport ?? curl(),
            policy: RetryPolicy(maxRetries: retries),
            clock: invocation.io.clock,
            onRetry: { notice in
                say("attempt \(notice.attempt) failed (\(notice.reason)); retrying in \(NumberText.seconds(notice.delay))")
            })
    }
}
