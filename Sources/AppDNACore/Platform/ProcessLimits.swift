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
}
