/// One hypothesis about why a signature did not match, and how to test it.
///
/// The explainer is just a list of these (`MismatchCandidate.all`): adding a diagnosis, such
/// as "the JSON was re-serialised" once the JSON library lands, means adding one entry here.
public struct MismatchCandidate: Sendable {
    /// Stable identifier, part of `--json` output: never rename.
    public let id: String
    /// One sentence naming the mistake, for the human output.
    public let sentence: String
    /// Candidates that rewrite the body are skipped for very large bodies (memory and time).
    public let rewritesBody: Bool
    /// A tighter size limit than the explainer's, for candidates that cost more per byte
    /// (parsing JSON builds a tree). Larger bodies skip this candidate, with a note.
    public let maxBodyBytes: Int?
    /// What the candidate found: one entry per secret (or nil: no secret involved) under which
    /// the hypothesis reproduces the provided signature, optionally with a more specific
    /// sentence. Empty when it does not.
    let findings: @Sendable (MismatchContext) -> [MismatchFinding]

    public init(id: String, sentence: String, rewritesBody: Bool, matches: @escaping @Sendable (MismatchContext) -> [Int?]) {
        self.id = id
        self.sentence = sentence
        self.rewritesBody = rewritesBody
        self.maxBodyBytes = nil
        self.findings = { context in matches(context).map { MismatchFinding(secretIndex: $0) } }
    }

    /// A candidate whose findings can carry their own sentence (e.g. which JSON layout matched).
    public init(id: String, sentence: String, rewritesBody: Bool, maxBodyBytes: Int?,
                findings: @escaping @Sendable (MismatchContext) -> [MismatchFinding]) {
        self.id = id
        self.sentence = sentence
        self.rewritesBody = rewritesBody
        self.maxBodyBytes = maxBodyBytes
        self.findings = findings
    }
}

/// One reproduction of the provided signature under a candidate's hypothesis.
public struct MismatchFinding: Sendable, Equatable {
    /// The secret involved, or nil when the hypothesis needs none (an unkeyed hash).
    public let secretIndex: Int?
    /// Replaces the candidate's sentence when the finding knows more precisely what happened.
    public let sentence: String?

    public init(secretIndex: Int?, sentence: String? = nil) {
        self.secretIndex = secretIndex
        self.sentence = sentence
    }
}

/// What a candidate gets to look at, with the comparisons it needs.
public struct MismatchContext: Sendable {
    public let body: [UInt8]
    public let provided: ProvidedSignature
    public let secrets: [WebhookSecret]

    /// Indices of the secrets whose HMAC-SHA256 of `body` equals the provided hex signature.
    public func secretsSigning(_ body: [UInt8]) -> [Int?] {
        guard case .sha256(let expected) = provided else { return [] }
        return secrets.indices.filter { ConstantTime.equals(HMACSHA256.authenticationCode(for: body, key: secrets[$0].bytes), expected) }
    }

    /// Like `secretsSigning`, but with each secret rewritten by `transform` first.
    public func secretsSigning(withSecret transform: ([UInt8]) -> [[UInt8]]) -> [Int?] {
        guard case .sha256(let expected) = provided else { return [] }
        return secrets.indices.filter { index in
            transform(secrets[index].bytes).contains { ConstantTime.equals(HMACSHA256.authenticationCode(for: body, key: $0), expected) }
        }
    }

    /// Applies a body rewrite and tests it; nothing when the rewrite does not apply.
    func secretsSigning(rewritten rewrite: ([UInt8]) -> [UInt8]?) -> [Int?] {
        guard case .sha256 = provided, let rewritten = rewrite(body) else { return [] }
        return secretsSigning(rewritten)
    }
}

extension MismatchCandidate {
    /// The hypothesis that the body was changed on its way (`id`, `sentence`): `undo` turns
    /// the body back into what the sender signed (nil when it does not apply) and that is
    /// checked under every secret. Skipped for very large bodies, as every body rewrite is.
    static func bodyRewrite(_ id: String, _ sentence: String, _ undo: @escaping @Sendable ([UInt8]) -> [UInt8]?) -> MismatchCandidate {
        MismatchCandidate(id: id, sentence: sentence, rewritesBody: true, matches: { $0.secretsSigning(rewritten: undo) })
    }

