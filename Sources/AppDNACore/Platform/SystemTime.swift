#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's clocks: the one place they are read. Commands take their time from the injected
/// `Clock` (`SystemClock` in production); these are what it reads. `clock_gettime` and the
/// `CLOCK_MONOTONIC` / `CLOCK_REALTIME` ids are the same on glibc, musl and Darwin (Libc's
/// include/time.h, macOS 10.12+).
public enum SystemTime {
    /// CLOCK_MONOTONIC in nanoseconds: deadlines and durations.
    public static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// CLOCK_REALTIME in milliseconds since 1970 (UTC).
    public static func wallMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Sleeps `seconds`, resuming after a signal handler ran (EINTR), so the whole time passes.
    public static func sleep(_ seconds: Double) {
        guard seconds > 0 else { return }
        let whole = seconds.rounded(.down)
        var request = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}
