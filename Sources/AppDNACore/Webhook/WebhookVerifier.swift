/// Checks a body against an `X-AppDNA-Signature` with one or more secrets.
///
/// Several secrets support rotation: during a rollover deliveries may be signed with either
/// the old or the new one. Every secret is always computed and compared (no early exit), so
/// timing does not reveal which one matched. The same single pass over the body also yields
/// its length and SHA-256, which `--explain` prints for comparison with the sender's side.
public struct WebhookVerifier: Sendable {
    private var macs: [HMACSHA256]
    private var bodyHash = SHA256()
    private var bodyLength: UInt64 = 0

    public init(secrets: [WebhookSecret]) throws(SecretError) {
        guard !secrets.isEmpty else { throw SecretError.none }
        macs = secrets.map { HMACSHA256(key: $0.bytes) }
    }

    /// Feeds the next piece of the body.
    public mutating func update(_ chunk: UnsafeRawBufferPointer) {
        for index in macs.indices { macs[index].update(chunk) }
        bodyHash.update(chunk)
        bodyLength &+= UInt64(chunk.count)
    }

    public mutating func update<Bytes: Collection>(_ chunk: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = chunk.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(chunk).withUnsafeBytes { update($0) } }
    }

    /// Compares each secret's MAC with `expected` in constant time.
    public consuming func finish(expected: WebhookSignature) -> WebhookVerification {
        var matched: Int? = nil
        var computed: [[UInt8]] = []
        for (index, mac) in macs.enumerated() {
            let code = mac.finalize()
            computed.append(code)
            // Evaluate the comparison for every secret before deciding, so the work done
            // does not depend on which secret matched.
            let equal = ConstantTime.equals(code, expected.digest)
            if equal && matched == nil { matched = index }
        }
        return WebhookVerification(
            matchedSecretIndex: matched,
            computedSignatures: computed.map(WebhookSignature.init(digest:)),
            bodyLength: bodyLength,
            bodySHA256: bodyHash.finalize()
        )
    }

    /// One-shot verification of a body held in memory.
    public static func verify(
        body: UnsafeRawBufferPointer, signature: WebhookSignature, secrets: [WebhookSecret]
    ) throws(SecretError) -> WebhookVerification {
        var verifier = try WebhookVerifier(secrets: secrets)
        verifier.update(body)
        return verifier.finish(expected: signature)
    }

    /// Verification of a body that arrives in pieces (a file read in blocks, a chunked body).
    public static func verify<Chunks: Sequence>(
        chunks: Chunks, signature: WebhookSignature, secrets: [WebhookSecret]
    ) throws(SecretError) -> WebhookVerification where Chunks.Element: Collection, Chunks.Element.Element == UInt8 {
        var verifier = try WebhookVerifier(secrets: secrets)
        for chunk in chunks { verifier.update(chunk) }
        return verifier.finish(expected: signature)
    }
}

/// The outcome of a verification, with the facts `--explain` reports.
public struct WebhookVerification: Sendable, Equatable {
    /// Index into the secrets list of the first secret whose MAC matched; nil on mismatch.
    public let matchedSecretIndex: Int?
    /// The signature each secret produces for this body, in secrets order. Not secret
    /// themselves (they are what the sender would put in the header), but the CLI shows them
    /// only under `--explain`.
    public let computedSignatures: [WebhookSignature]
    public let bodyLength: UInt64
    public let bodySHA256: [UInt8]

    public var isValid: Bool { matchedSecretIndex != nil }
}

/// The `webhook sign` core: the header value AppDNA would send for a body.
public enum WebhookSigner {
    public static func headerValue<Body: Collection>(body: Body, secret: WebhookSecret) -> String where Body.Element == UInt8 {
        WebhookSignature(digest: HMACSHA256.authenticationCode(for: body, key: secret.bytes)).headerValue
    }
}
