/// What the sender actually supplied, as far as it could be decoded — including the wrong
/// kinds. Verification only ever accepts `.sha256`; the other cases exist so the mismatch
/// explainer can compare a SHA-1 or base64 signature and name the sender's mistake.
public enum ProvidedSignature: Sendable, Equatable {
    /// A well-formed `sha256=<64 hex>` value.
    case sha256([UInt8])
    /// A 40-hex value (with or without `sha1=`): 20 bytes, presumably HMAC-SHA1.
    case sha1([UInt8])
    /// A base64 value and the bytes it decodes to.
    case base64([UInt8])
    /// Nothing comparable could be recovered (wrong length, stray characters, empty).
    case unusable

    /// Classifies a header value without throwing; use `WebhookSignature.parse` for the error.
    public init(headerValue: String) {
        do {
            self = .sha256(try WebhookSignature.parse(headerValue).digest)
        } catch {
            switch error.problem {
            case .sha1(let digest?): self = .sha1(digest)
            case .base64(let decoded?): self = .base64(decoded)
            default: self = .unusable
            }
        }
    }

    /// The raw bytes to compare, whatever their encoding.
    public var bytes: [UInt8]? {
        switch self {
        case .sha256(let bytes), .sha1(let bytes), .base64(let bytes): return bytes
        case .unusable: return nil
        }
    }
}
