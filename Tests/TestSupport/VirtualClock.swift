import Foundation
import AppDNACore

/// A clock that never waits: `sleep` records the wait and moves time forward at once, so
/// back-off, Retry-After, --rate and --timeout are checked by the waits asked for, not by
/// waiting (the replay engine's and the bundle commands' in-process tests).
public final class VirtualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var nanoseconds: Int64 = 1_000_000_000
    private var recorded: [Double] = []
    /// The wall time at virtual zero (milliseconds since 1970).
    public let wallStart: Int64

    public init(wallStart: Int64 = 1_771_495_200_000) { self.wallStart = wallStart }

    public func monotonicNanoseconds() -> Int64 { lock.lock(); defer { lock.unlock() }; return nanoseconds }
    public func wallMilliseconds() -> Int64 { wallStart + monotonicNanoseconds() / 1_000_000 }

    public func sleep(_ seconds: Double) {
        lock.lock(); defer { lock.unlock() }
        recorded.append(seconds)
        nanoseconds += Int64(seconds * 1e9)
    }

    /// Moves time forward without a wait being asked for (a slow answer).
    public func advance(_ seconds: Double) { lock.lock(); nanoseconds += Int64(seconds * 1e9); lock.unlock() }

    /// Every wait asked for, in order.
    public var sleeps: [Double] { lock.lock(); defer { lock.unlock() }; return recorded }
}
