import AppDNANet

/// What `webhook listen` answers: a delivery is a POST to whatever path the dashboard's
/// endpoint URL has (its path and query are the sender's, recorded as they came and never
/// read here). Any other method is 405 with `Allow: POST`. The delivery's own signature is
/// its check (a 401 the handler words), so the row's guard is open; its body is the largest the listener takes.
public enum ListenEndpoint: Sendable, CaseIterable {
    case delivery
}

public enum ListenRoutes {
    public static let table = RouteTable<ListenEndpoint>([
        Route(["POST"], [.rest], query: .notInterpreted, guard: .open, body: .serverLimit(RouteContent("application/json", schema: nil)),
              .delivery, "a webhook delivery, checked and forwarded",
              answers: [RouteAnswer(200, "a valid delivery (or, when forwarding, the handler's answer)"),
                        RouteAnswer(401, "the signature is not valid", RouteContent("text/plain", schema: nil)),
                        RouteAnswer(500, "the delivery could not be recorded", RouteContent("text/plain", schema: nil)),
                        RouteAnswer(502, "the handler cannot be reached (when forwarding)", RouteContent("text/plain", schema: nil)),
                        RouteAnswer(503, "forwards under way hold the byte budget", RouteContent("text/plain", schema: nil)),
                        RouteAnswer(504, "the handler did not answer in time", RouteContent("text/plain", schema: nil))]),
    ])
}