    /// Every known hypothesis, in the order they are reported.
    public static let all: [MismatchCandidate] = [
        .bodyRewrite(
            "trailing-newline-added", "The body ends with a newline (LF) that was not signed; an editor, echo or the capture tool probably added it.",
            BodyTransformations.removingTrailingLF),
        .bodyRewrite(
            "trailing-crlf-added", "The body ends with a CRLF that was not signed; a tool probably added a line ending.",
            BodyTransformations.removingTrailingCRLF),
        .bodyRewrite(
            "trailing-newline-removed", "The sender signed the body with a trailing newline (LF) that this body no longer has.",
            BodyTransformations.appendingLF),
        .bodyRewrite(
            "trailing-crlf-removed", "The sender signed the body with a trailing CRLF that this body no longer has.",
            BodyTransformations.appendingCRLF),
        .bodyRewrite(
            "crlf-converted-to-lf", "The sender signed the body with CRLF line endings; they were converted to LF before verification.",
            BodyTransformations.lfToCRLF),
        .bodyRewrite(
            "lf-converted-to-crlf", "The sender signed the body with LF line endings; they were converted to CRLF before verification.",
            BodyTransformations.crlfToLF),
        .bodyRewrite(
            "bom-added", "The body starts with a UTF-8 byte order mark that was not signed; an editor probably added it.",
            BodyTransformations.removingBOM),
        .bodyRewrite(
            "bom-removed", "The sender signed the body with a UTF-8 byte order mark that this body no longer has.",
            BodyTransformations.addingBOM),
        MismatchCandidate(
            id: "secret-surrounding-whitespace", sentence: "The secret given here has surrounding whitespace; the sender signed with the trimmed secret.",
            rewritesBody: false, matches: { context in
                context.secretsSigning(withSecret: { SecretTransformations.trimmed($0).map { [$0] } ?? [] })
            }),
        MismatchCandidate(
            id: "secret-trailing-newline-kept", sentence: "The sender signed with the secret plus a trailing newline; their secret file or variable still ends in a line break.",
            rewritesBody: false, matches: { $0.secretsSigning(withSecret: SecretTransformations.withTrailingNewlines) }),
        MismatchCandidate(
            id: "sha1-signature", sentence: "The signature is an HMAC-SHA1 of this body with this secret; AppDNA signs with HMAC-SHA256, so the sender used the wrong algorithm.",
            rewritesBody: false, matches: { context in
                // Hex (sha1=…, 40 digits) or base64 of a 20-byte MAC.
                guard let given = context.provided.bytes, given.count == SHA1.digestByteCount else { return [] }
                return context.secrets.indices.filter {
                    ConstantTime.equals(HMAC<SHA1>.authenticationCode(for: context.body, key: context.secrets[$0].bytes), given)
                }
            }),
        MismatchCandidate(
            id: "base64-signature", sentence: "The signature is the right HMAC-SHA256 but base64-encoded; AppDNA sends it hex-encoded.",
            rewritesBody: false, matches: { context in
                guard case .base64(let given) = context.provided, given.count == SHA256.digestByteCount else { return [] }
                return context.secrets.indices.filter {
                    ConstantTime.equals(HMACSHA256.authenticationCode(for: context.body, key: context.secrets[$0].bytes), given)
                }
            }),
        MismatchCandidate(
            id: "empty-body-signed", sentence: "The signature is for an empty body; the body was probably read (or consumed) before it was signed or verified.",
            rewritesBody: false, matches: { context in
                context.body.isEmpty ? [] : context.secretsSigning([])
            }),
        MismatchCandidate(
            id: "unkeyed-sha256", sentence: "The signature is a plain SHA-256 of the body with no secret; the sender hashed the body instead of computing an HMAC.",
            rewritesBody: false, matches: { context in
                guard case .sha256(let given) = context.provided else { return [] }
                return ConstantTime.equals(SHA256.hash(context.body), given) ? [nil] : []
            }),
        JSONReserialisation.candidate,
    ]
}
