import AppDNACore
import CCurlLoader

/// The real clock: CLOCK_MONOTONIC, CLOCK_REALTIME, and waits that end at once on SIGINT or
/// SIGTERM once `Interruption.install()` ran (they sleep in slices of 50 ms and look).
public struct SystemClock: Clock {
    public init() {}

    public func monotonicNanoseconds() -> Int64 { appdna_monotonic_ns() }

    public func wallMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    public func sleep(_ seconds: Double) {
        let end = monotonicNanoseconds() + Int64(max(0, seconds) * 1e9)
        while appdna_interrupt_signal() == 0 {
            let left = Double(end - monotonicNanoseconds()) / 1e9
            guard left > 0 else { return }
            let slice = min(left, 0.05)
            var request = timespec(tv_sec: Int(slice), tv_nsec: Int((slice - slice.rounded(.down)) * 1e9))
            var remaining = timespec()
            _ = nanosleep(&request, &remaining)
        }
    }
}
