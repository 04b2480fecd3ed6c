/// Hexadecimal text for digests: lower-case out (what `sha256sum` and AppDNA print), either
/// case in (senders differ), with errors that say which character is wrong and where.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Lower-case hex of `bytes`.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text = [UInt8]()
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The value of one hex digit, or nil.
    @inline(__always)
    public static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Decodes `text` (upper- or lower-case, no separators, no prefix).
    public static func decode(_ text: String) throws(HexDecodingError) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        var offset = 0
        for character in text {
            offset += 1
            guard character.isASCII, let ascii = character.asciiValue, let nibble = value(of: ascii) else {
                throw .invalidCharacter(character, position: offset)
            }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        if high != nil { throw .oddLength(digits: offset) }
        return bytes
    }
}

/// Why a hex string could not be decoded. Positions count characters from 1, as a user would.
public enum HexDecodingError: ClassifiedError, Equatable {
    case invalidCharacter(Character, position: Int)
    case oddLength(digits: Int)

    public var kind: FailureKind { .malformedInput }

    public var message: String {
        switch self {
        case .invalidCharacter(let character, let position):
            return "\(CharacterDescription.describe(character)) at position \(position) is not a hex digit (0-9, a-f)"
        case .oddLength(let digits):
            return "\(digits) hex digits is an odd number; every byte takes two"
        }
    }
}

/// How to name a character in an error message so that invisible ones are still visible.
enum CharacterDescription {
    static func describe(_ character: Character) -> String {
        switch character {
        case " ": return "a space"
        case "\t": return "a tab"
        case "\n": return "a line feed"
        case "\r": return "a carriage return"
        default:
            if let scalar = character.unicodeScalars.first,
               character.unicodeScalars.count == 1,
               scalar.value < 0x20 || scalar.value == 0x7f || scalar.properties.isWhitespace {
                let code = String(scalar.value, radix: 16, uppercase: true)
                return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
            }
            return "'\(character)'"
        }
    }
}
