#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Limits the system puts on this process, for the servers to size their budgets within.
/// `RLIMIT_AS` is 9 on Linux and 5 on Darwin (xnu bsd/sys/resource.h: "address space (resident
/// set size)", with `RLIMIT_RSS` an alias of it); glibc's constant is an enum value
/// (`__rlimit_resource`) with a `rawValue`, musl's and Darwin's plain integers.
public enum ProcessLimits {
    /// The address space the process may map (`ulimit -v`, in bytes); nil when unlimited or
    /// unknown. Every thread's stack and every allocation counts against it, and a Swift
    /// allocation that fails stops the process: a server must stay well inside it.
    public static var addressSpaceBytes: Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_AS, &limit)
        #endif
        guard status == 0 else { return nil }
        // RLIM_INFINITY is all ones on Linux and 2^63 - 1 on Darwin: both read as "none".
        let current = UInt64(limit.rlim_cur)
        return current >= UInt64(Int.max) ? nil : Int(current)
    }

    /// glibc's malloc gives threads arenas of their own, each reserving 64 MiB of address space
    /// (HEAP_MAX_SIZE), up to 8 per core: 16 of them take 1 GiB before a byte is used, and
    /// under `ulimit -v` that is what runs out first. Within `bytes` of address space this caps
    /// them (`mallopt(M_ARENA_MAX)`) at one per 512 MiB, one at least. Looked up with `dlsym`:
    /// Swift's Glibc module does not import malloc.h. musl has no arenas, Darwin's allocator
    /// reserves no such regions: nothing to do there.
    public static func fitMallocArenas(toAddressSpace bytes: Int) {
        #if canImport(Glibc) // Linux-only tuning: glibc's arenas; musl and Darwin reserve no such regions
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let arenaMax: Int32 = -8   // M_ARENA_MAX, glibc malloc/malloc.h
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, Int32(clamping: max(1, bytes / (512 << 20))))
        #endif
    }
}
