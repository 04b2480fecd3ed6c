import AppDNACore

/// What the planning pass found: events read, to send (by platform and SDK version) and
/// skipped (by reason), with the first problems and schema rejections as examples.
public struct ReplayPlan {
    public var sources: [QueueSource] = []
    public var eventsRead = 0
    public var toSend = 0
    public var batches = 0
    public var groups: [ReplayGroup: Int] = [:]
    public var skipped: [ReplaySkip: Int] = [:]
    public var malformed = 0, truncated = 0, unreadable = 0
    /// Schema-rejected events: where, their event_id, and why.
    public var invalidExamples: [(location: QueueLocation, eventID: String?, reason: String)] = []
    /// Events that say which environment they come from.
    public var production = 0, sandbox = 0
    public var problems: [QueueProblem] = []
    public var skippedTotal: Int { skipped.values.reduce(0, +) }

    /// The most examples kept of problems and of schema rejections.
    static let examplesKept = 20

    public static func batchCount(_ events: Int, _ size: Int) -> Int { (events + size - 1) / size }

    /// Events that will never be delivered: schema-rejected ones and those dead-lettered by an
    /// earlier run.
    public var hasUndeliverableSkips: Bool {
        (skipped[.invalid] ?? 0) > 0 || (skipped[.deadLettered] ?? 0) > 0
    }

    init() {}

    /// Reads every queue once and decides, event by event, what a replay would send.
    public static func make(_ sources: [QueueSource], settings: ReplaySettings, journal: ReplayJournal) throws(Failure) -> ReplayPlan {
        var plan = ReplayPlan()
        plan.sources = sources
        var classifier = settings.classifier(journal: journal)
        for source in sources {
            try source.read { item in
                switch item {
                case .problem(let problem):
                    switch problem.kind {
                    case .malformed: plan.malformed += 1
                    case .truncated: plan.truncated += 1
                    case .unreadable, .notAQueue: plan.unreadable += 1
                    case .badEscape: break
                    }
                    if plan.problems.count < Self.examplesKept { plan.problems.append(problem) }
                case .event(let event):
                    plan.eventsRead += 1
                    switch classifier.decide(event, source: source) {
                    case .send(_, let group):
                        plan.toSend += 1
                        plan.groups[group, default: 0] += 1
                        if let isProduction = ReplayClassifier.isProduction(event.root) {
                            if isProduction { plan.production += 1 } else { plan.sandbox += 1 }
                        }
                    case .skip(let reason, let fields):
                        plan.skipped[reason, default: 0] += 1
                        if reason == .invalid && plan.invalidExamples.count < Self.examplesKept {
                            plan.invalidExamples.append((event.location, fields.eventID, fields.findings.map(\.message).joined(separator: "; ")))
                        }
                    }
                default: break
                }
                return true
            }
        }
        plan.batches = plan.groups.values.reduce(0) { $0 + batchCount($1, settings.batchSize) }
        return plan
    }
}
