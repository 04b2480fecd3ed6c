import AppDNACore

/// A point on the monotonic clock by which a whole operation (retries included) must end.
public struct Deadline: Sendable {
    /// CLOCK_MONOTONIC nanoseconds.
    public let nanoseconds: Int64
    /// The budget it was made from, for messages ("within 60 s").
    public let budgetSeconds: Double

    /// The clock it is measured on (a virtual one in tests). `CurlTransport` hands
    /// `nanoseconds` to curl's progress callback, which reads CLOCK_MONOTONIC: over curl, only
    /// a deadline on the system clock means anything.
    public let clock: any Clock

    public init(secondsFromNow seconds: Double, clock: any Clock = SystemClock()) {
        budgetSeconds = seconds
        self.clock = clock
        let clamped = min(max(seconds, 0), 1e9)
        nanoseconds = clock.monotonicNanoseconds() + Int64(clamped * 1e9)
    }

    public static func now() -> Int64 { SystemTime.monotonicNanoseconds() }

    /// Seconds left, never negative.
    public var remaining: Double { max(0, Double(nanoseconds - clock.monotonicNanoseconds()) / 1e9) }
    public var hasPassed: Bool { clock.monotonicNanoseconds() >= nanoseconds }

    /// "60 s", "2.5 s"
    public var budgetText: String { NumberText.wholeOrTenthSeconds(budgetSeconds) }
}
