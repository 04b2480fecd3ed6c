import AppDNACore
import AppDNANet

/// `appdna bundle fetch`: download the config bundle, check it, and write it atomically in the
/// shape the SDK loads. Replaces `curl -s -H "x-api-key: …" …/config-bundle -o appdna-config.json`.
enum BundleFetchCommand {
    static let flags = BundleFetchFlags.all

    static let discussion = """
    Downloads the config bundle (GET /api/v1/sdk/config-bundle with the x-api-key header) from \
    APPDNA_API_URL (default https://api.appdna.ai), checks it, and writes it in the shape the \
    SDK loads: a content wrapper is unwrapped, onboarding_flows becomes onboarding and \
    in_app_messages becomes messages; keys keep the server's order and the output is 2-space \
    JSON with a final newline, so the same bundle always gives the same bytes. --raw writes the \
    response as received.
    When the output file exists, GET /api/v1/sdk/config-bundle/version is asked first and \
    nothing is downloaded or written when bundle_version is unchanged (--force downloads \
    anyway).
    Nothing is written unless the bundle passes the rules of appdna bundle validate (its \
    warnings are shown but do not stop the fetch): a bundle with errors is not written \
    (status 1) unless --no-validate. The file is replaced \
    atomically (temporary file in the same directory, fsync, rename): on any failure the old \
    file is left byte for byte as it was. A symbolic link is followed (its target is replaced, \
    or created when the link dangles into an existing directory; the link stays); a link into \
    a missing directory is an error (73). A FIFO or device is written to as it is, without the \
    version check, and never waited on past --timeout.
    The key comes from APPDNA_SDK_KEY or --key-file, never from a flag value, and is shown \
    only masked (adn_live_…3f9a). Plain http:// URLs are refused except for loopback hosts. \
    Proxies: https_proxy, http_proxy and no_proxy, as for curl. CA certificates: \
    CURL_CA_BUNDLE (else SSL_CERT_FILE) names a PEM file and SSL_CERT_DIR a directory to trust \
    instead of the system's, as for the curl command; one that holds no certificate is an \
    error (78).
    --max-size bounds the answer as decoded (a gzip-compressed answer counts at its inflated \
    size): a larger one is not read further and fails (69).
    --timeout bounds the whole command, retries included; each attempt also has a 10 s \
    connect timeout. --retries N allows N retries in the whole command, shared by the \
    version check and the download; a first attempt is never refused, so a healthy server \
    always gets both, and a failing server gets at most N + 1 requests. Back-off: 1 s, 2 s, \
    4 s and doubling, jittered, at most 30 s; Retry-After is honoured up to 120 s. 401 and 403 are never \
    retried. When CONFIGURATION is Release (an Xcode \
    build phase) and the key is a sandbox (adn_test_) key, a warning is printed in Xcode's \
    format; --require-live makes it an error.
    --check asks only the version endpoint and compares: 0 and "up to date (bundle_version \
    42)" when the file has the live bundle_version, 1 and "behind: file bundle_version 41, \
    live bundle_version 42" otherwise (also when \
    the file is missing or invalid); nothing is downloaded or written.
    --keep-on-failure: when the API cannot be reached (network error, 5xx, timeout) and the \
    file is a valid bundle, it is kept, one warning in the CI's format names its \
    bundle_version and the failure (Xcode's warning: line, or ::warning:: when GITHUB_ACTIONS \
    is set), and the status is 0; with no valid file, the failure's hint says there was nothing \
    to keep. 401/403 and an invalid bundle still fail. Without libcurl \
    (Debian: libcurl4) fetch fails with 69 and a line that says so.
    Exit status: 0 written or up to date, 1 bundle invalid or older than --min-version, 69 \
    service unavailable (network error, 5xx after retries, 404, not JSON), 73 cannot create \
    the output file, 75 timeout or 429/503 after retries, 77 key rejected (401) or refused by \
    the key or an access rule (403), 78 no key, malformed key, --require-live with a test key, \
    a plain http API URL, or a CA variable without certificates.
    """

