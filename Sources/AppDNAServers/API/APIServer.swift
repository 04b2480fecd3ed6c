import AppDNACore
import AppDNANet

/// `api serve`'s handler, as a value: the bundle it serves, the faults it injects, the key it
/// requires, the ingest endpoint, and where it reports. `handle` takes one complete request (a
/// connection thread calls it) and returns the answer; each request ends in one `ServeOutcome`,
/// reported once and kept by the inspector.
public struct APIServer: Sendable {
    let bundle: ServedBundle
    let faults: ServeFaults
    /// The route, the key and the body limit, decided at each request's head.
    let admission: ServeAdmission
    let ingest: IngestEndpoint
    /// The SDK's own calls beside ingest: bootstrap, identify, and those without config.
    let sdk: SDKEndpoints
    /// The CLI's words for what names its settings.
    let words: ServeWords
    /// Where each outcome and each rejection go (the CLI renders them as lines and counts).
    let report: any ServeReport
    let clock: any Clock
    /// The inspector's list of requests; nil without an inspector.
    let inspector: InspectorLog?

    public init(bundle: ServedBundle, faults: ServeFaults, requiredKey: [UInt8]?, serverLimit: Int, ingest: IngestEndpoint, sdk: SDKEndpoints,
                words: ServeWords, report: any ServeReport, clock: any Clock, inspector: InspectorLog?) {
        self.bundle = bundle
        self.faults = faults
        admission = ServeAdmission(requiredKey: requiredKey, serverLimit: serverLimit)
        self.ingest = ingest
        self.sdk = sdk
        self.words = words
        self.report = report
        self.clock = clock
        self.inspector = inspector
    }

    /// A request's head: admitted with its route's body limit, or refused before a byte of its
    /// body is read (no such path or method, no key or the wrong one, a body over the limit),
    /// that refusal reported and kept by the inspector as any other outcome.
    public func admit(_ request: HTTPServer.Request) -> HTTPServer.Admission {
        switch admission.decide(request.head) {
        case .success(let admitted): return .admit(maxBodyBytes: admitted.maxBodyBytes)
        case .failure(let refused):
            let outcome = ServeOutcome(time: Timestamp.iso8601(milliseconds: clock.wallMilliseconds()), request: request,
                                       refusal(refused.endpoint, refused.refusal), words: words)
            report.served(outcome)
            inspector?.record(outcome.inspectorEntry)
            return .refuse(outcome.response)
        }
    }

    /// One request: answered (after the injected latency), reported, kept by the inspector.
    public func handle(_ request: HTTPServer.Request) -> HTTPServer.Response {
        let answer = respond(to: request)
        faults.waitLatency()
        let outcome = ServeOutcome(time: Timestamp.iso8601(milliseconds: clock.wallMilliseconds()), request: request, answer, words: words)
        report.served(outcome)
        inspector?.record(outcome.inspectorEntry)
        return outcome.response
    }

    /// A request refused before it was one the server handles (malformed, too large, too slow).
    public func reject(_ rejection: HTTPServer.Rejection) {
        report.rejected(RejectedRequest(time: Timestamp.iso8601(milliseconds: clock.wallMilliseconds()), rejection))
    }

    func refusal(_ endpoint: ServeEndpoint?, _ refusal: ServeRefusal, headers: [(name: String, value: String)] = []) -> ServeOutcome.Answer {
        var response = ServeOutcome.jsonError(refusal.status, refusal.message(words))
        if case .route(let routeRefusal) = refusal { response.headers += routeRefusal.headers }
        response.headers += headers
        return ServeOutcome.Answer(endpoint: endpoint, response: response, result: .refused(refusal))
    }

    /// A request the head admitted: its endpoint is decided again from the same head, which
    /// gives the same answer (and so refuses it if it was never admitted).
    func respond(to request: HTTPServer.Request) -> ServeOutcome.Answer {
        func refuse(_ endpoint: ServeEndpoint?, _ refusal: ServeRefusal, headers: [(name: String, value: String)] = []) -> ServeOutcome.Answer {
            self.refusal(endpoint, refusal, headers: headers)
        }
        let endpoint: ServeEndpoint
        switch admission.decide(request.head) {
        case .success(let admitted): endpoint = admitted.endpoint
        case .failure(let refused): return refuse(refused.endpoint, refused.refusal)
        }
        if let status = faults.takeFailure() {
            return refuse(endpoint, .injectedFailure(status: status), headers: faults.retryAfterHeader)
        }
        switch endpoint {
        case .events:
            if let limit = faults.maxEventBody, request.body.count > limit {
                return refuse(endpoint, .batchOverLimit(bytes: request.body.count, limit: limit))
            }
            return ingest.receive(request)
        case .bootstrap:
            return sdk.bootstrap(words: words)
        case .identify:
            return sdk.identify(request, words: words)
        case .ingestIdentify, .feedback, .billingVerify, .billingRestore, .billingEntitlements, .billingOffersSign,
             .pushToken, .pushDelivered, .pushTapped, .geocode, .optionSets:
            return sdk.other(endpoint, words: words)
        case .bundle, .version:
            do {
                let answers = try bundle.answers()
                let body = endpoint == .bundle ? answers.bundle : answers.version
                // A HEAD answer gets the GET's Content-Length and no body: the server leaves it out.
                return ServeOutcome.Answer(endpoint: endpoint, response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: body),
                                           result: .bundle(version: answers.bundleVersion))
            } catch {
                return refuse(endpoint, .bundleUnreadable(words.error(error)))
            }
        }
    }
}
