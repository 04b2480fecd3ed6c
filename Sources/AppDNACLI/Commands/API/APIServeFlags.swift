import AppDNACore
import AppDNAServers

/// The flags of `appdna api serve`.
enum APIServeFlags {
    static let bundle = Flag.optional("bundle", value: "FILE|@remote", "Serve this bundle file (either shape; read again whenever it changes), or @remote: the live bundle",
                                      details: "@remote fetches the live bundle as bundle fetch does, with APPDNA_SDK_KEY (or --key-file) and APPDNA_API_URL, each fetch bounded by 60 s with 3 retries; again on POST /api/bundle/refetch of the inspector, and with --refetch.",
                                      completion: .file, .path)
    static let override = Flag.repeated("override", value: "KIND:KEY=VALUE",
                                        "Force a \(BundleOverride.Kind.listed(BundleOverride.Kind.allCases.map(\.forces))) on every device: \(BundleOverride.Kind.syntaxes)",
                                        details: "The served bundle is rewritten so that devices compute the forced answer themselves: "
                                            + BundleOverride.Kind.allCases.map { "\($0.rawValue), \($0.effect)" }.joined(separator: "; ")
                                            + ". Its bundle_version rises with every change. Kept in the --state file with those set at run time (appdna api override).",
                                        completion: .choices(BundleOverride.Kind.allCases.map { $0.rawValue + ":" }), .text)
    static let bootstrap = Flag.defaulted("bootstrap", value: "MODE", "What a device pointed here gets from GET /api/v1/sdk/bootstrap: local (403: it stays on its cache and bundled appdna-config.json) or live (the live API's answer, with APPDNA_SDK_KEY)",
                                          details: "local: the SDK stops retrying for the session on 403 (docs/device-variants.md) and runs on its cache, else its bundled appdna-config.json, which --write-bundled keeps equal to the served bundle. live: the device reads its real config from Firestore; the answer is passed on only when iOS 1.0.70 and Android 1.0.42 decode it (502 otherwise). Shown at start and on the inspector's page.",
                                          default: "local", .choice(BootstrapMode.self))
    static let writeBundled = Flag.optional("write-bundled", value: "FILE", "With --bootstrap local: write the served bundle (overrides and all) to the app's bundled appdna-config.json, atomically, at start and on every change, when it passes bundle validate",
                                            completion: .file, .path)
    static let state = Flag.defaulted("state", value: "FILE", "Keep the overrides in FILE across restarts (JSON, at most 1 MiB, replaced atomically; written at the first change, and with --bundle @remote at start: the version served is remembered)",
                                      details: "Locked while the server runs (FILE.lock, naming its pid and port): a second api serve on the same FILE is refused (69). Temporary files a crash left beside it are removed at start.",
                                      completion: .file, default: "appdna-overrides.json", .path)
    static let refetch = Flag.optional("refetch", value: "DURATION", "With --bundle @remote: fetch the live bundle again when a request arrives this long after the last fetch",
                                       .duration(1...86_400))
    static let port = Flag.defaulted("port", value: "N", "The port to listen on (0 picks a free one, printed on stderr)", default: "8765", .integer(0...65535))
    static let host = Flag.defaulted("host", value: "ADDR", "The IPv4 or IPv6 address to listen on (0.0.0.0 or :: for every interface)", default: "127.0.0.1", .text)
    static let keyFile = Flag.optional(
        "key-file", value: "PATH", "Accept only the key in this file (default: any non-empty x-api-key)",
        details: "The file holds only the key; one trailing newline is removed. With --key-from-env the key is APPDNA_SDK_KEY instead. The key is never a flag value.",
        completion: .file, .path)
    static let keyFromEnv = Flag.switch("key-from-env", "Accept only the key in APPDNA_SDK_KEY")
    static let record = Flag.optional("record", value: "FILE", "Append every event received to FILE, one JSON object per line (NDJSON), exactly as sent",
                                      details: "A new file is created with mode 0600 (an existing one keeps its mode); a symbolic link, a device, a FIFO or anything else that is not a regular file is refused (status 73) before listening.",
                                      completion: .file, .path)
    static let fail = Flag.optional("fail", value: "STATUS[:N]", "Answer the first N requests (every request without :N) with STATUS, e.g. 503:3", .text)
    static let failAfter = Flag.defaulted("fail-after", value: "N", "Let N requests through before --fail starts (a service that goes down mid-run)",
                                          default: "0", .integer(0...Int.max))
    static let latency = Flag.defaulted("latency", value: "DURATION", "Wait this long before each answer", default: "0", .duration(0...600))
    static let retryAfter = Flag.optional("retry-after", value: "DURATION", "Send Retry-After (whole seconds) with the --fail answers", .duration(0...86_400))
    static let status413Over = Flag.optional("status-413-over", value: "SIZE", "Answer 413 to event batches whose body is larger than SIZE (as sent, compressed)",
                                             .size(0...(1 << 30)))
    static let inspect = InspectorFlags.port("requests")
    static let inspectKeep = InspectorFlags.keep("requests")
    static let inspectMaxBytes = InspectorFlags.maxBytes("requests")
    static let json = OutputFlags.json("Print one JSON object per request (NDJSON) instead of a text line")

    static let all: [FlagSpec] = [bundle.spec, override.spec, bootstrap.spec, writeBundled.spec, state.spec, refetch.spec, port.spec, host.spec, keyFile.spec, keyFromEnv.spec, record.spec, fail.spec, failAfter.spec, latency.spec,
                                  retryAfter.spec, status413Over.spec, inspect.spec, inspectKeep.spec, inspectMaxBytes.spec, json.spec]
}
