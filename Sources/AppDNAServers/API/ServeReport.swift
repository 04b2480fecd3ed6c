/// Where `api serve`'s handler reports, from its connection threads: the CLI's log renders each
/// outcome as a line (text or `--json`), counts it for the summary and warns of a bundle it
/// cannot serve. The library itself never writes to a stream.
public protocol ServeReport: Sendable {
    /// One request, answered.
    func served(_ outcome: ServeOutcome)
    /// A request refused before it was one the server handles.
    func rejected(_ rejected: RejectedRequest)
}
