/// Standard-alphabet Base64 (RFC 4648 §4), padded. Only diagnostics need it: some senders
/// base64-encode the HMAC instead of hex-encoding it, and we want to say so precisely.
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes` with `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)]); out.append(alphabet[Int(n & 63)])
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let n = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 6-bit value of an alphabet character, or nil.
    static func value(of character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(character - UInt8(ascii: "a") + 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(character - UInt8(ascii: "0") + 52)
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    /// Decodes padded or unpadded standard Base64; no whitespace, no URL-safe alphabet.
    public static func decode(_ text: String) throws(Base64DecodingError) -> [UInt8] {
        var input = Array(text.utf8)
        var padding = 0
        while input.last == UInt8(ascii: "=") && padding < 2 {
            input.removeLast()
            padding += 1
        }
        if padding > 0 && (input.count + padding) % 4 != 0 { throw .badPadding }
        if input.count % 4 == 1 { throw .badLength(characters: text.utf8.count) }
        var out = [UInt8]()
        out.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for (offset, character) in input.enumerated() {
            guard let sextet = value(of: character) else {
                throw .invalidCharacter(position: offset + 1)
            }
            accumulator = accumulator << 6 | sextet
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero in canonical Base64; anything else is not what an encoder made.
        if bits > 0 && accumulator & ((1 << UInt32(bits)) - 1) != 0 { throw .badPadding }
        return out
    }
}

/// Why a Base64 string could not be decoded.
public enum Base64DecodingError: ClassifiedError, Equatable {
    case invalidCharacter(position: Int)
    case badLength(characters: Int)
    case badPadding

    public var kind: FailureKind { .malformedInput }

    public var message: String {
        switch self {
        case .invalidCharacter(let position): return "character \(position) is not in the Base64 alphabet"
        case .badLength(let characters): return "\(characters) characters cannot be Base64"
        case .badPadding: return "the Base64 padding is wrong"
        }
    }
}
