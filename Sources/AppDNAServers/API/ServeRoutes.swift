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
    static let optionSet = RouteParameter<String>.pathText("id", maxBytes: 1024, "the option set's id")

    public static let table = RouteTable<ServeEndpoint>([
        Route(["GET"], Route.literals(AppDNAAPI.bundlePath), query: .notInterpreted, .bundle, "the config bundle, as the file holds it (CI and scripts; no SDK calls it)"),
        Route(["GET"], Route.literals(AppDNAAPI.bundleVersionPath), query: .notInterpreted, .version,
              "bundle_version, sdk_min_version, size_bytes (CI and scripts; no SDK calls it)"),
        Route(["POST"], Route.literals(AppDNAAPI.ingestPath), query: .notInterpreted, .events, "an event batch, raw DEFLATE"),
        Route(["GET"], Route.literals(SDKBootstrap.path), query: .notInterpreted, .bootstrap,
              "the SDK's bootstrap: live, passed on from the live API; local, 403"),
        Route(["POST"], Route.literals("/api/v1/sdk/identify"), query: .notInterpreted, .identify, "identify(): accepted"),
        Route(["POST"], Route.literals("/api/v1/ingest/identify"), query: .notInterpreted, .ingestIdentify, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/feedback/responses"), query: .notInterpreted, .feedback, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/billing/verify"), query: .notInterpreted, .billingVerify, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/billing/restore"), query: .notInterpreted, .billingRestore, "an SDK call without config: 404"),
        Route(["GET", "POST"], Route.literals("/api/v1/billing/entitlements"), query: .notInterpreted, .billingEntitlements, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/billing/offers/sign"), query: .notInterpreted, .billingOffersSign, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/push/token"), query: .notInterpreted, .pushToken, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/push/delivered"), query: .notInterpreted, .pushDelivered, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/push/tapped"), query: .notInterpreted, .pushTapped, "an SDK call without config: 404"),
        Route(["POST"], Route.literals("/api/v1/sdk/geocode/autocomplete"), query: .notInterpreted, .geocode, "an SDK call without config: 404"),
        Route(["GET"], Route.literals("/api/v1/sdk/option-sets") + [.parameter(optionSet.spec)], query: .notInterpreted, .optionSets,
              "an SDK call without config (iOS 1.0.82): 404"),
    ])
}
