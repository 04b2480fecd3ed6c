import AppDNACore

/// Everything one `webhook verify` run needs, read and checked from the flags once, in the
/// order that gives the most useful first error (usage, then the secrets (78), then the
/// request dump or record (64/65/66), then the signature (65), then a BODY file that is
/// missing (66)); every file through `CommandIO.files`. The run hashes the body and reports.
struct WebhookVerifyPlan {
    /// Where the body comes from (a record's with the line it was found on).
    let source: WebhookInputs.BodySource
    /// The request dump or the recorded delivery, read and parsed; nil for a bare body.
    let request: RawHTTPRequest?
    /// A warning about a record file's unreadable lines, for the run to print.
    let recordSkipped: String?
    let secrets: [WebhookSecret]
    let signature: Signature
    /// Where the signature came from, for the report.
    let signatureOrigin: String
    let explain: Bool
    let json: Bool

    /// The signature as given: parsed, or malformed in a way `--explain` can diagnose (a SHA-1
    /// or base64 MAC) before the run fails with the parse error (65) anyway.
    enum Signature {
        case valid(WebhookSignature)
        case malformed(ProvidedSignature, Failure)
    }

    @Sendable static func make(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> WebhookVerifyPlan {
        let io = invocation.io
        let explain = arguments[WebhookVerifyFlags.explain]
        var source = try WebhookInputs.bodySource(arguments, invocation, takesRequestDump: true)
        try WebhookInputs.signatureFlagsCheck(arguments)
        let secrets = try WebhookInputs.secrets(WebhookInputs.SecretSources(arguments), io: io)

        var request: RawHTTPRequest? = nil
        var recordSkipped: String? = nil
        if case .request(let path) = source {
            request = try WebhookInputs.request(path, io: io)
        } else if case .recorded(let path, let line) = source {
            let recorded = try RecordedVerifyInput.request(path: path, line: line == 0 ? nil : line, io: io)
            source = .recorded(path, line: recorded.line)
            request = recorded.request
            recordSkipped = recorded.skipped
        }
        let requestPath = source.requestPath
        let given = try WebhookInputs.signature(arguments, request: request.map { (requestPath!, $0) })

        let signature: Signature
        do {
            signature = .valid(try given.parse())
        } catch {
            // A record's signature is located as its other errors are: FILE:LINE first.
            let recordedHeader = arguments[WebhookVerifyFlags.recorded] != nil && arguments[WebhookVerifyFlags.signature] == nil
                && arguments[WebhookVerifyFlags.header] == nil
            let failure = error.located(recordedHeader ? "\(requestPath ?? ""): \(given.origin)" : given.origin)
            // A SHA-1 or base64 signature is still malformed (65), but --explain can say
            // whether it is this body's MAC under the wrong algorithm or encoding.
            let provided = ProvidedSignature(headerValue: given.value)
            guard explain, provided.bytes != nil else { throw failure }
            signature = .malformed(provided, failure)
        }
        try WebhookInputs.checkBodyFile(source, files: io.files)
        return WebhookVerifyPlan(source: source, request: request, recordSkipped: recordSkipped, secrets: secrets, signature: signature,
                                 signatureOrigin: given.origin, explain: explain, json: arguments[WebhookVerifyFlags.json])
    }
}

/// Everything one `webhook sign` run needs: the body's source, checked, and its one secret.
struct WebhookSignPlan {
    let source: WebhookInputs.BodySource
    let secret: WebhookSecret
    /// For the JSON's "secret" (its position and source).
    let secrets: [WebhookSecret]
    let json: Bool

    @Sendable static func make(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> WebhookSignPlan {
        let source = try WebhookInputs.bodySource(arguments, invocation, takesRequestDump: false)
        let secrets = try WebhookInputs.secrets(WebhookInputs.SecretSources(arguments), io: invocation.io)
        guard secrets.count == 1 else {
            throw Failure(.usage, "webhook sign signs with one secret; \(secrets.count) were given")
        }
        try WebhookInputs.checkBodyFile(source, files: invocation.io.files)
        return WebhookSignPlan(source: source, secret: secrets[0], secrets: secrets, json: arguments[WebhookSignFlags.json])
    }
}
