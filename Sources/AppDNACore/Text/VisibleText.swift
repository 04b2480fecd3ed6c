/// Text from data (a bundle, a queue, a request, a response) as a person reads it: every
/// character that would act on a terminal or a log instead of showing is written as a visible
/// escape. The one escaping function of the human-readable output; `OutputSink` applies it to
/// everything a command writes as text, so a command does not call it itself.
///
/// Escaped: the C0 controls (`\n`, `\r`, `\t`, `\x1B` …), DEL (`\x7F`), the C1 controls
/// (`\u0085`, `\u009B` …), the Unicode bidi controls (`\u202E`, `\u2066` …, which reorder
/// what a reader sees), the line and paragraph separators (`\u2028`, `\u2029`, which some log
/// viewers break lines at) and the noncharacters the output sink uses as its own markers
/// (`\uFDD0` …). With `asciiOnly` (a locale that is not UTF-8) every other non-ASCII character
/// is escaped too (`\u00E9`, `\U0001F600`): data stays data, never transliterated.
///
/// A backslash is left as it is: a bundle can spell `\n` literally, which then reads like the
/// escape of a line feed but does nothing. Machine formats (JSON, TSV, SQL, `--format github`)
/// have their own escaping and do not use this.
public enum VisibleText {
    /// `text` with the characters above escaped.
    public static func escaped(_ text: String, asciiOnly: Bool = false) -> String {
        var text = text
        return text.withUTF8 { raw in
            guard let first = firstEscape(in: UnsafeRawBufferPointer(raw), asciiOnly: asciiOnly) else { return String(decoding: raw, as: UTF8.self) }
            var out: [UInt8] = Array(raw[..<first])
            out.reserveCapacity(raw.count + 16)
            append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(raw)[first...]), to: &out, asciiOnly: asciiOnly)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Appends `bytes` (UTF-8) to `out`, escaped.
    public static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8], asciiOnly: Bool) {
        var i = 0
        let n = bytes.count
        while i < n {
            let byte = bytes[i]
            if byte < 0x80 {
                if byte < 0x20 || byte == 0x7F { appendControl(byte, to: &out) } else { out.append(byte) }
                i += 1
                continue
            }
            if byte < 0xC0 || byte >= 0xF8 {  // not a lead byte (a String never has one here)
                out.append(contentsOf: [92, 120]); appendHex(UInt32(byte), digits: 2, to: &out)
                i += 1
                continue
            }
            let (scalar, length) = decode(bytes, at: i)
            if asciiOnly || mustEscape(scalar) {
                appendUnicodeEscape(scalar, to: &out)
            } else {
                out.append(contentsOf: bytes[i..<(i + length)])
            }
            i += length
        }
    }

    /// The offset of the first byte that starts a character to escape, nil when there is none
    /// (the usual case, checked without decoding: only a few lead bytes can start one).
    public static func firstEscape(in bytes: UnsafeRawBufferPointer, asciiOnly: Bool) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let byte = bytes[i]
            if byte < 0x20 || byte == 0x7F { return i }
            if byte >= 0x80 {
                if asciiOnly { return i }
                if mayStartEscape[Int(byte)] {
                    let (scalar, length) = decode(bytes, at: i)
                    if mustEscape(scalar) { return i }
                    i += length
                    continue
                }
            }
            i += 1
        }
        return nil
    }

    /// Whether a non-ASCII scalar is escaped whatever the locale.
    @inline(__always)
    public static func mustEscape(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x80...0x9F: return true                                  // C1 controls
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidi controls
        case 0x2028, 0x2029: return true                               // line / paragraph separator
        case 0xFDD0...0xFDEF: return true                              // noncharacters (the sink's markers)
        default: return false
        }
    }

    /// UTF-8 lead bytes of the scalars `mustEscape` names: C2 (C1), D8 (U+061C), E2 (U+20xx), EF (U+FDxx).
    public static let mayStartEscape: [Bool] = (0..<256).map { [0xC2, 0xD8, 0xE2, 0xEF].contains($0) }

    /// `\n`, `\r`, `\t`, or `\x1B` for the other C0 controls and DEL.
    @inline(__always)
    static func appendControl(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case 10: out.append(contentsOf: [92, 110])
        case 13: out.append(contentsOf: [92, 114])
        case 9: out.append(contentsOf: [92, 116])
        default: out.append(contentsOf: [92, 120]); appendHex(UInt32(byte), digits: 2, to: &out)
        }
    }

    /// `\u202E` for a BMP scalar, `\U0001F600` beyond it.
    static func appendUnicodeEscape(_ scalar: UInt32, to out: inout [UInt8]) {
        if scalar <= 0xFFFF {
            out.append(contentsOf: [92, 117])
            appendHex(scalar, digits: 4, to: &out)
        } else {
            out.append(contentsOf: [92, 85])
            appendHex(scalar, digits: 8, to: &out)
        }
    }

    static func appendHex(_ value: UInt32, digits: Int, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) { out.append(hex[Int((value >> UInt32(shift)) & 15)]) }
    }

    /// The scalar starting at `i` in valid UTF-8, and its length in bytes.
    @inline(__always)
    public static func decode(_ bytes: UnsafeRawBufferPointer, at i: Int) -> (UInt32, Int) {
        let lead = bytes[i]
        let n = bytes.count
        func continuation(_ k: Int) -> UInt32 { i + k < n ? UInt32(bytes[i + k] & 0x3F) : 0 }
        switch lead {
        case 0xC0..<0xE0: return (UInt32(lead & 0x1F) << 6 | continuation(1), min(2, n - i))
        case 0xE0..<0xF0: return (UInt32(lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2), min(3, n - i))
        case 0xF0...: return (UInt32(lead & 0x07) << 18 | continuation(1) << 12 | continuation(2) << 6 | continuation(3), min(4, n - i))
        default: return (UInt32(lead), 1)
        }
    }
}
