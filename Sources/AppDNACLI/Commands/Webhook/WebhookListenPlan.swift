import AppDNACore
import AppDNANet
import AppDNAServers

/// Everything `webhook listen` runs with, read from its flags once, before anything is opened
/// or bound: where it listens and its limits, the secrets, the forward target and its rules,
/// the record file's path, the output format and the inspector. Nothing after `make` reads the
/// parsed arguments (they are closed: the listener, its log and the inspector are built from
/// this value), and `make` has no effect: the record file is opened by the run.
struct WebhookListenPlan: Sendable {
    let host: String
    let port: Int
    let limits: HTTPServer.Limits
    /// Checks every delivery; the first also signs an edited replay from the inspector.
    let secrets: [WebhookSecret]
    /// `--forward-to`, an http(s) URL; nil answers a valid delivery 200 itself.
    let target: String?
    let forwardInvalid: Bool
    /// `--forward-timeout`, in seconds.
    let forwardTimeout: Double
    /// The client the forwards go out with (no retries, redirects handed back).
    let client: HTTPClient
    /// `--record`: opened (through `CommandIO.files`) by the run, before it listens.
    let record: String?
    /// `--json`: one JSON object per line on stdout, else a text line.
    let json: Bool
    /// Colours of the text lines.
    let style: Styler
    /// `--inspect PORT` and its companions; nil without it.
    let inspector: InspectorServer.Settings?

    /// What the listener (AppDNAServers) obeys, recording to `recorder` (the `--record` file, open).
    func settings(recorder: DeliveryRecorder?) -> WebhookListener.Settings {
        WebhookListener.Settings(secrets: secrets, target: target, forwardInvalid: forwardInvalid, forwardTimeout: forwardTimeout, client: client,
                                 recorder: recorder, words: FlagWording.listen)
    }

    /// `--max-body`: also bounds an edited replay's body.
    var maxBody: Int { limits.maxBodyBytes }

    /// Reads the flags, in the order their errors are reported: usage errors first, then the
    /// secrets and the client's configuration (78).
    @Sendable static func make(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> WebhookListenPlan {
        let target = arguments[WebhookListenFlags.forwardTo]
        if let target, HTTPURL(target) == nil {
            throw Failure(.usage, "--forward-to takes an http(s) URL, not '\(target)'")
        }
        // What only a forward uses, given without one, is a mistake to say (as --inspect-keep without --inspect).
        for flag in [WebhookListenFlags.forwardInvalid.spec, WebhookListenFlags.forwardTimeout.spec] where target == nil && arguments.given(flag) {
            throw Failure(.usage, "--\(flag.long) goes with --forward-to URL")
        }
        var limits = HTTPServer.Limits(
            maxBodyBytes: arguments[WebhookListenFlags.maxBody],
            headerTimeout: arguments[WebhookListenFlags.headerTimeout],
            idleTimeout: arguments[WebhookListenFlags.idleTimeout],
            maxConnections: arguments[WebhookListenFlags.maxConnections],
            // A forward holds up to this much of the handler's answer (see `WebhookListener`).
            handlerBytes: target == nil ? 0 : DeliveryForward.relayedAnswerBytes)
        limits.bodyLimitSetting = FlagWording.bodyLimitSetting
        let host = arguments[WebhookListenFlags.host]
        if let inspect = arguments[WebhookListenFlags.inspect], inspect != 0, inspect == arguments[WebhookListenFlags.port] {
            throw Failure(.usage, "--inspect \(inspect) is the port webhook listen listens on (--port): give the inspector another port")
        }
        try HTTPServer.checkHost(host)
        // Before any file is opened: a usage error leaves nothing behind.
        let inspector = try InspectorLaunch.settings(arguments, inspect: WebhookListenFlags.inspect, keep: WebhookListenFlags.inspectKeep,
                                                     maxBytes: WebhookListenFlags.inspectMaxBytes)
        let secrets = try WebhookInputs.secrets(WebhookInputs.SecretSources(arguments), io: invocation.io)
        try RecordPath.check(arguments[WebhookListenFlags.record], invocation.io.files)
        return WebhookListenPlan(host: host, port: arguments[WebhookListenFlags.port], limits: limits,
                                 secrets: secrets, target: target, forwardInvalid: arguments[WebhookListenFlags.forwardInvalid],
                                 forwardTimeout: arguments[WebhookListenFlags.forwardTimeout], client: try DeliveryClient.make(invocation),
                                 record: arguments[WebhookListenFlags.record], json: arguments[WebhookListenFlags.json], style: invocation.options.stdoutStyle,
                                 inspector: inspector)
    }
}
