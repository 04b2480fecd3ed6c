/// Where `webhook listen`'s handler reports, from its connection threads: the CLI's log renders
/// each report as a line (text or `--json`), counts it for the summary, and words the problems.
/// The library itself never writes to a stream.
public protocol ListenReport: Sendable {
    /// One delivery, checked, answered and (maybe) forwarded.
    func delivered(_ outcome: DeliveryOutcome)
    /// A request refused before it was a delivery (malformed, too large, too slow, no route).
    func rejected(_ rejected: RejectedRequest)
    /// A delivery that could not be recorded, so was not acknowledged: what went wrong.
    func notRecorded(_ problem: String)
}
