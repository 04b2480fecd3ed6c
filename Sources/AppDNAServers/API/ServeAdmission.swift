import AppDNACore
import AppDNANet

/// `api serve`'s decision at a request's head (`HTTPServer.Admission`): the route, the
/// method, the SDK key (the rows' guard) and the body limit, before a byte of a batch is read;
/// a 60 MiB batch with a wrong key is answered 401 from its head. A refused request is
/// reported and inspected as any other (`APIServer.admit`).
struct ServeAdmission: Sendable {
    let guards: RouteGuards
    /// The key every request must carry; nil when any non-empty key will do.
    let requiredKey: [UInt8]?
    /// The server's own body limit (the largest batch).
    let serverLimit: Int

    init(requiredKey: [UInt8]?, serverLimit: Int) {
        self.requiredKey = requiredKey
        guards = RouteGuards(sdkAPIKey: { head in Self.keyRefusal(head, requiredKey: requiredKey)?.message })
        self.serverLimit = serverLimit
    }

    /// What is wrong with the head's key: typed, for the outcome (nil: it may pass).
    enum KeyRefusal {
        case repeated, missing, wrong

        var message: String {
            switch self {
            case .repeated: return "\(RouteGuard.sdkAPIKey.header!) is given more than once"
            case .missing: return ServeRefusal.missingKeyWords
            case .wrong: return ServeRefusal.wrongKeyWords
            }
        }
    }

    static func keyRefusal(_ head: RawHTTPRequest.Head, requiredKey: [UInt8]?) -> KeyRefusal? {
        let header = RouteGuard.sdkAPIKey.header!
        if RouteGuards.isRepeated(header, in: head) { return .repeated }
        let key = head.value(of: header).map { Array($0.utf8) } ?? []
        if key.isEmpty { return .missing }
        if let requiredKey, key != requiredKey { return .wrong }
        return nil
    }

    /// The endpoint a head asks for and its body limit, or why it is refused (and the row it
    /// concerns, nil when none matched).
    func decide(_ head: RawHTTPRequest.Head) -> Result<(endpoint: ServeEndpoint, maxBodyBytes: Int), Refused> {
        switch ServeRoutes.table.decide(head, guards: guards, serverLimit: serverLimit) {
        case .admit(let match, let maxBodyBytes):
            return .success((match.endpoint, maxBodyBytes))
        case .refuse(let refusal, let route):
            if route != nil, refusal.status == RouteGuard.sdkAPIKey.refusalStatus {
                switch Self.keyRefusal(head, requiredKey: requiredKey) {
                case .missing?: return .failure(Refused(endpoint: route?.endpoint, refusal: .missingKey))
                case .wrong?: return .failure(Refused(endpoint: route?.endpoint, refusal: .wrongKey))
                case .repeated?, nil: break
                }
            }
            return .failure(Refused(endpoint: route?.endpoint, refusal: .route(refusal)))
        }
    }

    /// A request refused at its head: the row it asked for (nil: none) and why.
    struct Refused: Error, CustomStringConvertible {
        let endpoint: ServeEndpoint?
        let refusal: ServeRefusal

        /// Never shown to a user (the outcome words the refusal): what a log of the error says.
        var description: String { "refused at the head with \(refusal.status)" }
    }
}
