import AppDNACore

/// The exposure audit's part of `queue inspect --bundle`: a summary line and the mismatches in
/// queue order (text), or the `exposure_audit` JSON field (docs/schemas/queue-inspect.schema.json; only ever added to).
enum ExposureAuditReport {
    /// The `--bundle FILE` the audit compares with (the plan's), read once.
    static func audit(bundle path: String, api: APISettings, _ invocation: Invocation) throws -> ExposureAudit {
        let document = try BundleArgument.document(path, invocation, api: api)
        return ExposureAudit(bundle: document.root)
    }

    /// "blank-salt-old-ios 1, bundle-version 2" in the fixed order of causes.
    static func causeList(_ audit: ExposureAudit) -> String {
        ExposureAudit.Cause.allCases.compactMap { cause in audit.causeCounts[cause].map { "\(cause.rawValue) \($0)" } }.joined(separator: ", ")
    }

    static func rows(_ audit: ExposureAudit, style: Styler, limit: Int) -> [(String, String)] {
        var summary = "\(audit.checked) exposure\(audit.checked == 1 ? "" : "s") checked against bundle_version \(audit.bundleVersion ?? "-"): \(audit.agreeing) agree"
        if audit.mismatchCount == 0 {
            summary += ", none disagree"
        } else {
            summary += ", " + style.apply(.red, "\(audit.mismatchCount) disagree") + " (" + causeList(audit) + ")"
        }
        if audit.skipped > 0 { summary += "; \(audit.skipped) skipped (no user id or no exp)" }
        var rows = [("exposure audit", summary)]
        for mismatch in audit.mismatches.prefix(limit) {
            rows.append(("", "\(mismatch.eventID ?? "(no event_id)") (\(mismatch.location)): \(mismatch.experiment) recorded \(mismatch.recorded ?? "none"), "
                         + "expected \(mismatch.expected ?? "none"): \(style.apply(.yellow, mismatch.cause.rawValue)): \(mismatch.detail)"))
        }
        let more = audit.mismatchCount - min(audit.mismatches.count, limit)
        if more > 0 { rows.append(("", "… and \(more) more (--json lists up to 1000)")) }
        rows += repeatedRows(audit.repeated, style: style)
        return rows
    }

    /// "repeated exposures": per experiment with duplicates, the counts and the first repeats.
    static func repeatedRows(_ repeated: RepeatedExposures, style: Styler) -> [(String, String)] {
        let withDuplicates = repeated.experiments.filter { $0.duplicateExposures > 0 }
        guard !withDuplicates.isEmpty else { return [("re-exposures", "none (one exposure per experiment per session, as the SDK records)")] }
        var rows = [("re-exposures", style.apply(.yellow, "\(repeated.duplicateExposures) exposure\(repeated.duplicateExposures == 1 ? "" : "s") repeated within a session")
                     + " (the SDK records one per experiment per session)")]
        for counts in withDuplicates {
            let examples = counts.examples.map { "\($0.repeated) repeats \($0.first)" }.joined(separator: "; ")
            rows.append(("", "\(counts.experiment): \(counts.duplicateExposures) of \(counts.exposures) exposures in \(counts.sessions) sessions, "
                         + "\(counts.usersWithDuplicates) user\(counts.usersWithDuplicates == 1 ? "" : "s"); e.g. \(examples)"))
        }
        return rows
    }

    static func json(_ audit: ExposureAudit) -> JSONValue {
        [
            "bundle_version": audit.bundleVersion.flatMap(JSONNumber.init(text:)).map(JSONValue.number) ?? .null,  // a number, as in the bundle
            "checked": .integer(audit.checked),
            "agreeing": .integer(audit.agreeing),
            "disagreeing": .integer(audit.mismatchCount),
            "skipped": .integer(audit.skipped),
            "by_cause": .array(ExposureAudit.Cause.allCases.compactMap { cause in
                audit.causeCounts[cause].map { ["cause": .string(cause.rawValue), "count": .integer($0)] }
            }),
            "mismatches": .array(audit.mismatches.map { mismatch in
                var entry = QueueInspectReport.locationJSON(mismatch.location)
                entry["event_id"] = mismatch.eventID.map(JSONValue.string) ?? .null
                entry["experiment"] = .string(mismatch.experiment)
                entry["recorded"] = mismatch.recorded.map(JSONValue.string) ?? .null
                entry["expected"] = mismatch.expected.map(JSONValue.string) ?? .null
                entry["cause"] = .string(mismatch.cause.rawValue)
                entry["detail"] = .string(mismatch.detail)
                return .object(entry)
            }),
            "mismatches_not_listed": .integer(audit.mismatchesNotListed),
            "repeated_in_session": .array(audit.repeated.experiments.map { counts in
                [
                    "experiment": .string(counts.experiment),
                    "sessions": .integer(counts.sessions),
                    "exposures": .integer(counts.exposures),
                    "duplicate_exposures": .integer(counts.duplicateExposures),
                    "users_with_duplicates": .integer(counts.usersWithDuplicates),
                    "examples": .array(counts.examples.map { example in
                        ["repeat": .object(QueueInspectReport.locationJSON(example.repeated)), "first": .object(QueueInspectReport.locationJSON(example.first))]
                    }),
                ]
            }),
        ]
    }
}
