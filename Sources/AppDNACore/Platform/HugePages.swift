#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Transparent huge pages for large buffers that are filled once from start to end and never
/// grown (the bytes of a big input file): one fault per 2 MiB instead of one per 4 KiB.
///
/// The advice is given only where the kernel's mode is `madvise` (huge pages on request).
/// Where it is `always`, every large buffer gets huge pages anyway and the advice only does
/// harm: advising the 2 MiB-aligned middle of a malloc'd block splits its mapping in three,
/// so glibc's `realloc` can no longer move it with mremap (the call fails with EFAULT) and
/// falls back to copying: peak memory old + new and every page faulted twice. That is what
/// made the JSON tape of a 25 MB bundle of small numbers cost 190 MB and the run time swing.
/// With `defrag` set to `madvise`, advised regions also wait for memory compaction on a
/// fault. Never advise part of a buffer that will be reallocated (the JSON tape gets a mapping
/// of its own instead: `GrowableMapping`).
enum HugePages {
    static let size = 2 << 20
    /// Buffers smaller than this are left alone (the saving is too small to matter).
    static let threshold = 8 << 20

    /// Whether huge pages must be asked for: the kernel's mode is `[madvise]`.
    static let adviceHelps: Bool = {
        #if os(Linux)
        guard let mode = try? FileReading.readAll(path: "/sys/kernel/mm/transparent_hugepage/enabled") else { return false }
        return String(decoding: mode, as: UTF8.self).contains("[madvise]")
        #else
        return false
        #endif
    }()

    /// Advises huge pages for the 2 MiB-aligned part of `[base, base + count)`.
    static func advise(_ base: UnsafeMutableRawPointer, count: Int) {
        #if os(Linux) // Linux-only tuning: Darwin has no transparent huge pages to ask for
        guard count >= threshold, adviceHelps else { return }
        let start = (Int(bitPattern: base) + size - 1) & ~(size - 1)
        let stop = (Int(bitPattern: base) + count) & ~(size - 1)
        guard stop > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, stop - start, 14 /* MADV_HUGEPAGE */)
        #endif
    }
}
