/// The bytes a `JSONParser` reads, and everything that reads them without changing the
/// parser's state: white space, strings (UTF-8 and escapes validated), and errors located by
/// line and column.
///
/// Kept apart from the parser on purpose: the parser is a large struct (its stacks, its tape,
/// its options), and when its mutating parse loop called one of its own non-mutating methods
/// that was not inlined, Swift copied the whole parser (168 bytes) to the stack first, on
/// every object key. This value is three words, passed in registers.
struct JSONInput {
    let base: UnsafePointer<UInt8>
    let end: Int
    /// First byte after a byte-order mark, if there was one.
    let contentStart: Int

    @inline(__always)
    func skipWhitespace(_ start: Int) -> Int {
        var p = start
        while p < end {
            let c = base[p]
            // Space, \t, \n, \r: one compare rejects everything above space.
            guard c <= 0x20, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { break }
            p += 1
            // Pretty-printed files indent with runs of spaces: skip them eight at a time.
            if c == 0x0A {
                while p + 8 <= end && UnsafeRawPointer(base).loadUnaligned(fromByteOffset: p, as: UInt64.self) == 0x2020_2020_2020_2020 {
                    p += 8
                }
            }
        }
        return p
    }

    /// Scans a string from its opening quote; returns the offset after the closing quote and
    /// whether it contains escapes. Validates UTF-8, escapes and the absence of raw controls.
    @inline(__always)
    func scanString(_ quote: Int) throws(JSONSyntaxError) -> (Int, Bool) {
        var p = quote + 1
        var escaped = false
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(base)
        while true {
            // Eight bytes at a time while all are plain printable ASCII (no quote, backslash,
            // control or non-ASCII byte): the usual case for keys and values.
            while p + 8 <= end {
                let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt64.self))
                let q = w ^ (ones &* 0x22)
                let b = w ^ (ones &* 0x5C)
                let special = ((q &- ones) & ~q) | ((b &- ones) & ~b) | ((w &- ones &* 0x20) & ~w) | w
                let flagged = special & highs
                if flagged != 0 {
                    // Go straight to the first special byte. Borrows only run upwards, so the
                    // lowest flagged byte is always a real one (a higher flag may be false).
                    p += flagged.trailingZeroBitCount >> 3
                    break
                }
                p += 8
            }
            guard p < end else { throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end) }
            let c = base[p]
            if c == UInt8(ascii: "\"") { return (p + 1, escaped) }
            if c == UInt8(ascii: "\\") {
                escaped = true
                p = try scanEscape(p, quote: quote)
            } else if c < 0x20 {
                throw fail(.controlCharacterInString(c), at: p)
            } else if c < 0x80 {
                p += 1
            } else {
                p = try scanNonASCIIRun(p)
            }
        }
    }

    /// Validates a run of multi-byte UTF-8 sequences from the lead byte at `p`; returns the
    /// offset of the first ASCII byte after it. Text in one script ("日本語", "спасибо") is runs
    /// of two- and three-byte sequences: the common leads are checked here without a trip back
    /// through the string loop; the rarer ones (E0, ED, four bytes, errors) go to `scanUTF8`.
    @inline(__always)
    func scanNonASCIIRun(_ start: Int) throws(JSONSyntaxError) -> Int {
        var p = start
        while p < end {
            let lead = base[p]
            if lead < 0x80 { return p }
            if lead >= 0xC2 && lead <= 0xDF && p + 1 < end && base[p + 1] & 0xC0 == 0x80 {
                p += 2
            } else if lead >= 0xE1 && lead <= 0xEF && lead != 0xED && p + 2 < end
                        && base[p + 1] & 0xC0 == 0x80 && base[p + 2] & 0xC0 == 0x80 {
                p += 3
            } else {
                p = try scanUTF8(p)
            }
        }
        return p
    }

    /// Validates one escape at the backslash `p`; returns the offset after it.
    func scanEscape(_ p: Int, quote: Int) throws(JSONSyntaxError) -> Int {
        guard p + 1 < end else { throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end) }
        switch base[p + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return p + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(p + 2, escape: p, quote: quote)
            if unit >= 0xDC00 && unit < 0xE000 {
                throw fail(.invalidEscape("lone low surrogate \(escapeText(p, 6))"), at: p)
            }
            guard unit >= 0xD800 && unit < 0xDC00 else { return p + 6 }
            // A high surrogate must be followed at once by an escaped low surrogate.
            let q = p + 6
            if q + 1 < end && base[q] == UInt8(ascii: "\\") && base[q + 1] == UInt8(ascii: "u") {
                let low = try hex4(q + 2, escape: q, quote: quote)
                if low >= 0xDC00 && low < 0xE000 { return q + 6 }
            } else if q >= end || (q + 1 >= end && base[q] == UInt8(ascii: "\\")) {
                throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end)
            }
            throw fail(.invalidEscape("lone high surrogate \(escapeText(p, 6)) is not followed by a low surrogate"), at: p)
        default:
            guard let found = decodeScalar(at: p + 1) else { throw invalidUTF8(at: p + 1) }
            throw fail(.invalidEscape("'\\' followed by \(JSONSyntaxError.describe(found)) is not a JSON escape"), at: p)
        }
    }

    func hex4(_ at: Int, escape: Int, quote: Int) throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard at + k < end else { throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end) }
            guard let d = JSONStringDecoding.hexValue(base[at + k]) else {
                throw fail(.invalidEscape("'\\u' must be followed by four hexadecimal digits"), at: escape)
            }
            v = v << 4 | d
        }
        return v
    }

    func escapeText(_ p: Int, _ n: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: base + p, count: min(n, end - p)), as: UTF8.self)
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte is at `p` (Unicode table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF); returns the offset after it.
    @inline(__always)
    func scanUTF8(_ p: Int) throws(JSONSyntaxError) -> Int {
        let lead = base[p]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw fail(.invalidUTF8(byte: lead), at: p)
        }
        // A sequence cut off by the end of input is reported at its lead byte.
        guard p + length <= end else { throw fail(.invalidUTF8(byte: lead), at: p) }
        // A byte that is no continuation byte at all means the sequence was cut short: that is
        // reported at the lead byte. A continuation byte outside the allowed range (overlong
        // form, surrogate, beyond U+10FFFF) is itself the error.
        let second = base[p + 1]
        guard second & 0xC0 == 0x80 else { throw fail(.invalidUTF8(byte: lead), at: p) }
        guard second >= low && second <= high else { throw fail(.invalidUTF8(byte: second), at: p + 1) }
        var k = 2
        while k < length {
            guard base[p + k] & 0xC0 == 0x80 else { throw fail(.invalidUTF8(byte: lead), at: p) }
            k += 1
        }
        return p + length
    }

    /// The scalar at `p` for an error message, or nil where the bytes are not valid UTF-8.
    func decodeScalar(at p: Int) -> Unicode.Scalar? {
        guard p < end else { return nil }
        let lead = base[p]
        if lead < 0x80 { return Unicode.Scalar(lead) }
        guard let stop = try? scanUTF8(p) else { return nil }
        var value = UInt32(lead) & (stop - p == 2 ? 0x1F : stop - p == 3 ? 0x0F : 0x07)
        for k in (p + 1)..<stop { value = value << 6 | UInt32(base[k] & 0x3F) }
        return Unicode.Scalar(value)
    }

    func locate(_ offset: Int) -> SourceLocation {
        SourceLocation.scan(UnsafeBufferPointer(start: base, count: end), to: offset, contentStart: contentStart)
    }

    @inline(never)
    func fail(_ reason: JSONSyntaxError.Reason, at offset: Int) -> JSONSyntaxError {
        let at = locate(offset)
        return JSONSyntaxError(reason: reason, byteOffset: offset, line: at.line, column: at.column)
    }

    /// A character that does not fit; bytes that are not UTF-8 are reported as such.
    @inline(never)
    func unexpected(at p: Int, expected: String) -> JSONSyntaxError {
        guard let scalar = decodeScalar(at: p) else { return invalidUTF8(at: p) }
        return fail(.unexpectedCharacter(found: scalar, expected: expected), at: p)
    }

    @inline(never)
    func trailing(at p: Int) -> JSONSyntaxError {
        guard let scalar = decodeScalar(at: p) else { return invalidUTF8(at: p) }
        return fail(.trailingContent(found: scalar), at: p)
    }

    @inline(never)
    func invalidUTF8(at p: Int) -> JSONSyntaxError {
        do {
            _ = try scanUTF8(p)
        } catch {
            return error
        }
        return fail(.invalidUTF8(byte: base[p]), at: p)
    }
}
