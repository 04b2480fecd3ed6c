/// The time a command waits on and measures with. Production uses the system's (`SystemClock`
/// in AppDNANet: its waits end at once on Ctrl-C); tests pass a virtual one that advances
/// instantly and records every wait, so back-off and Retry-After are tested without sleeping.
public protocol Clock: Sendable {
    /// Monotonic nanoseconds: deadlines and durations.
    func monotonicNanoseconds() -> Int64
    /// Milliseconds since 1970 (UTC): Retry-After dates and timestamps written to files.
    func wallMilliseconds() -> Int64
    /// Waits `seconds` (a real clock may end the wait early when the process is interrupted).
    func sleep(_ seconds: Double)
}
