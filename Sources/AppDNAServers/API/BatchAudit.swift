import AppDNACore

/// `api serve`'s audit of an event batch as it arrives: every exposure the new events carry
/// (`context.experiment_exposures`) checked against the bundle being served at that moment,
/// with the audit `queue inspect --bundle` applies (`ExposureAudit`): a wrong variant, an
/// exposure for an experiment the user is not eligible for or that is not running, one for an
/// experiment the bundle does not have, one from a device on another bundle_version.
public struct BatchAudit {
    public let bundleVersion: String?
    public let checked: Int
    public let agreeing: Int
    public let skipped: Int
    public let disagreeing: Int
    /// The first `listed` mismatches; `location.line` is the event's place in the batch (from 1).
    public let mismatches: [ExposureAudit.Mismatch]
    public let causeCounts: [ExposureAudit.Cause: Int]

    /// Mismatches listed per batch (the counts are exact).
    static let listed = 100

    /// The most an audit of `events` events holds while it runs, with `nodeBound` nodes in the
    /// batch (`api serve` takes it from its budget first): per event a session's entry, and per
    /// exposure (an object of at least five nodes: `{"exp": …, "variant": …}`) at most an entry
    /// of the session's first exposures or of the users with a repeat (`RepeatedExposures`).
    static func workingSet(events: Int, nodeBound: Int) -> Int {
        let (perEvent, eventOverflow) = events.multipliedReportingOverflow(by: 256)
        let (perExposure, exposureOverflow) = (nodeBound / 5).multipliedReportingOverflow(by: 64)
        let (sum, sumOverflow) = perEvent.addingReportingOverflow(perExposure)
        return eventOverflow || exposureOverflow || sumOverflow ? Int.max : sum
    }

    /// nil when no event carries an exposure.
    init?(_ events: [(index: Int, event: JSONNode)], against bundle: JSONDocument) {
        let audit = ExposureAudit(bundle: bundle.root, listLimit: Self.listed, bundleVersionName: "the served bundle_version")
        for (index, event) in events { audit.audit(event: event, location: QueueLocation(path: "batch", line: index + 1)) }
        guard audit.checked + audit.skipped > 0 else { return nil }
        bundleVersion = audit.bundleVersion
        checked = audit.checked
        agreeing = audit.agreeing
        skipped = audit.skipped
        disagreeing = audit.mismatchCount
        mismatches = audit.mismatches
        causeCounts = audit.causeCounts
    }

    /// `{"bundle_version", "checked", "agreeing", "disagreeing", "skipped", "mismatches": [{event_index, event_id, experiment, recorded, expected, cause, detail}]}`
    public var json: JSONValue {
        [
            "bundle_version": bundleVersion.flatMap(JSONNumber.init(text:)).map(JSONValue.number) ?? .null,
            "checked": .integer(checked),
            "agreeing": .integer(agreeing),
            "disagreeing": .integer(disagreeing),
            "skipped": .integer(skipped),
            "mismatches": .array(mismatches.map { mismatch in
                [
                    "event_index": .integer(mismatch.location.line),
                    "event_id": mismatch.eventID.map(JSONValue.string) ?? .null,
                    "experiment": .string(mismatch.experiment),
                    "recorded": mismatch.recorded.map(JSONValue.string) ?? .null,
                    "expected": mismatch.expected.map(JSONValue.string) ?? .null,
                    "cause": .string(mismatch.cause.rawValue),
                    "detail": .string(mismatch.detail),
                ]
            }),
        ]
    }

    /// "3 exposures checked against bundle_version 12: 2 agree, 1 disagree"
    public var words: String {
        "\(checked) exposure\(checked == 1 ? "" : "s") checked against bundle_version \(bundleVersion ?? "-"): \(agreeing) agree, \(disagreeing) disagree"
            + (skipped > 0 ? ", \(skipped) skipped" : "")
    }

    /// One line per listed mismatch: "event 2 (ID): EXP recorded X, expected Y: CAUSE: DETAIL".
    public var mismatchLines: [String] {
        mismatches.map { mismatch in
            "  exposure audit: event \(mismatch.location.line) (\(mismatch.eventID ?? "no event_id")): \(mismatch.experiment) recorded \(mismatch.recorded ?? "none"), "
                + "expected \(mismatch.expected ?? "none"): \(mismatch.cause.rawValue): \(mismatch.detail)"
        }
    }
}
