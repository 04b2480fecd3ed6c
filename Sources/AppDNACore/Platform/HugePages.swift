/// Transparent huge pages for large buffers that are filled once from start to end (the bytes
/// of a big input file, a JSON tape): one fault per 2 MiB instead of one per 4 KiB. Where the
/// kernel does not offer them (or they are set to `never`) the hint is ignored.
enum HugePages {
    static let size = 2 << 20
    /// Buffers smaller than this are left alone (the saving is too small to matter).
    static let threshold = 8 << 20

    /// Advises huge pages for the 2 MiB-aligned part of `[base, base + count)`.
    static func advise(_ base: UnsafeMutableRawPointer, count: Int) {
        #if os(Linux)
        guard count >= threshold else { return }
        let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
        let stop = (Int(bitPattern: base) + count) & ~(size - 1)
        guard stop > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, stop - start, 14 /* MADV_HUGEPAGE */)
        #endif
    }
}
