import AppDNACore
import AppDNAServers

/// Everything `webhook listen`'s connection threads write, funnelled through one lock: the
/// delivery lines (stdout), the summary counters, and stderr messages. Each line is flushed at
/// once, so a terminal, a pipe or a log file sees deliveries as they happen. The listener
/// (AppDNAServers) reports values; this renders them (`ListenReport`).
final class ListenLog: ListenReport {
    struct Counts {
        var received = 0
        var valid = 0
        var invalid = 0
        var rejected = 0
        /// Answers of the forward target by status; failures (unreachable, timeout) under their word.
        var forwarded: [String: Int] = [:]
    }

    /// Its streams and stderr styling only: the flags are the plan's (`WebhookListenPlan`).
    private let invocation: Invocation
    /// `--json`: the lines are NDJSON (written as they are), else text (data in it escaped).
    private let json: Bool
    /// Colours of the text lines.
    private let style: Styler
    /// The counts, and the lock every line is written under.
    private let counts = Locked(Counts())

    init(_ invocation: Invocation, json: Bool, style: Styler) {
        self.invocation = invocation
        self.json = json
        self.style = style
    }

    /// One delivery's line: the outcome rendered as `--json` or text.
    func delivered(_ outcome: DeliveryOutcome) {
        delivery(json ? outcome.jsonLine : outcome.textLine(style: style), valid: outcome.check.isValid, forwardOutcome: outcome.forwardCount)
    }

    func rejected(_ rejected: RejectedRequest) {
        rejection(json ? rejected.jsonLine(withNote: false) : rejected.textLine)
    }

    func notRecorded(_ problem: String) {
        warn(problem)
    }

    /// One line on stdout, flushed at once. Called with the lock held.
    private func emit(_ line: String) {
        if json { invocation.stdout.writeVerbatimLine(line) } else { invocation.stdout.writeLine(line) }
        invocation.stdout.flush()
    }

    private func locked<T>(_ body: (inout Counts) -> T) -> T { counts.withLock(body) }

    /// One delivery: counted, then its line (text or JSON) on stdout.
    func delivery(_ line: String, valid: Bool, forwardOutcome: String?) {
        locked { counts in
            counts.received += 1
            if valid { counts.valid += 1 } else { counts.invalid += 1 }
            if let forwardOutcome { counts.forwarded[forwardOutcome, default: 0] += 1 }
            emit(line)
        }
    }

    /// A request refused before it was a delivery (malformed, too large, too slow).
    func rejection(_ line: String) {
        locked { counts in
            counts.rejected += 1
            emit(line)
        }
    }

    func warn(_ message: String) {
        locked { _ in
            invocation.warn(message)
            invocation.io.stderr.flush()
        }
    }

    func note(_ message: String) {
        locked { _ in
            invocation.note(message)
            invocation.io.stderr.flush()
        }
    }

    /// "stopped: 12 received, 10 valid, 2 invalid, 1 rejected; forwarded: 200 ×9, 500 ×1"
    func summary() -> String {
        locked { counts in
            var text = "stopped: \(counts.received) received, \(counts.valid) valid, \(counts.invalid) invalid, \(counts.rejected) rejected"
            if !counts.forwarded.isEmpty {
                let parts = counts.forwarded.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
                text += "; forwarded: " + parts.joined(separator: ", ")
            }
            return text
        }
    }

    var forwardedCounts: [String: Int] { locked { $0.forwarded } }
}
