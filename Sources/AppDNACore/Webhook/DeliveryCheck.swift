/// The verdict on one received webhook delivery (`webhook listen`): the same verifier and
/// secrets as `webhook verify`, and on a mismatch the same diagnoses as `verify --explain`.
/// Values only; the servers library words the verdict (`verdictText`, AppDNAServers).
public struct DeliveryCheck: Sendable {
    public let event: String
    public let id: String
    public let matchedSecret: Int?
    /// Why the delivery is invalid (nil when valid), for the listener's own log: it may name
    /// a secret's source (a file path).
    public let problem: String?
    /// Why the delivery is invalid in words fit for its sender (the 401 body): nothing about
    /// the listener's secrets or files.
    public let senderProblem: String?
    public let diagnoses: [MismatchDiagnosis]
    /// The body is over `maxDiagnosedBytes`: a mismatch, if there is one, is not diagnosed.
    public let diagnosisSkipped: Bool

    /// A mismatch is diagnosed (each known mistake tried, a hash of the body each) only for
    /// bodies up to this size: above it, a wrong signature costs what a right one does, one
    /// hash per secret, so a sender cannot make the listener work harder by signing wrongly.
    /// `webhook verify --explain` diagnoses any size.
    public static let maxDiagnosedBytes = 64 << 10

    public var isValid: Bool { matchedSecret != nil }

    public init(headers: [RawHTTPRequest.Field], body: [UInt8], secrets: [WebhookSecret]) {
        let fields: (id: String?, type: String?) = body.count <= WebhookBodyShape.maxCheckedBytes ? Self.idAndType(body) : (nil, nil)
        let eventHeader = HeaderName.first("X-AppDNA-Event", in: headers, nameOf: \.name).map { HeaderText.trimmed($0.value) }
        event = eventHeader ?? fields.type ?? "-"
        id = fields.id ?? "-"
        let signatures = HeaderName.all(WebhookSignature.headerName, in: headers, nameOf: \.name)
        let diagnosed = body.count <= Self.maxDiagnosedBytes
        diagnosisSkipped = !diagnosed
        guard let header = signatures.first else {
            (matchedSecret, problem, diagnoses) = (nil, "no \(WebhookSignature.headerName) header", [])
            senderProblem = problem
            return
        }
        let signature: WebhookSignature
        do {
            signature = try WebhookSignature.parse(header.value)
        } catch {
            // A SHA-1 or base64 signature: say whether it is this body's MAC in the wrong form.
            let provided = ProvidedSignature(headerValue: header.value)
            let explanation = provided.bytes == nil || !diagnosed ? nil : MismatchExplainer.explain(body: body, provided: provided, secrets: secrets)
            (matchedSecret, problem, diagnoses) = (nil, "\(WebhookSignature.headerName): \(error.message)", explanation?.diagnoses ?? [])
            senderProblem = problem
            return
        }
        // The verifier throws only for an empty list of secrets. `webhook listen` refuses to
        // start without one, but this is public API: with nothing to check against, the
        // delivery is not valid, and the verdict says why instead of trapping (issue 35.4).
        guard let verification = body.withUnsafeBytes({ bytes in
            try? WebhookVerifier.verify(body: bytes, signature: signature, secrets: secrets)
        }) else {
            (matchedSecret, problem, diagnoses) = (nil, SecretError.none.message, [])
            senderProblem = "the receiver has no secret to check the signature with"
            return
        }
        if let index = verification.matchedSecretIndex {
            (matchedSecret, problem, senderProblem, diagnoses) = (index, nil, nil, [])
            return
        }
        let explanation = diagnosed ? MismatchExplainer.explain(body: body, provided: .sha256(signature.digest), secrets: secrets) : nil
        let tried = secrets.count == 1 ? "the secret from \(secrets[0].source)" : "any of the \(secrets.count) secrets"
        (matchedSecret, problem, diagnoses) = (nil, "the signature does not match this body with \(tried)", explanation?.diagnoses ?? [])
        senderProblem = "the signature does not match this body"
    }

    /// The body's `id` and `type`, when it is a JSON object.
    public static func idAndType(_ body: [UInt8]) -> (id: String?, type: String?) {
        guard let document = try? JSONDocument(bytes: body), document.root.kind == .object else { return (nil, nil) }
        return (document.root["id"]?.string, document.root["type"]?.string)
    }
}
