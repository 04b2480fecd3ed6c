import AppDNACore
import AppDNANet
import AppDNAServers

/// What `api serve`'s connection threads write, through one lock: one line per request on
/// stdout (text or JSON), warnings and notes on stderr, and the counts of the summary. The API
/// server (AppDNAServers) reports values; this renders them (`ServeReport`).
final class ServeLog: ServeReport {
    private let invocation: Invocation
    private let json: Bool
    /// The counts, and the lock every line is written under.
    private let counts = Locked(Counts())

    private struct Counts {
        var requests = 0
        var byEndpoint: [String: Int] = [:]
        var events = 0
        var duplicates = 0
        var injected = 0
        var refusedKeys = 0
        var rejected = 0
        /// The exposure audit's totals since the start.
        var exposuresChecked = 0
        var exposuresAgreeing = 0
        var exposuresDisagreeing = 0
        var causes: [ExposureAudit.Cause: Int] = [:]

        /// "; exposure audit: 12 checked, 11 agree, 1 disagree (unexplained 1)", or nothing
        /// when no exposure arrived.
        var auditSummary: String {
            guard exposuresChecked > 0 else { return "" }
            let byCause = ExposureAudit.Cause.allCases.compactMap { cause in causes[cause].map { "\(cause.rawValue) \($0)" } }.joined(separator: ", ")
            return "; exposure audit: \(exposuresChecked) checked against the served bundle, \(exposuresAgreeing) agree, \(exposuresDisagreeing) disagree"
                + (byCause.isEmpty ? "" : " (\(byCause))")
        }
    }

    init(_ invocation: Invocation, json: Bool) {
        self.invocation = invocation
        self.json = json
    }

    /// One request: counted, then its line (the outcome rendered as `--json` or text) on stdout;
    /// a bundle that cannot be served is warned of on stderr first.
    func served(_ answer: ServeOutcome) {
        if case .refused(.bundleUnreadable(let message)) = answer.result { warn(message) }
        let lines = json ? [answer.jsonLine] : answer.textLines
        counts.withLock { counts in
            counts.requests += 1
            counts.byEndpoint[answer.endpointName, default: 0] += 1
            counts.events += answer.events
            counts.duplicates += answer.duplicates
            if answer.injected { counts.injected += 1 }
            if answer.refusedKey { counts.refusedKeys += 1 }
            if let audit = answer.audit {
                counts.exposuresChecked += audit.checked
                counts.exposuresAgreeing += audit.agreeing
                counts.exposuresDisagreeing += audit.disagreeing
                for (cause, count) in audit.causeCounts { counts.causes[cause, default: 0] += count }
            }
            // Each disagreeing exposure on a line of its own (text), the moment the device flushes.
            for line in lines { emit(line) }
        }
    }

    func rejected(_ rejected: RejectedRequest) {
        let line = json ? rejected.jsonLine(withNote: true) : rejected.textLine
        counts.withLock { counts in
            counts.rejected += 1
            emit(line)
        }
    }

    /// One line on stdout, flushed at once: NDJSON as it is, text with its data escaped. Called
    /// with the lock held.
    private func emit(_ line: String) {
        if json { invocation.stdout.writeVerbatimLine(line) } else { invocation.stdout.writeLine(line) }
        invocation.stdout.flush()
    }

    func warn(_ message: String) {
        counts.withLock { _ in
            invocation.warn(message)
            invocation.io.stderr.flush()
        }
    }

    func note(_ message: String) {
        counts.withLock { _ in
            invocation.note(message)
            invocation.io.stderr.flush()
        }
    }

    /// "stopped: 7 requests (bundle 2, events 4, version 1); 25 events accepted, 2 duplicates; 3 faults injected, 0 keys refused, 0 malformed"
    func summary(recordedTo path: String?) -> String {
        counts.withLock { counts in
            let parts = counts.byEndpoint.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let recorded = path.map { " (recorded in \($0))" } ?? ""
            return "stopped: \(counts.requests) request\(counts.requests == 1 ? "" : "s")\(parts.isEmpty ? "" : " (\(parts))"); "
                + "\(counts.events) event\(counts.events == 1 ? "" : "s") accepted\(recorded), \(counts.duplicates) duplicate\(counts.duplicates == 1 ? "" : "s"); "
                + "\(counts.injected) fault\(counts.injected == 1 ? "" : "s") injected, \(counts.refusedKeys) key\(counts.refusedKeys == 1 ? "" : "s") refused, \(counts.rejected) malformed"
                + counts.auditSummary
        }
    }
}
