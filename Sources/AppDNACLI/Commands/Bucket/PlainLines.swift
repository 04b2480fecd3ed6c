/// The lines of a chunk of the batch's input, split as `LineChunk.forEachLine` does (`\n` ends a
/// line, a `\r` before it is not part of it, a last line needs no `\n`), and says of each line
/// whether it is *plain*: printable ASCII without `"`, `,` or `\`. A plain line is an id (not
/// blank, valid UTF-8) that every output format writes as it is (TSV escapes nothing in it,
/// CSV does not quote it, a JSON string holds it unescaped), so the rows need not look at it
/// again. One pass, eight bytes at a time, finds the line's end and decides this: the batch's
/// ids are nearly all plain, and looking for the newline, checking UTF-8 and checking for
/// escapes one after another cost more than hashing and formatting the row.
struct PlainLines {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of each byte of `word` that is not plain (below 0x20, 0x7F and above, or
    /// `"` `,` `\`). Borrows may also mark bytes above a marked one, never below it: the lowest
    /// mark is exact, and only the lowest is used.
    @inline(__always)
    static func notPlain(_ word: UInt64) -> UInt64 {
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x }
        let control = (word &- ones &* 0x20) & ~word
        return (word | control | zeroBytes(word ^ (ones &* 0x7F)) | zeroBytes(word ^ (ones &* 0x22))
                | zeroBytes(word ^ (ones &* 0x2C)) | zeroBytes(word ^ (ones &* 0x5C))) & highs
    }

    @inline(__always)
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x2C && byte != 0x5C
    }

    private let base: UnsafeRawPointer?
    private let count: Int
    /// Where the next line starts.
    private var start = 0

    init(_ region: UnsafeRawBufferPointer) {
        base = region.baseAddress
        count = region.count
    }

    /// The next line (without its line end) and whether it is plain; nil after the last.
    @inline(__always)
    mutating func next() -> (line: UnsafeRawBufferPointer, plain: Bool)? {
        guard let base, start < count else { return nil }
        let n = count, first = start
        // Plain bytes from `first` up to `p`; then the first byte that is not.
        var p = first
        var stop = -1
        while p &+ 8 <= n {
            let marks = Self.notPlain(base.loadUnaligned(fromByteOffset: p, as: UInt64.self))
            if marks != 0 {
                stop = p &+ marks.trailingZeroBitCount / 8
                break
            }
            p &+= 8
        }
        if stop < 0 {
            stop = p
            while stop < n && Self.isPlain(base.load(fromByteOffset: stop, as: UInt8.self)) { stop &+= 1 }
        }
        if stop == n {
            // The last line, without a line end.
            start = n
            return (UnsafeRawBufferPointer(start: base + first, count: n &- first), true)
        }
        if base.load(fromByteOffset: stop, as: UInt8.self) == 10 {
            start = stop &+ 1
            return (UnsafeRawBufferPointer(start: base + first, count: stop &- first), stop > first)
        }
        // Not plain: find the line's end the plain way.
        var end = stop
        while end < n && base.load(fromByteOffset: end, as: UInt8.self) != 10 { end &+= 1 }
        var length = end &- first
        if length > 0 && base.load(fromByteOffset: end &- 1, as: UInt8.self) == 13 { length &-= 1 }
        start = end &+ 1
        return (UnsafeRawBufferPointer(start: base + first, count: length), false)
    }
}
