import AppDNACore

/// What one `queue inspect` run does, decided once (issue 35.3): the summary (with the
/// exposure audit when a bundle is given), or the list of live events. Each case holds what
/// its run needs beyond the plan's common part (`QueueInspectPlan`).
enum QueueInspectMode {
    case summary
    /// The bundle to audit exposures against, and the API flags `@remote` is fetched with.
    case audit(bundle: String, api: APISettings)
    case events(filter: EventFilter)

    /// The modes without their values, for the tests that walk every mode (`ModeConflictTests`).
    enum Kind: CaseIterable { case summary, audit, events }

    var kind: Kind {
        switch self {
        case .summary: return .summary
        case .audit: return .audit
        case .events: return .events
        }
    }

    static func decide(_ arguments: ParsedArguments) throws(Failure) -> QueueInspectMode {
        let mode: QueueInspectMode
        let filter = EventFilter(arguments)
        if arguments[QueueInspectFlags.events] || filter.isActive {
            mode = .events(filter: filter)
        } else if let bundle = arguments[QueueInspectFlags.bundle] {
            mode = .audit(bundle: bundle, api: try APISettings(arguments, bundle: bundle))
        } else {
            mode = .summary
        }
        try mode.flags.check(arguments, declared: QueueInspectFlags.all)
        return mode
    }

    var flags: ModeFlags {
        let summary = [QueueInspectFlags.now.spec, QueueInspectFlags.json.spec]
        switch self {
        case .summary:
            return ModeFlags("the summary", reads: summary, instead: APIFlags.wholeCommand.map { ($0, "it reads the live bundle of --bundle @remote") })
        case .audit:
            return ModeFlags("the exposure audit (--bundle)", reads: summary + [QueueInspectFlags.bundle.spec] + APIFlags.wholeCommand)
        case .events:
            return ModeFlags("--events", reads: [QueueInspectFlags.events.spec, QueueInspectFlags.name.spec, QueueInspectFlags.user.spec,
                                                 QueueInspectFlags.since.spec, QueueInspectFlags.until.spec, QueueInspectFlags.json.spec],
                             instead: [(QueueInspectFlags.bundle.spec, "--bundle audits exposures in the summary"),
                                       (QueueInspectFlags.now.spec, "--now measures ages in the summary; --since and --until bound the events")])
        }
    }
}
