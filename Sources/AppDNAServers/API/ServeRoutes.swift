import AppDNACore
import AppDNANet

/// The endpoints `api serve` answers: the SDK's own calls (platform facts §7: bootstrap,
/// identify, ingest, and the calls that carry no config, each logged by its name) and the two
/// config-bundle endpoints CI and scripts use (`bundle fetch`; no SDK calls them). Their query
/// strings are the SDK's, not read here (the platform's API reads none either).
public enum ServeEndpoint: String, Sendable, CaseIterable {
    case bundle, version, events
    case bootstrap
    case identify = "sdk/identify"
    case ingestIdentify = "ingest/identify"
    case feedback = "feedback/responses"
    case billingVerify = "billing/verify"
    case billingRestore = "billing/restore"
    case billingEntitlements = "billing/entitlements"
    case billingOffersSign = "billing/offers/sign"
    case pushToken = "push/token"
    case pushDelivered = "push/delivered"
    case pushTapped = "push/tapped"
    case geocode = "geocode/autocomplete"
    case optionSets = "option-sets"
}

public enum ServeRoutes {
    static let optionSet = RouteParameter<String>.pathText("id", maxCharacters: 256, "the option set's id")

    public static let table = RouteTable<ServeEndpoint>([
        Route(["GET"], Route.literals(AppDNAAPI.bundlePath), query: .notInterpreted, guard: .sdkAPIKey, body: .empty, .bundle,
              "the config bundle, as the file holds it (CI and scripts; no SDK calls it)",
              answers: [RouteAnswer(200, "the bundle", .json("api-sdk-bundle.schema.json")), unavailable] + faults),
        Route(["GET"], Route.literals(AppDNAAPI.bundleVersionPath), query: .notInterpreted, guard: .sdkAPIKey, body: .empty, .version,
              "bundle_version, sdk_min_version, size_bytes (CI and scripts; no SDK calls it)",
              answers: [RouteAnswer(200, "the bundle's version", .json("api-sdk-version.schema.json")), unavailable] + faults),
        Route(["POST"], Route.literals(AppDNAAPI.ingestPath), query: .notInterpreted, guard: .sdkAPIKey,
              body: .upTo(IngestEndpoint.maxBodyBytes, .json("api-ingest-batch.schema.json")), .events,
              "an event batch: {\"batch\": [events]}, raw DEFLATE with Content-Encoding: deflate, or plain JSON",
              answers: [RouteAnswer(200, "accepted and duplicate events", .json("api-ingest.schema.json")),
                        RouteAnswer(400, "not a batch of valid events", error),
                        RouteAnswer(413, "the body inflates to more than 64 MiB, needs more than the server holds for all requests, or is over the injected limit", error),
                        RouteAnswer(415, "a Content-Encoding the SDK does not send", error),
                        RouteAnswer(500, "the event could not be recorded", error),
                        RouteAnswer(503, "the server holds its byte budget for other requests (with Retry-After)", error)] + faults),
        Route(["GET"], Route.literals(SDKBootstrap.path), query: .notInterpreted, guard: .sdkAPIKey, body: .empty, .bootstrap,
              "the SDK's bootstrap: live, passed on from the live API; local, 403",
              answers: [RouteAnswer(200, "live mode: the live bootstrap, as iOS 1.0.70 and Android 1.0.42 decode it", .json("sdk-bootstrap.schema.json")),
                        RouteAnswer(403, "local mode: no bootstrap (the SDK stops retrying for the session)", error),
                        RouteAnswer(502, "live mode: the live bootstrap failed or would not decode", error)] + faults),
        Route(["POST"], Route.literals("/api/v1/sdk/identify"), query: .notInterpreted, guard: .sdkAPIKey, body: .upTo(sdkCallBytes, .json("api-sdk-identify.schema.json")), .identify,
              "identify(): accepted",
              answers: [RouteAnswer(200, "accepted: {}", RouteContent("application/json", schema: nil)),
                        RouteAnswer(400, "the body is not a JSON object", error)] + faults),
        notServed(["POST"], "/api/v1/ingest/identify", .ingestIdentify),
        notServed(["POST"], "/api/v1/feedback/responses", .feedback),
        notServed(["POST"], "/api/v1/billing/verify", .billingVerify),
        notServed(["POST"], "/api/v1/billing/restore", .billingRestore),
        notServed(["GET", "POST"], "/api/v1/billing/entitlements", .billingEntitlements),
        notServed(["POST"], "/api/v1/billing/offers/sign", .billingOffersSign),
        notServed(["POST"], "/api/v1/push/token", .pushToken),
        notServed(["POST"], "/api/v1/push/delivered", .pushDelivered),
        notServed(["POST"], "/api/v1/push/tapped", .pushTapped),
        notServed(["POST"], "/api/v1/sdk/geocode/autocomplete", .geocode),
        Route(["GET"], Route.literals("/api/v1/sdk/option-sets") + [.parameter(optionSet.spec)], query: .notInterpreted, guard: .sdkAPIKey, body: .empty,
              .optionSets, "an SDK call without config (iOS 1.0.82): 404",
              answers: [RouteAnswer(404, "not served here: no config travels on it", error)] + faults),
    ])

    /// `{"error": MESSAGE}`: how every endpoint refuses.
    static let error = RouteContent.json("http-error.schema.json")
    static let unavailable = RouteAnswer(500, "the bundle file cannot be served", error)
    /// What `--fail STATUS` injects (any status; these are the usual ones).
    static let faults = [RouteAnswer(503, "an injected failure (with Retry-After)", error)]
    /// The SDK's calls other than ingest carry small JSON bodies; a larger one is refused at the head (413).
    static let sdkCallBytes = 1 << 20
    static let anyJSON = RouteContent("application/json", schema: nil, required: false)

    /// A call the SDK makes that carries no config (platform facts §7): logged by its name, 404.
    static func notServed(_ methods: [String], _ path: String, _ endpoint: ServeEndpoint) -> Route<ServeEndpoint> {
        Route(methods, Route.literals(path), query: .notInterpreted, guard: .sdkAPIKey,
              body: methods == ["GET"] ? .empty : .upTo(sdkCallBytes, anyJSON), endpoint, "an SDK call without config: 404",
              answers: [RouteAnswer(404, "not served here: no config travels on it", error)] + faults)
    }
}