    static let examples = [
        ExampleSpec("APPDNA_SDK_KEY=adn_live_… appdna bundle fetch -o MyApp/Resources/appdna-config.json",
                    "Fetch the bundle into the app's resources (skipped when up to date)."),
        ExampleSpec("appdna bundle fetch --key-file ~/.appdna-key --require-live --min-version 42 -o appdna-config.json",
                    "In a release pipeline: production key only, and never an older bundle."),
        ExampleSpec("appdna bundle fetch --keep-on-failure -o MyApp/Resources/appdna-config.json",
                    "In CI: an unreachable API keeps the last good bundle, with a warning."),
        ExampleSpec("appdna bundle fetch --check -o MyApp/Resources/appdna-config.json",
                    "Before a release: exit 1 unless the embedded bundle is the live one."),
        ExampleSpec("appdna bundle fetch -o - --raw | jq .bundle_version", "Print the live bundle as the API returns it."),
    ]

    typealias Plan = BundleFetchPlan

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        try BundleFetchPlan.make(arguments)
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        switch plan.mode {
        case .fetch(let output, let download): return try fetch(invocation, plan, output: output, download)
        case .fetchKeepingOnFailure(let output, let download):
            return try KeepOnFailure.run(invocation, output: output, json: plan.json) { try fetch(invocation, plan, output: output, download) }
        case .check(let output):
            let connection = try connect(invocation, plan, maxResponseBytes: LiveBundleConnection.defaultMaxResponseBytes)
            return try BundleFetchCheck.run(invocation, plan, connection: connection, output: output)
        }
    }

    /// The checked connection (78 on any problem), refusing a sandbox key with --require-live
    /// and warning about one in a Release build: nothing touches the network before it is right.
    static func connect(_ invocation: Invocation, _ plan: Plan, maxResponseBytes: Int) throws -> LiveBundleConnection {
        let connection = try LiveBundleConnection(invocation, api: plan.api, maxResponseBytes: maxResponseBytes)
        let key = connection.key
        let environment = invocation.io.environment
        if key.environment == .test {
            if plan.requireLive {
                throw Failure(.configuration, "--require-live: the key \(key.masked) is a sandbox (adn_test_) key",
                              hint: "use the production key (adn_live_…) for builds that ship")
            }
            if environment["CONFIGURATION"] == "Release" {
                // Xcode lists lines of this form in its issue navigator (GitHub Actions: an annotation).
                invocation.buildWarning("appdna bundle fetch: a sandbox key (\(key.masked)) is used in a Release build: the app will ship the sandbox bundle")
            }
        }
        return connection
    }

    static func fetch(_ invocation: Invocation, _ plan: Plan, output: String, _ download: BundleFetchMode.Download) throws -> ExitStatus {
        let minVersion = download.minVersion
        let raw = download.raw, validate = download.validate
        let connection = try connect(invocation, plan, maxResponseBytes: download.maxSize)
        // Before any request: a download that cannot be written is not worth making.
        if output != "-" { try invocation.io.files.checkWritable(path: output) }
        let base = connection.base

        // 1. Up to date? Only when the file exists, and never fatal except for a rejected key.
        // 1. Up to date? Only when the file exists, and never fatal except for a rejected key
        // (the outcomes, and which failures are final, are Net's `BundleFetchSession`).
        if output != "-" && !download.force, let local = localVersion(output, files: invocation.io.files) {
            switch try connection.session.versionForUpdate() {
            case .version(let remote):
                if let minVersion, remote < Int64(minVersion) {
                    return BundleFetchReport.negative(invocation, "the server's bundle_version \(remote) is older than --min-version \(minVersion); \(output) not changed", about: output)
                }
                if remote == local {
                    invocation.note("\(output): up to date (bundle_version \(local)); not downloaded")
                    BundleFetchReport.json(invocation, plan.json, ["path": .string(output), "written": false, "up_to_date": true, "bundle_version": .integer(local)])
                    return .success
                }
                invocation.detail("\(output) has bundle_version \(local), the server \(remote): downloading")
            case .unusable(let statusText):
                invocation.detail("version check: \(statusText); downloading the bundle")
            case .failed(let error):
                invocation.detail("version check failed (\(error.message)); downloading the bundle")
            }
        }

        // 2. Download.
        let url = base + AppDNAAPI.bundlePath
        let response = try connection.downloadBundle()
        let body = response.body

        // 3. Parse and check before anything is written.
        var document: JSONDocument? = nil
        do {
            document = try JSONDocument(bytes: body, options: JSONParseOptions(duplicateKeys: .record))
        } catch {
            if !(raw && !validate) {
                let type = response.header("Content-Type").map { " (Content-Type: \($0.prefix(60)))" } ?? ""
                let looksHTML = body.prefix(512).contains(UInt8(ascii: "<"))
                throw Failure(.unavailable, "GET \(url): the response is not JSON\(type): \(error.message); \(output) not changed",
                              hint: looksHTML ? "an HTML page usually comes from a proxy, a captive portal or a wrong APPDNA_API_URL" : nil)
            }
        }
        if validate, let document {
            // The same rules as `bundle validate`. Warnings are shown but do not stop a fetch; the
            // two about the API's shape are moot, because fetch writes the SDK's shape.
            let findings = BundleValidator.validate(document: document)
            let errors = findings.filter { $0.severity == .error }
            // FILE:LINE:COL, as a compiler says it; in an annotation, whose `file=` must be a file
            // of the repository, the response is named in words (the -o file is another shape).
            let annotated = GitHubWorkflowText.isActive(invocation.io.environment)
            func describe(_ finding: BundleFinding) -> String {
                let path = finding.pointer.description.isEmpty ? "" : "\(finding.pointer): "
                let place = annotated ? "the fetched bundle, line \(finding.line), column \(finding.column): " : "response:\(finding.line):\(finding.column): "
                return place + "\(path)\(finding.message) [\(finding.rule.rawValue)]"
            }
            for finding in findings.prefix(20) where finding.severity == .warning && finding.rule != .contentWrapper && finding.rule != .apiSectionName {
                invocation.warn(describe(finding))
            }
            if !errors.isEmpty {
                for finding in errors.prefix(20) {
                    invocation.error("bundle error: " + describe(finding))
                }
                if errors.count > 20 { invocation.error("… and \(errors.count - 20) more") }
                return BundleFetchReport.negative(invocation, "the bundle from \(HTTPURL(url)?.hostAndPort ?? url) is invalid (\(errors.count) error\(errors.count == 1 ? "" : "s")); \(output) not changed",
                              hint: "--no-validate writes it anyway")
            }
        }
        let counts = document.map { BundleFileShape.counts($0.root) }
        if let minVersion, let version = counts?.bundleVersion, version < Int64(minVersion) {
            return BundleFetchReport.negative(invocation, "the server's bundle_version \(version) is older than --min-version \(minVersion); \(output) not changed", about: output)
        }

        // 4. Write.
        let bytes: [UInt8]
        if raw || document == nil || document!.root.kind != .object {
            bytes = body
        } else {
            bytes = BundleFileShape.sdkFileBytes(document!.root)
        }
        if output == "-" {
            invocation.stdout.write(bytes)
            invocation.stdout.flush()
        } else {
            try invocation.io.files.replace(path: output, with: bytes, timeout: connection.deadline.remaining)
        }

        var summary = "\(output == "-" ? "stdout" : output): bundle_version \(counts?.bundleVersion.map(String.init) ?? "?"), \(NumberText.decimalSize(bytes.count))"
        if let counts {
            summary += ", \(counts.experiments) experiment\(counts.experiments == 1 ? "" : "s"), \(counts.flags) flag\(counts.flags == 1 ? "" : "s")"
        }
        summary += raw ? " (raw response)" : " (SDK file shape)"
        invocation.note(summary)
        BundleFetchReport.json(invocation, plan.json, ["path": .string(output), "written": true, "up_to_date": false,
                            "bundle_version": counts?.bundleVersion.map { .integer($0) } ?? .null, "bytes": .integer(bytes.count),
                            "experiments": counts.map { .integer($0.experiments) } ?? .null, "flags": counts.map { .integer($0.flags) } ?? .null,
                            "shape": .string(raw ? "raw" : "sdk")])
        return .success
    }

    /// The bundle_version of the existing output file, when it is readable JSON with one. Only
    /// a regular file is read: a FIFO or a device (`-o /dev/stdout`) is an output, and reading
    /// it would wait for a writer that never comes.
    static func localVersion(_ path: String, files: any FileAccess) -> Int64? {
        guard let bytes = files.regularFileBytes(path: path),
              let document = try? JSONDocument(bytes: bytes, options: JSONParseOptions(duplicateKeys: .record)) else { return nil }
        return document.root["bundle_version"]?.int64
    }
}
