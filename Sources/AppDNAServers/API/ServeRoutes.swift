import AppDNANet

/// The endpoints `api serve` answers: the three an SDK calls, as the platform documents them.
/// Their query strings are the SDK's, not read here (the platform's API reads none either).
public enum ServeEndpoint: String, Sendable, CaseIterable {
    case bundle, version, events
}

public enum ServeRoutes {
    public static let table = RouteTable<ServeEndpoint>([
        Route(["GET"], Route.literals(AppDNAAPI.bundlePath), query: .notInterpreted, .bundle, "the config bundle, as the file holds it"),
        Route(["GET"], Route.literals(AppDNAAPI.bundleVersionPath), query: .notInterpreted, .version,
              "bundle_version, sdk_min_version, size_bytes"),
        Route(["POST"], Route.literals(AppDNAAPI.ingestPath), query: .notInterpreted, .events, "an event batch, raw DEFLATE"),
    ])
}
