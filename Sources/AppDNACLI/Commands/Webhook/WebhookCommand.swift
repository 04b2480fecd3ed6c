import AppDNACore

/// `appdna webhook verify` and `appdna webhook sign`.
enum WebhookCommand {
    static let bodyOperand = OperandSpec("BODY", "The body bytes exactly as received: a file, or '-' (the default) for stdin",
                                         optional: true, completion: .file)

    static let verifyFlags = WebhookVerifyFlags.all

    static let verifyDiscussion = """
    Checks the X-AppDNA-Signature of a webhook delivery: HMAC-SHA256 of the exact body bytes \
    with the endpoint's signing secret, compared in constant time. The body is hashed while it \
    is read, so a body of any size, from a file or a pipe, works in constant memory (a record \
    file given as BODY is recognised from its first 8 KiB; --recorded reads its record file whole).
    The secret is never a flag value: it comes from APPDNA_WEBHOOK_SECRET, --secret-file PATH \
    (repeatable, for rotation; takes precedence over the environment) or --secret-stdin. One \
    trailing newline is removed; an empty secret is refused (status 78).
    On a mismatch, --explain recomputes the signature under the usual mistakes (a newline added \
    or removed, CRLF/LF conversion, a byte-order mark, the JSON re-serialised, whitespace around \
    the secret, a SHA-1 or base64 signature, an unkeyed hash) and names the ones that reproduce \
    it, with the body length and SHA-256 to compare with the sender. It never turns a mismatch \
    into a pass. A body that is not an AppDNA webhook (a JSON object with id, type, created_at \
    and data) gets a warning only.
    No timestamp is signed: a captured delivery verifies forever and can be replayed. Receivers \
    should deduplicate deliveries by their id.
    --recorded FILE verifies a delivery from webhook listen's record file (the file's only one, or \
    the one on --line N), with its recorded signature.
    Exit status: 0 valid, 1 mismatch, 64 usage error (e.g. no signature given), 65 malformed \
    signature, request dump or record, 66 body file missing, or a record file that is not a regular \
    file, 78 no secret, empty secret or unreadable \
    secret file.
    """

    static let signDiscussion = """
    Prints the X-AppDNA-Signature value AppDNA would send for BODY (sha256= and the hex \
    HMAC-SHA256), for producing test deliveries. The secret comes from APPDNA_WEBHOOK_SECRET, \
    --secret-file PATH or --secret-stdin, never from a flag value.
    """

    static let examples = [
        ExampleSpec("APPDNA_WEBHOOK_SECRET=\"$(cat secret.txt)\" appdna webhook verify body.json --header 'X-AppDNA-Signature: sha256=5f3c…'",
                    "Check a captured body against its header."),
        ExampleSpec("appdna webhook verify --request delivery.http --secret-file new.txt --secret-file old.txt --explain",
                    "Check a raw request dump during a secret rotation, and say why it fails if it does."),
        ExampleSpec("appdna webhook verify --recorded deliveries.ndjson --line 3 --secret-file secret.txt",
                    "Check the third delivery in webhook listen's record file."),
    ]

    // MARK: - verify

    static let verify = CommandRun.planned(plan: WebhookVerifyPlan.make, perform: performVerify)

    /// Hashes the body as it is read (through `CommandIO.files`) and reports the verdict.
    @Sendable static func performVerify(_ plan: WebhookVerifyPlan, _ invocation: Invocation) throws -> ExitStatus {
        if let skipped = plan.recordSkipped { invocation.warn(skipped) }
        let source = plan.source, request = plan.request, secrets = plan.secrets, explain = plan.explain
        let signature: WebhookSignature
        switch plan.signature {
        case .valid(let parsed):
            signature = parsed
        case .malformed(let provided, let failure):
            try explainMalformed(invocation, plan: plan, provided: provided)
            throw failure
        }

        var verifier = try WebhookVerifier(secrets: secrets)
        let retainLimit = explain ? MismatchExplainer.maxRewrittenBodyBytes : WebhookBodyShape.maxCheckedBytes
        let body = try WebhookInputs.streamBody(source, request: request, io: invocation.io, retainLimit: retainLimit) { verifier.update($0) }
        let verification = verifier.finish(expected: signature)

        let warnings = bodyWarnings(invocation, body: body, request: request, requestPath: source.requestPath)
        var explanation: MismatchExplanation? = nil
        var explainNotes: [String] = []
        if explain && !verification.isValid {
            if let body, body.count <= MismatchExplainer.maxRewrittenBodyBytes {
                explanation = MismatchExplainer.explain(body: body, provided: .sha256(signature.digest), secrets: secrets)
            } else {
                explainNotes.append("The body is larger than \(MismatchExplainer.maxRewrittenBodyBytes >> 20) MiB, so it was not kept in memory and no diagnoses were tried; compare its length and SHA-256 with the sender's.")
            }
        }
        let report = VerifyReport(
            verification: verification, secrets: secrets, signature: signature, signatureOrigin: plan.signatureOrigin,
            bodySource: source, warnings: warnings, explain: explain, explanation: explanation, extraNotes: explainNotes)
        if plan.json {
            report.writeJSON(to: invocation.stdout)
        } else {
            report.writeText(invocation)
            if !verification.isValid && !explain {
                invocation.note("hint: run again with --explain to find out what would have matched")
            }
        }
        return verification.isValid ? .success : .negative
    }

