import AppDNANet

/// What the sending pass did.
public struct ReplayOutcome: Sendable {
    /// Events the sending pass found to send (the plan's count, unless the queues changed).
    public var toSend = 0
    public var delivered = 0
    public var deadLettered = 0
    /// Requests sent, retries included, and the retries among them.
    public var requests = 0
    public var retries = 0
    /// Batches split in half after a 413.
    public var splits = 0
    /// Dead-lettered events by status.
    public var deadLetterStatuses: [Int: Int] = [:]
    /// Why the run stopped early (the first fatal error), nil when it did not.
    public var stop: HTTPError?
    /// SIGINT or SIGTERM when one stopped the sending, else 0.
    public var interruptedBy: Int32 = 0
    /// How long the sending took.
    public var seconds = 0.0

    public init() {}

    /// Events to send that were neither delivered nor dead-lettered (a re-run sends them).
    public var undelivered: Int { toSend - delivered - deadLettered }
}
