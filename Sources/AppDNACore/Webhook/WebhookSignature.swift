/// The value of an `X-AppDNA-Signature` header: `sha256=<64 hex>` or a bare 64-hex value.
///
/// Parsing is strict (anything else is a typed error that says what was given), but the errors
/// keep whatever could still be decoded — a SHA-1 digest, a base64-encoded MAC — so the
/// mismatch explainer can compare it and tell the user exactly which mistake the sender made.
public struct WebhookSignature: Sendable, Equatable {
    /// The header AppDNA sends; matched case-insensitively, as HTTP header names are.
    public static let headerName = "X-AppDNA-Signature"

    /// The 32 bytes of the HMAC-SHA256.
    public let digest: [UInt8]

    public init(digest: [UInt8]) {
        self.digest = digest
    }

    /// The header value AppDNA would send for this digest.
    public var headerValue: String { "sha256=" + Hex.encode(digest) }

    /// Parses a header value.
    public static func parse(_ value: String) throws(SignatureHeaderError) -> WebhookSignature {
        let text = HeaderText.trimmed(value)
        if text.isEmpty { throw SignatureHeaderError(.empty) }

        var payload = text
        var scheme: String? = nil
        if let split = schemeSplit(text) {
            scheme = split.scheme
            payload = split.payload
        }
        switch scheme?.lowercased() {
        case nil, "sha256":
            break
        case "sha1":
            throw SignatureHeaderError(.sha1(digest: hexDigest(payload, byteCount: 20)))
        case let other?:
            throw SignatureHeaderError(.unknownScheme(other))
        }
        if payload.isEmpty { throw SignatureHeaderError(.emptyAfterScheme) }

        // All hex: the only question left is the length.
        if let bytes = try? Hex.decode(payload) {
            if bytes.count == 32 { return WebhookSignature(digest: bytes) }
            if bytes.count == 20 { throw SignatureHeaderError(.sha1(digest: bytes)) }
            throw SignatureHeaderError(.wrongLength(hexDigits: payload.count))
        }
        if payload.allSatisfy({ $0.isASCII && $0.isHexDigit }) {
            // Odd number of hex digits.
            throw SignatureHeaderError(.wrongLength(hexDigits: payload.count))
        }
        if looksLikeBase64(payload) {
            throw SignatureHeaderError(.base64(decoded: try? Base64.decode(payload)))
        }
        var position = 0
        for character in payload {
            position += 1
            if !(character.isASCII && character.isHexDigit) {
                throw SignatureHeaderError(.nonHex(character, position: position, length: payload.count))
            }
        }
        // Unreachable: a payload that fails hex decoding has a non-hex character or odd length.
        throw SignatureHeaderError(.wrongLength(hexDigits: payload.count))
    }

    /// Parses a whole header line, `X-AppDNA-Signature: sha256=…`, as given to `--header`.
    public static func parse(headerLine line: String) throws(SignatureHeaderError) -> WebhookSignature {
        guard let colon = line.firstIndex(of: ":") else {
            throw SignatureHeaderError(.notAHeaderLine)
        }
        let name = HeaderText.trimmed(String(line[..<colon]))
        guard HeaderName.same(name, headerName) else {
            throw SignatureHeaderError(.wrongHeaderName(name))
        }
        return try parse(String(line[line.index(after: colon)...]))
    }

    /// `name=payload` when the text starts with a short scheme name. A base64 value's `=`
    /// padding comes only at the end, so it is never mistaken for a scheme.
    static func schemeSplit(_ text: String) -> (scheme: String, payload: String)? {
        guard let equals = text.firstIndex(of: "=") else { return nil }
        let scheme = text[..<equals]
        let payload = text[text.index(after: equals)...]
        guard !scheme.isEmpty, scheme.count <= 16,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
              !payload.allSatisfy({ $0 == "=" }) || payload.isEmpty
        else { return nil }
        // "abcd=" with nothing after it is padding, not a scheme, unless it names a known one.
        if payload.isEmpty && !["sha256", "sha1"].contains(scheme.lowercased()) { return nil }
        return (String(scheme), String(payload))
    }

    /// Base64 rather than hex: only alphabet characters, a plausible length, and either a
    /// character hex never has (`+`, `/`, `=`, g–z) in the shape of a 20- or 32-byte digest,
    /// or explicit padding.
    static func looksLikeBase64(_ payload: String) -> Bool {
        let bytes = Array(payload.utf8)
        guard bytes.allSatisfy({ Base64.value(of: $0) != nil || $0 == UInt8(ascii: "=") }) else { return false }
        let stripped = bytes.count - bytes.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        if stripped < bytes.count { return bytes.count % 4 == 0 }
        // Unpadded: only the lengths of a base64 SHA-256 (43) or SHA-1 (27) MAC.
        return stripped == 43 || stripped == 27
    }

    static func hexDigest(_ text: String, byteCount: Int) -> [UInt8]? {
        guard let bytes = try? Hex.decode(text), bytes.count == byteCount else { return nil }
        return bytes
    }
}
