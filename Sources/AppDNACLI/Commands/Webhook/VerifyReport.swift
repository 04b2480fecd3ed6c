import AppDNACore

/// What `webhook verify` prints: rows of text, or one JSON document (fields documented in
/// docs/schemas/webhook-verify.schema.json; only ever added to).
struct VerifyReport {
    let verification: WebhookVerification
    let secrets: [WebhookSecret]
    let signature: WebhookSignature
    let signatureOrigin: String
    let bodySource: WebhookInputs.BodySource
    let warnings: [WebhookBodyShape.Warning]
    let explain: Bool
    let explanation: MismatchExplanation?
    let extraNotes: [String]

    /// "secret 1 of 2, from --secret-file new.txt": position and source, never content.
    static func secretLabel(_ index: Int, _ secrets: [WebhookSecret]) -> String {
        WebhookSecret.label(index, secrets)
    }

    var verdictLine: String {
        if let index = verification.matchedSecretIndex {
            return "valid: signature matches (\(Self.secretLabel(index, secrets)))"
        }
        let tried = secrets.count == 1 ? "the secret from \(secrets[0].source)" : "any of the \(secrets.count) secrets"
        return "mismatch: the signature does not match this body with \(tried)"
    }

    func writeText(_ invocation: Invocation) {
        let style = invocation.options.stdoutStyle
        let line = verdictLine
        let colon = line.firstIndex(of: ":")!
        let word = String(line[..<colon])
        invocation.stdout.writeLine(style.apply(verification.isValid ? .green : .red, word) + String(line[colon...]))
        var rows: [(String, String)] = [
            ("body", bodySource.label),
            ("body length", "\(verification.bodyLength) bytes"),
            ("body sha256", Hex.encode(verification.bodySHA256)),
        ]
        if explain {
            rows.append(("signature", "\(signature.headerValue) (from \(signatureOrigin))"))
            for (index, computed) in verification.computedSignatures.enumerated() {
                rows.append((index == 0 ? "computed" : "", "\(computed.headerValue) (\(Self.secretLabel(index, secrets)))"))
            }
        }
        if let explanation {
            rows += Self.explanationRows(explanation, secrets: secrets, style: style)
        }
        for note in extraNotes { rows.append(("note", note)) }
        LabelValueBlock.write(rows, to: invocation.stdout)
    }

    static func explanationRows(_ explanation: MismatchExplanation, secrets: [WebhookSecret], style: Styler) -> [(String, String)] {
        var rows: [(String, String)] = []
        if explanation.diagnoses.isEmpty {
            rows.append(("diagnosis", "none of the known mistakes reproduces the signature. If the body length and sha256 above match the sender's, the secret differs; otherwise the body was changed in some other way."))
        }
        for (index, diagnosis) in explanation.diagnoses.enumerated() {
            rows.append((index == 0 ? "diagnosis" : "", style.apply(.yellow, diagnosis.id) + ": " + diagnosis.sentence))
        }
        for note in explanation.notes { rows.append(("note", note)) }
        return rows
    }

    // MARK: - JSON

    static func secretJSON(_ index: Int, _ secrets: [WebhookSecret]) -> JSONValue {
        WebhookSecret.json(index, secrets)
    }

    static func explanationJSON(_ explanation: MismatchExplanation?, secrets: [WebhookSecret],
                                computed: [WebhookSignature], notes: [String]) -> JSONValue {
        var object = JSONObject()
        object["diagnoses"] = .array((explanation?.diagnoses ?? []).map { diagnosis in
            [
                "id": .string(diagnosis.id),
                "message": .string(diagnosis.sentence),
                "secret": diagnosis.secretIndex.map { secretJSON($0, secrets) } ?? .null,
            ]
        })
        object["notes"] = .array(((explanation?.notes ?? []) + notes).map { .string($0) })
        object["computed_signatures"] = .array(computed.enumerated().map { index, signature in
            ["secret": secretJSON(index, secrets), "signature": .string(signature.headerValue)]
        })
        return .object(object)
    }

    func writeJSON(to sink: OutputSink) {
        var object = JSONObject()
        object["valid"] = .bool(verification.isValid)
        object["verdict"] = .string(verification.isValid ? "valid" : "mismatch")
        object["matched_secret"] = verification.matchedSecretIndex.map { Self.secretJSON($0, secrets) } ?? .null
        object["secrets"] = .array(secrets.indices.map { Self.secretJSON($0, secrets) })
        object["signature"] = .string(signature.headerValue)
        object["signature_from"] = .string(signatureOrigin)
        object["body"] = [
            "from": .string(bodySource.label),
            "length": .integer(verification.bodyLength),
            "sha256": .string(Hex.encode(verification.bodySHA256)),
        ]
        object["warnings"] = .array(warnings.map { ["code": .string($0.code), "message": .string($0.message)] })
        if explain {
            object["explain"] = Self.explanationJSON(explanation, secrets: secrets,
                                                     computed: verification.computedSignatures, notes: extraNotes)
        }
        sink.write(JSONWriter(indent: 2).write(.object(object)))
        sink.writeLine()
    }
}
