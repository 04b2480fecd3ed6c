import AppDNACore
import AppDNANet

/// `api serve`'s handler, as a value: the bundle it serves, the faults it injects, the key it
/// requires, the ingest endpoint, and where it reports. `handle` takes one complete request (a
/// connection thread calls it) and returns the answer; each request ends in one `ServeOutcome`,
/// reported once and kept by the inspector.
public struct APIServer: Sendable {
    let bundle: ServedBundle
    let faults: ServeFaults
    /// The key every request must carry; nil when any non-empty key will do.
    let requiredKey: [UInt8]?
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

    public init(bundle: ServedBundle, faults: ServeFaults, requiredKey: [UInt8]?, ingest: IngestEndpoint, sdk: SDKEndpoints,
                words: ServeWords, report: any ServeReport, clock: any Clock, inspector: InspectorLog?) {
        self.bundle = bundle
        self.faults = faults
        self.requiredKey = requiredKey
        self.ingest = ingest
        self.sdk = sdk
        self.words = words
        self.report = report
        self.clock = clock
        self.inspector = inspector
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

    func respond(to request: HTTPServer.Request) -> ServeOutcome.Answer {
        func refuse(_ endpoint: ServeEndpoint?, _ refusal: ServeRefusal, headers: [(name: String, value: String)] = []) -> ServeOutcome.Answer {
            var response = ServeOutcome.jsonError(refusal.status, refusal.message(words))
            response.headers += headers
            return ServeOutcome.Answer(endpoint: endpoint, response: response, result: .refused(refusal))
        }
        let endpoint: ServeEndpoint
        switch ServeRoutes.table.resolve(method: request.head.method, target: request.head.target) {
        case .success(let match):
            endpoint = match.endpoint
        case .failure(let refusal):
            return refuse(nil, .route(refusal), headers: refusal.headers)
        }
        let key = request.head.value(of: "x-api-key").map { Array($0.utf8) } ?? []
        if key.isEmpty { return refuse(endpoint, .missingKey) }
        if let requiredKey, key != requiredKey { return refuse(endpoint, .wrongKey) }
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
