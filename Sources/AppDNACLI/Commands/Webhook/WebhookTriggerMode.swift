import AppDNACore

/// What one `webhook trigger` run does, decided once (issue 35.3): list the event types,
/// re-send recorded deliveries, print a signed request, or send one. Each case holds what its
/// run needs beyond the plan's common part (`WebhookTriggerCommand.Plan`).
enum WebhookTriggerMode: Equatable {
    case list
    /// `resign`: sign each body again with the one secret, instead of keeping its signature.
    case replay(file: String, resign: Bool)
    case print(type: String, Body)
    case send(type: String, Body)

    /// The body of one delivery: a file sent byte for byte, or the demo body of TYPE.
    struct Body: Equatable {
        /// --body FILE.
        let file: String?
        /// --id: the event id of the demo body (and of the report).
        let id: String?
        /// --time: when the demo event was created.
        let time: String?

        init(_ arguments: ParsedArguments) {
            file = arguments[WebhookTriggerFlags.body]
            id = arguments[WebhookTriggerFlags.id]
            time = arguments[WebhookTriggerFlags.time]
        }
    }

    /// The modes without their values, for the tests that walk every mode (`ModeConflictTests`).
    enum Kind: CaseIterable { case list, replay, print, send }

    var kind: Kind {
        switch self {
        case .list: return .list
        case .replay: return .replay
        case .print: return .print
        case .send: return .send
        }
    }

    static func decide(_ arguments: ParsedArguments) throws(Failure) -> WebhookTriggerMode {
        let mode: WebhookTriggerMode
        if arguments[WebhookTriggerFlags.list] {
            mode = .list
        } else if let file = arguments[WebhookTriggerFlags.replay] {
            if let type = arguments.operand(0) {
                throw ModeFlags.conflict("TYPE ('\(type)')", "--replay", instead: "--replay sends the recorded deliveries")
            }
            mode = .replay(file: file, resign: arguments[WebhookTriggerFlags.resign])
            // Without --resign each recorded delivery keeps its own signature: a secret would sign nothing.
            if !arguments[WebhookTriggerFlags.resign] {
                try ModeFlags("--replay without --resign", reads: [], instead: SecretFlags.specs(rotation: false, stdinNote: nil).map { ($0, "add --resign to sign each body again with it") })
                    .check(arguments, declared: SecretFlags.specs(rotation: false, stdinNote: nil))
            }
        } else {
            guard let type = arguments.operand(0) else {
                throw Failure(.usage, "no event type given", hint: "'appdna webhook trigger --list' lists them")
            }
            mode = arguments[WebhookTriggerFlags.print] ? .print(type: type, Body(arguments)) : .send(type: type, Body(arguments))
        }
        try mode.flags.check(arguments, declared: WebhookTriggerFlags.all)
        if arguments[WebhookTriggerFlags.body] != nil && arguments[WebhookTriggerFlags.time] != nil {
            throw ModeFlags.conflict("--time", "--body", instead: "--time dates the demo body; --body FILE is sent byte for byte")
        }
        return mode
    }

    var flags: ModeFlags {
        let secrets = SecretFlags.specs(rotation: false, stdinNote: nil)
        let body = [WebhookTriggerFlags.body.spec, WebhookTriggerFlags.id.spec, WebhookTriggerFlags.time.spec]
        let replayOnly = "--resign goes with --replay"
        switch self {
        case .list:
            return ModeFlags("--list", reads: [WebhookTriggerFlags.list.spec, WebhookTriggerFlags.json.spec])
        case .replay:
            return ModeFlags("--replay", reads: [WebhookTriggerFlags.replay.spec, WebhookTriggerFlags.resign.spec, WebhookTriggerFlags.to.spec,
                                                 WebhookTriggerFlags.json.spec, APIFlags.timeout.spec] + secrets,
                             instead: body.map { ($0, "--replay sends the recorded bodies") })
        case .print:
            return ModeFlags("--print", reads: [WebhookTriggerFlags.print.spec] + body + secrets,
                             instead: [(WebhookTriggerFlags.json.spec, "--print shows the request as HTTP; --json reports a sent one: use one"),
                                       (WebhookTriggerFlags.to.spec, "--print sends nothing"), (APIFlags.timeout.spec, "--print sends nothing"),
                                       (WebhookTriggerFlags.resign.spec, replayOnly)])
        case .send:
            return ModeFlags("a delivery of TYPE", reads: [WebhookTriggerFlags.to.spec, WebhookTriggerFlags.json.spec, APIFlags.timeout.spec] + body + secrets,
                             instead: [(WebhookTriggerFlags.resign.spec, replayOnly)])
        }
    }
}
