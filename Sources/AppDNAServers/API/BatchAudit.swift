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
    /// Exposures from devices on a bundle_version this server never served or wrote (issue
    /// 51.4), by version, in order of appearance: not judged, since their config is unknown.
    public let unknownVersions: [(version: String, exposures: Int)]

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
    /// Each event is judged against the bundle of its `device.bundle_version`: `bundle` (the
    /// one served now) when it says that version or none, else the one `history` has under it;
    /// a version `history` does not have is counted in `unknownVersions`.
    init?(_ events: [(index: Int, event: JSONNode)], against bundle: JSONDocument, history: ((String) -> JSONDocument?)? = nil) {
        let served = bundle.root["bundle_version"]?.numberText
        var groups: [(version: String?, document: JSONDocument, events: [(Int, JSONNode)])] = [(served, bundle, [])]
        var unknown: [(version: String, exposures: Int)] = []
        for (index, event) in events {
            let version = event["device"]?["bundle_version"]?.numberText
            guard let version, version != served, let history else { groups[0].events.append((index, event)); continue }
            if let group = groups.firstIndex(where: { $0.version == version }) {
                groups[group].events.append((index, event))
            } else if let document = history(version) {
                groups.append((version, document, [(index, event)]))
            } else if let exposures = event["context"]?["experiment_exposures"], exposures.kind == .array, exposures.count > 0 {
                if let known = unknown.firstIndex(where: { $0.version == version }) { unknown[known].exposures += exposures.count } else { unknown.append((version, exposures.count)) }
            }
        }
        var (checked, agreeing, skipped, disagreeing) = (0, 0, 0, 0)
        var mismatches: [ExposureAudit.Mismatch] = []
        var causes: [ExposureAudit.Cause: Int] = [:]
        for group in groups where !group.events.isEmpty {
            let audit = ExposureAudit(bundle: group.document.root, listLimit: Self.listed, bundleVersionName: "the served bundle_version")
            for (index, event) in group.events { audit.audit(event: event, location: QueueLocation(path: "batch", line: index + 1)) }
            checked += audit.checked
            agreeing += audit.agreeing
            skipped += audit.skipped
            disagreeing += audit.mismatchCount
            mismatches += audit.mismatches.prefix(Self.listed - mismatches.count)
            causes.merge(audit.causeCounts, uniquingKeysWith: +)
        }
        guard checked + skipped > 0 || !unknown.isEmpty else { return nil }
        mismatches.sort { $0.location.line < $1.location.line }
        bundleVersion = served
        self.checked = checked
        self.agreeing = agreeing
        self.skipped = skipped
        self.disagreeing = disagreeing
        self.mismatches = mismatches
        causeCounts = causes
        unknownVersions = unknown
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
            "unknown_versions": .array(unknownVersions.map { ["bundle_version": JSONNumber(text: $0.version).map(JSONValue.number) ?? .string($0.version),
                                                              "exposures": .integer($0.exposures)] }),
        ]
    }

    /// "3 exposures checked against bundle_version 12: 2 agree, 1 disagree"
    public var words: String {
        "\(checked) exposure\(checked == 1 ? "" : "s") checked against bundle_version \(bundleVersion ?? "-"): \(agreeing) agree, \(disagreeing) disagree"
            + (skipped > 0 ? ", \(skipped) skipped" : "")
            + unknownVersions.map { "; \($0.exposures) from bundle_version \($0.version), which this server never served or wrote: not judged" }.joined()
    }

    /// One line per listed mismatch: "event 2 (ID): EXP recorded X, expected Y: CAUSE: DETAIL".
    public var mismatchLines: [String] {
        mismatches.map { mismatch in
            "  exposure audit: event \(mismatch.location.line) (\(mismatch.eventID ?? "no event_id")): \(mismatch.experiment) recorded \(mismatch.recorded ?? "none"), "
                + "expected \(mismatch.expected ?? "none"): \(mismatch.cause.rawValue): \(mismatch.detail)"
        }
    }
}
