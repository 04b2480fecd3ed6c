/// The real clock: CLOCK_MONOTONIC, CLOCK_REALTIME, and waits that end at once on SIGINT or
/// SIGTERM once `Interruption.install()` ran. Every command reads the time through the
/// `Clock` it is given (`CommandIO.clock`), this one in production.
public struct SystemClock: Clock {
    public init() {}

    public func monotonicNanoseconds() -> Int64 { SystemTime.monotonicNanoseconds() }

    public func wallMilliseconds() -> Int64 { SystemTime.wallMilliseconds() }

    public func sleep(_ seconds: Double) { Interruption.sleep(seconds) }
}
