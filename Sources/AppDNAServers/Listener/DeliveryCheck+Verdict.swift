import AppDNACore

extension DeliveryCheck {
    /// "valid (secret 1 of 2, from …)" or "invalid: … [diagnosis-id: sentence]"; `words` say
    /// where a body too large to diagnose here is diagnosed (they name a flag: the CLI's).
    public func verdictText(secrets: [WebhookSecret], words: ListenWords) -> String {
        if let matchedSecret { return "valid (\(WebhookSecret.label(matchedSecret, secrets)))" }
        var text = "invalid: " + (problem ?? "")
        if diagnosisSkipped && diagnoses.isEmpty && problem?.hasPrefix("the signature does not match") == true {
            text += "; bodies over \(NumberText.binarySize(Self.maxDiagnosedBytes)) are not diagnosed here (\(words.undiagnosed))"
        } else if diagnoses.isEmpty {
            if problem?.hasPrefix("the signature does not match") == true {
                text += "; none of the known mistakes reproduces it (a different secret, or the body was changed)"
            }
        } else {
            text += "; " + diagnoses.map { "\($0.id): \($0.sentence)" }.joined(separator: "; ")
        }
        return text
    }

    /// `[{"id", "message"}…]`: the diagnoses as `--json` and the inspector give them.
    public var diagnosesJSON: JSONValue {
        .array(diagnoses.map { ["id": .string($0.id), "message": .string($0.sentence)] })
    }
}