    /// For a SHA-1 or base64 signature under --explain: print the diagnoses, then the caller
    /// fails with the parse error (65) as without --explain.
    static func explainMalformed(_ invocation: Invocation, plan: WebhookVerifyPlan, provided: ProvidedSignature) throws {
        guard let body = try WebhookInputs.streamBody(plan.source, request: plan.request, io: invocation.io,
                                                      retainLimit: MismatchExplainer.maxRewrittenBodyBytes, { _ in }) else { return }
        let explanation = MismatchExplainer.explain(body: body, provided: provided, secrets: plan.secrets)
        if plan.json {
            var object = JSONObject()
            object["valid"] = false
            object["verdict"] = "malformed-signature"
            object["explain"] = VerifyReport.explanationJSON(explanation, secrets: plan.secrets, computed: [], notes: [])
            invocation.stdout.write(JSONWriter(indent: 2).write(.object(object)))
            invocation.stdout.writeLine()
        } else {
            let rows = VerifyReport.explanationRows(explanation, secrets: plan.secrets, style: invocation.options.stdoutStyle)
            LabelValueBlock.write(rows, to: invocation.stdout)
        }
    }

    /// Shape warnings for the body, and request-dump oddities, printed on stderr and returned
    /// for `--json`.
    static func bodyWarnings(_ invocation: Invocation, body: [UInt8]?, request: RawHTTPRequest?, requestPath: String?) -> [WebhookBodyShape.Warning] {
        var warnings: [WebhookBodyShape.Warning] = []
        if let body, body.count <= WebhookBodyShape.maxCheckedBytes {
            warnings += WebhookBodyShape.check(body)
            if let request, let event = request.value(of: "X-AppDNA-Event"), let type = WebhookBodyShape.eventType(body),
               HeaderText.trimmed(event) != type {
                warnings.append(.init(code: "event-header-mismatch",
                                      message: "the X-AppDNA-Event header says '\(HeaderText.trimmed(event))' but the body's type is '\(type)'"))
            }
        } else {
            invocation.detail("the body is larger than \(WebhookBodyShape.maxCheckedBytes >> 20) MiB; its shape was not checked")
        }
        if let request, request.extraBytesAfterBody > 0, let requestPath {
            let count = request.extraBytesAfterBody
            warnings.append(.init(code: "extra-bytes-after-body",
                                  message: "\(requestPath): \(count) byte\(count == 1 ? "" : "s") after the body (as framed by the headers) are not part of what was signed; ignored"))
        }
        for warning in warnings { invocation.warn(warning.message) }
        return warnings
    }

    // MARK: - sign

    static let signFlags = SecretFlags.specs(rotation: false, stdinNote: "the body must then be a file") + [WebhookSignFlags.json.spec]

    static let sign = CommandRun.planned(plan: WebhookSignPlan.make, perform: performSign)

    /// Prints the signature of the body, hashed as it is read (through `CommandIO.files`).
    @Sendable static func performSign(_ plan: WebhookSignPlan, _ invocation: Invocation) throws -> ExitStatus {
        var mac = HMACSHA256(key: plan.secret.bytes)
        var length = 0
        let body = try WebhookInputs.streamBody(plan.source, request: nil, io: invocation.io,
                                                retainLimit: WebhookBodyShape.maxCheckedBytes) { mac.update($0); length += $0.count }
        _ = bodyWarnings(invocation, body: body, request: nil, requestPath: nil)
        let value = WebhookSignature(digest: mac.finalize()).headerValue
        if plan.json {
            // The secret itself never: only where it came from.
            invocation.stdout.write(JSONWriter(indent: 2).write(["header": "X-AppDNA-Signature", "signature": .string(value),
                                                                 "body_length": .integer(length), "secret": VerifyReport.secretJSON(0, plan.secrets)]) + [0x0A])
        } else {
            invocation.stdout.writeLine(value)
        }
        return .success
    }
}

extension WebhookInputs {
    /// `--signature` with `--header` is a usage error whatever the body source.
    static func signatureFlagsCheck(_ arguments: ParsedArguments) throws {
        let signature = arguments[WebhookVerifyFlags.signature], header = arguments[WebhookVerifyFlags.header]
        if signature != nil && header != nil {
            throw Failure(.usage, "--signature and --header both give the signature; use one")
        }
        if signature == nil && header == nil && arguments[WebhookVerifyFlags.request] == nil && arguments[WebhookVerifyFlags.recorded] == nil {
            throw Failure(.usage, "no signature given",
                          hint: "pass --signature sha256=<hex>, --header 'X-AppDNA-Signature: sha256=<hex>', --request FILE with the captured delivery, or --recorded FILE with one webhook listen --record wrote")
        }
    }
}
