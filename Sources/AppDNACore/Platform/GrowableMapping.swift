#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for one buffer that grows while it is filled and is then cut to fit: the JSON tape.
///
/// A large one (from `HugePages.threshold`) on Linux is a mapping of its own, advised into
/// transparent huge pages as a whole, so nothing is split (advising part of a malloc'd block is
/// what `HugePages` warns against). The tape of a 12 MB bundle took 3,500 page faults in 4 KiB
/// pages, about a tenth of `bundle validate`'s time on this machine; in 2 MiB pages it takes a
/// handful. Growing maps a bigger block and copies (rare: the first size is an estimate above
/// what most documents need); cutting to fit unmaps the unused tail, which copies nothing.
/// Small buffers, other systems, and kernels that give huge pages to every large block anyway
/// get plain malloc and realloc.
struct GrowableMapping {
    private(set) var base: UnsafeMutableRawPointer
    /// How many bytes `base` has (at least what was asked for).
    private(set) var capacity: Int
    /// Whether this is a mapping of its own rather than a malloc'd block.
    private let isMapped: Bool

    /// Memory for at least `byteCount` bytes; nil when memory ran out.
    init?(byteCount: Int) {
        #if os(Linux) // Linux-only tuning: transparent huge pages exist only there; elsewhere malloc
        if byteCount >= HugePages.threshold && HugePages.adviceHelps {
            let size = GrowableMapping.roundedToPages(byteCount)
            guard let raw = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                  raw != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
            _ = madvise(raw, size, 14 /* MADV_HUGEPAGE */)
            (base, capacity, isMapped) = (raw, size, true)
            return
        }
        #endif
        guard let raw = RawMemory.reallocate(nil, byteCount: max(byteCount, 1)) else { return nil }
        (base, capacity, isMapped) = (raw, max(byteCount, 1), false)
    }

    /// Makes room for at least `byteCount` bytes, keeping the first `used`; false (and nothing
    /// changed) when memory ran out. The memory may move.
    mutating func grow(to byteCount: Int, keeping used: Int) -> Bool {
        guard isMapped else {
            guard let raw = RawMemory.reallocate(base, byteCount: byteCount) else { return false }
            (base, capacity) = (raw, byteCount)
            return true
        }
        guard let bigger = GrowableMapping(byteCount: byteCount) else { return false }
        bigger.base.copyMemory(from: base, byteCount: used)
        free()
        self = bigger
        return true
    }

    /// Gives back what lies beyond the first `byteCount` bytes. The memory may move (realloc).
    mutating func shrink(to byteCount: Int) {
        let kept = max(byteCount, 1)
        #if os(Linux) // Linux-only tuning: transparent huge pages exist only there; elsewhere malloc
        if isMapped {
            let size = GrowableMapping.roundedToPages(kept)
            if size < capacity {
                _ = munmap(base + size, capacity - size)
                capacity = size
            }
            return
        }
        #endif
        if let raw = RawMemory.reallocate(base, byteCount: kept) { (base, capacity) = (raw, kept) }
    }

    func free() {
        #if os(Linux) // Linux-only tuning: transparent huge pages exist only there; elsewhere malloc
        if isMapped {
            _ = munmap(base, capacity)
            return
        }
        #endif
        RawMemory.free(base)
    }

    #if os(Linux) // Linux-only tuning: transparent huge pages exist only there; elsewhere malloc
    private static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

    private static func roundedToPages(_ byteCount: Int) -> Int {
        (byteCount + pageSize - 1) / pageSize * pageSize
    }
    #endif
}
