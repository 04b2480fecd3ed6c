import AppDNANet

/// The endpoints `api serve` answers: the three an SDK calls, as the platform documents them.
/// Their query strings are the SDK's, not read here (the platform's API reads none either).
/// Every row takes the SDK's key (`x-api-key`: 401), checked at the head, before a batch's
/// bytes are read.
enum ServeEndpoint: String, Sendable, CaseIterable {
    case bundle, version, events
}

enum ServeRoutes {
    static let table = RouteTable<ServeEndpoint>([
        Route(["GET"], Route.literals(AppDNAAPI.bundlePath), query: .notInterpreted, guard: .sdkAPIKey, body: .empty, .bundle,
              "the config bundle, as the file holds it",
              answers: [RouteAnswer(200, "the bundle", .json("api-sdk-bundle.schema.json")), unavailable] + faults),
        Route(["GET"], Route.literals(AppDNAAPI.bundleVersionPath), query: .notInterpreted, guard: .sdkAPIKey, body: .empty, .version,
              "bundle_version, sdk_min_version, size_bytes",
              answers: [RouteAnswer(200, "the bundle's version", .json("api-sdk-version.schema.json")), unavailable] + faults),
        Route(["POST"], Route.literals(AppDNAAPI.ingestPath), query: .notInterpreted, guard: .sdkAPIKey,
              body: .upTo(IngestEndpoint.maxBodyBytes, .json("api-ingest-batch.schema.json")), .events,
              "an event batch: {\"batch\": [events]}, raw DEFLATE with Content-Encoding: deflate, or plain JSON",
              answers: [RouteAnswer(200, "accepted and duplicate events", .json("api-ingest.schema.json")),
                        RouteAnswer(400, "not a batch of valid events", error),
                        RouteAnswer(413, "the body inflates to more than 64 MiB, or is over --status-413-over", error),
                        RouteAnswer(415, "a Content-Encoding the SDK does not send", error),
                        RouteAnswer(500, "the event could not be recorded", error)] + faults),
    ])

    /// `{"error": MESSAGE}`: how every endpoint refuses.
    static let error = RouteContent.json("http-error.schema.json")
    static let unavailable = RouteAnswer(500, "the bundle file cannot be served", error)
    /// What `--fail STATUS` injects (any status; these are the usual ones).
    static let faults = [RouteAnswer(503, "injected by --fail (with Retry-After)", error)]
}
