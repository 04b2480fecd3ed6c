/// Finds the lines that contain `appdna_removed` in a chunk at memory speed: eight bytes at a
/// time for `_`, then two word compares around each one (a queue has a few underscores per
/// event and, usually, no tombstones at all).
enum TombstoneSearch {
    /// Calls `body` with each line (without `\n` and a `\r` before it) containing the key, and
    /// the line's offset in `region`; lines as `LineReader` splits them.
    static func forEachLine(containing region: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) -> Void) {
        guard let base = region.baseAddress else { return }
        let n = region.count
        // "appdna_r" and "_removed" as little-endian words; the underscore is byte 6.
        let head = UnsafeRawPointer(("appdna_removed" as StaticString).utf8Start).loadUnaligned(as: UInt64.self)
        let tail = UnsafeRawPointer(("appdna_removed" as StaticString).utf8Start).loadUnaligned(fromByteOffset: 6, as: UInt64.self)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var p = 0
        func hit(at i: Int) -> Bool {
            i >= 6 && i + 8 <= n
                && base.loadUnaligned(fromByteOffset: i - 6, as: UInt64.self) == head
                && base.loadUnaligned(fromByteOffset: i, as: UInt64.self) == tail
        }
        func report(_ i: Int) -> Int {
            var start = i - 6
            while start > 0 && base.load(fromByteOffset: start - 1, as: UInt8.self) != 10 { start -= 1 }
            var end = n
            if let newline = RawMemory.firstIndex(of: 10, in: base + i, count: n - i) { end = UnsafeRawPointer(newline) - base }
            var stop = end
            if stop > start && base.load(fromByteOffset: stop - 1, as: UInt8.self) == 13 { stop -= 1 }
            body(UnsafeRawBufferPointer(start: base + start, count: stop - start), start)
            return end + 1
        }
        scan: while p + 8 <= n {
            let x = base.loadUnaligned(fromByteOffset: p, as: UInt64.self) ^ (ones &* 0x5F)
            // A high bit exactly where x has a zero byte (no false positives).
            var zeros = ~(((x & low7) &+ low7) | x | low7)
            while zeros != 0 {
                let i = p + zeros.trailingZeroBitCount >> 3
                if hit(at: i) {
                    p = report(i)
                    continue scan
                }
                zeros &= zeros &- 1
            }
            p += 8
        }
        while p < n {
            if base.load(fromByteOffset: p, as: UInt8.self) == 0x5F && hit(at: p) {
                p = report(p)
                continue
            }
            p += 1
        }
    }
}
