import AppDNACore

/// Whether a row's text field may hold a byte its format escapes, eight bytes at a time: the
/// batch asks this of every id it writes, and ids almost never hold one. A true answer is
/// checked byte by byte by the caller (`BucketBatch`); a false one is exact.
enum FieldScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// TSV escapes a backslash and what `VisibleText` escapes: C0 controls, DEL, and C1, bidi
    /// and separator characters (none of them ASCII). So: a byte below 0x20, DEL, a backslash,
    /// or any byte beyond ASCII.
    @inline(__always)
    static func mayNeedTSVEscape(_ field: UnsafeRawBufferPointer) -> Bool {
        guard let base = field.baseAddress else { return false }
        let count = field.count
        let space = ones &* 0x20, del = ones &* 0x7F, backslash = ones &* 0x5C
        var index = 0
        while index &+ 8 <= count {
            let w = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let xd = w ^ del, xb = w ^ backslash
            if (w | ((w &- space) & ~w) | ((xd &- ones) & ~xd) | ((xb &- ones) & ~xb)) & highs != 0 { return true }
            index &+= 8
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte < 0x20 || byte >= 0x7F || byte == 0x5C { return true }
            index &+= 1
        }
        return false
    }

    /// CSV quotes a field holding a comma or a quote. The field was escaped as TSV escapes it
    /// first, so it holds no CR or LF; a byte below 14 still counts here (it costs nothing in
    /// the word), and the caller's byte check settles it.
    @inline(__always)
    static func mayNeedCSVQuotes(_ field: UnsafeRawBufferPointer) -> Bool {
        scan(field, equalTo: 44, or: 34)
    }

    /// Whether some byte is below 14, `a` or `b`.
    @inline(__always)
    private static func scan(_ field: UnsafeRawBufferPointer, equalTo a: UInt8, or b: UInt8) -> Bool {
        guard let base = field.baseAddress else { return false }
        let count = field.count
        let wa = ones &* UInt64(a), wb = ones &* UInt64(b), low = ones &* 14
        var index = 0
        while index &+ 8 <= count {
            let w = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // A byte below 14, or equal to a or b (a zero byte after the xor), sets its high bit.
            let below = (w &- low) & ~w
            let xa = w ^ wa, xb = w ^ wb
            if (below | ((xa &- ones) & ~xa) | ((xb &- ones) & ~xb)) & highs != 0 { return true }
            index &+= 8
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte < 14 || byte == a || byte == b { return true }
            index &+= 1
        }
        return false
    }
}
