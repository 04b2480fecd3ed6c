/// Works out what would have produced the provided signature, for `webhook verify --explain`.
///
/// It only ever *describes*: the result has no verdict, so nothing it finds can turn a
/// mismatch into a pass. Every hypothesis is tested by recomputing the signature, so a
/// diagnosis is a fact ("HMAC-SHA256 of the body without its final LF matches"), not a guess.
/// Messages name secrets by position and source only, never by content.
public enum MismatchExplainer {
    /// Above this, rewriting the body for each hypothesis costs too much memory and time.
    public static let maxRewrittenBodyBytes = 64 << 20

    public static func explain(
        body: [UInt8], provided: ProvidedSignature, secrets: [WebhookSecret],
        candidates: [MismatchCandidate] = MismatchCandidate.all,
        maxRewrittenBodyBytes: Int = MismatchExplainer.maxRewrittenBodyBytes
    ) -> MismatchExplanation {
        let context = MismatchContext(body: body, provided: provided, secrets: secrets)
        let tooLarge = body.count > maxRewrittenBodyBytes
        var diagnoses: [MismatchDiagnosis] = []
        var notes: [String] = []
        if tooLarge {
            notes.append("The body is larger than \(NumberText.binarySize(maxRewrittenBodyBytes)), so line-ending, newline, BOM and JSON re-serialisation variations were not tried.")
        }
        if case .unusable = provided {
            notes.append("The signature could not be decoded at all, so nothing could be compared with it.")
        }
        for candidate in candidates where !(tooLarge && candidate.rewritesBody) {
            if let limit = candidate.maxBodyBytes, body.count > limit {
                notes.append("The body is larger than \(NumberText.binarySize(limit)), so \(candidate.id) was not tried.")
                continue
            }
            for finding in candidate.findings(context) {
                diagnoses.append(MismatchDiagnosis(
                    id: candidate.id,
                    sentence: sentence(finding.sentence ?? candidate.sentence, secretIndex: finding.secretIndex, secrets: secrets),
                    secretIndex: finding.secretIndex))
            }
        }
        return MismatchExplanation(
            diagnoses: diagnoses, notes: notes,
            bodyLength: body.count, bodySHA256: SHA256.hash(body))
    }

    /// With several secrets, say which one the diagnosis is about (by position and source).
    static func sentence(_ base: String, secretIndex: Int?, secrets: [WebhookSecret]) -> String {
        guard let index = secretIndex, secrets.count > 1 else { return base }
        return String(base.dropLast()) + " (secret \(index + 1) of \(secrets.count), from \(secrets[index].source))."
    }
}

/// One named cause of a mismatch.
public struct MismatchDiagnosis: Sendable, Equatable {
    /// The candidate's stable identifier, e.g. `trailing-newline-added`.
    public let id: String
    public let sentence: String
    /// Which secret reproduces the signature under this hypothesis; nil when no secret is involved.
    public let secretIndex: Int?
}

/// Everything `--explain` reports. Deliberately has no verdict: explaining never verifies.
public struct MismatchExplanation: Sendable, Equatable {
    public let diagnoses: [MismatchDiagnosis]
    /// Things the user should know about what was (not) tried.
    public let notes: [String]
    public let bodyLength: Int
    public let bodySHA256: [UInt8]

    public var diagnosisIDs: [String] { diagnoses.map(\.id) }
}
