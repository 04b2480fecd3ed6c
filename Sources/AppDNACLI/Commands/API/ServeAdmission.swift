import AppDNACore
import AppDNANet

/// `api serve`'s decision at a request's head (`HTTPServer.Admission`): the route, the
/// method, the SDK key (the rows' guard) and the body limit, before a byte of a batch is read;
/// a 60 MiB batch with a wrong key is answered 401 from its head. A refused request is logged
/// and inspected as any other.
struct ServeAdmission: Sendable {
    let guards: RouteGuards
    /// The server's own body limit (the largest batch).
    let serverLimit: Int

    /// `requiredKey`: the key every request must carry; nil when any non-empty key will do.
    init(requiredKey: [UInt8]?, serverLimit: Int) {
        guards = RouteGuards(sdkAPIKey: { head in
            let header = RouteGuard.sdkAPIKey.header!
            if RouteGuards.isRepeated(header, in: head) { return "\(header) is given more than once" }
            let key = head.value(of: header).map { Array($0.utf8) } ?? []
            if key.isEmpty { return "missing x-api-key" }
            if let requiredKey, key != requiredKey { return "x-api-key is not the key this server was given" }
            return nil
        })
        self.serverLimit = serverLimit
    }

    /// The endpoint a head asks for, or the answer refusing it.
    func decide(_ head: RawHTTPRequest.Head) -> Result<(ServeEndpoint, maxBodyBytes: Int), ServeRefusal> {
        switch ServeRoutes.table.decide(head, guards: guards, serverLimit: serverLimit) {
        case .admit(let match, let maxBodyBytes):
            return .success((match.endpoint, maxBodyBytes))
        case .refuse(let refusal, let route):
            var response = ServeAnswer.jsonError(refusal.status, refusal.message)
            response.headers += refusal.headers
            var answer = ServeAnswer(response: response, endpoint: route?.endpoint.rawValue ?? "other",
                                     note: route == nil && refusal.status == 404 ? "not an AppDNA API path" : refusal.message)
            answer.refusedKey = route != nil && refusal.status == RouteGuard.sdkAPIKey.refusalStatus
            return .failure(ServeRefusal(answer: answer))
        }
    }
}

/// A request `api serve` refuses at its head, with the answer its log line shows.
struct ServeRefusal: Error {
    let answer: ServeAnswer
}
