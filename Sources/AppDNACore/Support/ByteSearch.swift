/// `memmem` without relying on the GNU extension being visible: memchr for the first byte,
/// memcmp for the rest.
enum ByteSearch {
    /// Offset of the first occurrence of `needle` in `haystack`, or nil.
    static func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count, let base = haystack.baseAddress else {
            return needle.isEmpty ? 0 : nil
        }
        return needle.withUnsafeBytes { n -> Int? in
            var offset = 0
            let last = haystack.count - needle.count
            while offset <= last {
                guard let hit = RawMemory.firstIndex(of: first, in: base + offset, count: last - offset + 1) else { return nil }
                let at = UnsafeRawPointer(hit) - base
                if RawMemory.compare(base + at, n.baseAddress!, count: needle.count) == 0 { return at }
                offset = at + 1
            }
            return nil
        }
    }
}
