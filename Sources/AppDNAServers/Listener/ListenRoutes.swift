import AppDNANet

/// What `webhook listen` answers: a delivery is a POST to whatever path the dashboard's
/// endpoint URL has (its path and query are the sender's, recorded as they came and never
/// read here). Any other method is 405 with `Allow: POST`.
public enum ListenEndpoint: Sendable, CaseIterable {
    case delivery
}

public enum ListenRoutes {
    public static let table = RouteTable<ListenEndpoint>([
        Route(["POST"], [.rest], query: .notInterpreted, .delivery, "a webhook delivery, checked and forwarded"),
    ])
}
