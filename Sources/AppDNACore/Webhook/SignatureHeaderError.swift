/// Why a signature header value is not a usable `sha256=<64 hex>`.
///
/// The messages are written for the person debugging a webhook receiver: they name the mistake
/// ("this is a SHA-1 signature") rather than just "invalid". Signatures are not secret, but the
/// messages still do not echo the whole value: lengths and positions are enough.
public struct SignatureHeaderError: ClassifiedError, Equatable {
    public enum Problem: Sendable, Equatable {
        case empty
        /// `sha256=` with nothing after it.
        case emptyAfterScheme
        /// `sha1=…` or a bare 40-hex value; the digest when it decoded to 20 bytes.
        case sha1(digest: [UInt8]?)
        /// Base64 instead of hex; the decoded bytes when they decoded.
        case base64(decoded: [UInt8]?)
        /// All hex digits, but not 64 of them.
        case wrongLength(hexDigits: Int)
        /// A character that is not a hex digit, at a 1-based position in the value after the prefix.
        case nonHex(Character, position: Int, length: Int)
        /// `md5=…` and the like.
        case unknownScheme(String)
        /// `--header` text without a colon.
        case notAHeaderLine
        /// `--header` naming some other header.
        case wrongHeaderName(String)
    }

    public let problem: Problem

    public init(_ problem: Problem) {
        self.problem = problem
    }

    public var kind: FailureKind { .malformedInput }

    public var message: String {
        switch problem {
        case .empty:
            return "the signature is empty"
        case .emptyAfterScheme:
            return "the signature has a 'sha256=' prefix but no hex digits after it"
        case .sha1:
            return "this is a SHA-1 signature; AppDNA signs with HMAC-SHA256 (expected sha256= and 64 hex digits)"
        case .base64(let decoded):
            let size = decoded.map { "; it decodes to \($0.count) bytes" } ?? ""
            return "the signature looks like base64; AppDNA sends hex (sha256= and 64 hex digits)\(size)"
        case .wrongLength(let digits):
            return "the signature has \(digits) hex digit\(digits == 1 ? "" : "s"); an HMAC-SHA256 signature has 64"
        case .nonHex(let character, let position, let length):
            return "the signature has \(CharacterDescription.describe(character)) at position \(position) of \(length), which is not a hex digit"
        case .unknownScheme(let scheme):
            return "unknown signature scheme '\(scheme)='; AppDNA signs with sha256="
        case .notAHeaderLine:
            return "expected a header line 'X-AppDNA-Signature: sha256=<hex>' (no colon found)"
        case .wrongHeaderName(let name):
            return "header '\(name)' is not X-AppDNA-Signature"
        }
    }

    public var remedy: Remedy? {
        switch problem {
        case .wrongHeaderName(let name) where name.lowercased().hasPrefix("x-hub-signature"): return nil
        case .wrongHeaderName, .notAHeaderLine: return .signature
        default: return nil
        }
    }

    public var hint: String? {
        switch problem {
        case .sha1:
            return "compute HMAC-SHA256 of the raw body with the endpoint's signing secret"
        case .base64:
            return "hex-encode the HMAC-SHA256 instead of base64-encoding it"
        case .wrongHeaderName(let name) where name.lowercased().hasPrefix("x-hub-signature"):
            return "that is GitHub's header; AppDNA's is X-AppDNA-Signature"
        case .wrongHeaderName, .notAHeaderLine:
            return nil  // see `remedy`: the CLI names its flags that give a signature
        case .wrongLength:
            return "check that the whole header value was copied"
        default:
            return nil
        }
    }
}
