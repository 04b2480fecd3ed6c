/// Turns the bytes between a string's quotes into the UTF-8 of its value. Only called for
/// strings the parser already validated, so malformed escapes cannot occur here; strings are
/// decoded lazily, when a caller asks for them, never during parsing.
enum JSONStringDecoding {
    /// Appends the decoded value of `bytes[start..<end]` (the content without quotes).
    static func appendUnescaped(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, into out: inout [UInt8]) {
        var i = start
        var runStart = start
        while i < end {
            guard bytes[i] == UInt8(ascii: "\\") else { i += 1; continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
            let e = bytes[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(bytes, i)
                i += 4
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    // The parser guaranteed a low surrogate escape follows.
                    let low = hex4(bytes, i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &out)
            default: out.append(e)  // '"', '\\' and '/' stand for themselves
            }
            runStart = i
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<end]))
    }

    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, escaped: Bool) -> String {
        if !escaped { return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(end - start)
        appendUnescaped(bytes, from: start, to: end, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(c &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(c &- UInt8(ascii: "A") &+ 10)
        default: return nil
        }
    }

    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 { v = v << 4 | (hexValue(bytes[at + k]) ?? 0) }
        return v
    }

    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case ..<0x80:
            out.append(UInt8(v))
        case ..<0x800:
            out.append(UInt8(0xC0 | v >> 6)); out.append(UInt8(0x80 | v & 0x3F))
        case ..<0x10000:
            out.append(UInt8(0xE0 | v >> 12)); out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        default:
            out.append(UInt8(0xF0 | v >> 18)); out.append(UInt8(0x80 | v >> 12 & 0x3F))
            out.append(UInt8(0x80 | v >> 6 & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        }
    }
}
