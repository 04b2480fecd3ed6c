import AppDNACore
import AppDNANet

/// `appdna webhook trigger`: sends a signed delivery of a documented event type (or of any
/// type with --body) to a URL, as AppDNA would, or re-sends deliveries `listen --record` kept.
enum WebhookTriggerCommand {
    static let typeOperand = OperandSpec("TYPE", "The event type, e.g. subscription.renewed (see --list); any type with --body",
                                         optional: true, completion: .choices(WebhookEventCatalog.all.map(\.name)), onlyChoices: false)

    static let flags = WebhookTriggerFlags.all

    static let discussion = """
    Sends TYPE's demo delivery to --to as AppDNA does: a POST with the JSON body {"id", "type", \
    "created_at", "data"}, Content-Type: application/json, X-AppDNA-Event: TYPE and \
    X-AppDNA-Signature: sha256=<HMAC-SHA256 of the body> with the secret from \
    APPDNA_WEBHOOK_SECRET, --secret-file or --secret-stdin. The demo bodies are fixed (id \
    evt_demo_<type>, created_at \(WebhookEventCatalog.demoTime), user \(WebhookEventCatalog.demoUser)) so runs \
    are repeatable; --id and --time change them. --body FILE sends a file's bytes instead, for \
    any type. Prints the response status, the time it took and the start of its body.
    --replay FILE re-sends every delivery that webhook listen recorded in FILE, in order, with the \
    recorded headers and byte-identical bodies (and their original signatures, unless --resign). \
    Each record is checked as a request is on arrival: a method or header name that is not a \
    token, a target or header value with CR, LF, NUL or another control character, a line that \
    is not a record, or a torn last line (the listener was killed while writing) is skipped with \
    its line number, the rest is sent, and the exit status is 65. --timeout bounds the whole \
    command, every delivery of a replay included.
    No timestamp is signed, so a replayed delivery verifies like the original: handlers should \
    deduplicate by id.
    Exit status: 0 when every answer is 2xx, 1 otherwise, 64 usage error, 66 body or replay file \
    missing, 65 a record was skipped or the replay file holds no deliveries, 69 cannot reach the \
    URL, 75 timeout, 78 no secret.
    """

    static let examples = [
        ExampleSpec("appdna webhook trigger subscription.renewed --to http://localhost:8787/ --secret-file secret.txt",
                    "Send a signed subscription.renewed delivery to a local listener."),
        ExampleSpec("appdna webhook trigger --replay deliveries.ndjson --to http://localhost:3000/webhooks",
                    "Re-send recorded deliveries to your handler, byte for byte."),
        ExampleSpec("appdna webhook trigger --list", "Which event types are there?"),
    ]

    /// Response bodies longer than this are cut in the report.
    static let shownBodyBytes = 500

    /// Everything one run needs, read from the arguments once: the mode (with what its
    /// delivery holds) and what the modes share.
    struct Plan {
        let mode: WebhookTriggerMode
        /// --timeout: one bound for the whole command.
        let timeout: Double
        /// --to, checked when a delivery is about to go (after its body and secret).
        let target: String?
        let json: Bool
        let secrets: WebhookInputs.SecretSources
    }

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        return Plan(mode: try WebhookTriggerMode.decide(arguments), timeout: arguments[APIFlags.timeout], target: arguments[WebhookTriggerFlags.to],
                    json: arguments[WebhookTriggerFlags.json], secrets: WebhookInputs.SecretSources(arguments))
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        // One bound for the whole command, as --timeout's help says: every delivery of a
        // replay shares it.
        let deadline = Deadline(secondsFromNow: plan.timeout)
        let (type, printing, given): (String, Bool, WebhookTriggerMode.Body)
        switch plan.mode {
        case .list:
            writeList(json: plan.json, invocation)
            return .success
        case .replay(let file, let resign):
            return try replay(file, resign: resign, plan, deadline: deadline, invocation)
        case .print(let name, let body): (type, printing, given) = (name, true, body)
        case .send(let name, let body): (type, printing, given) = (name, false, body)
        }
        if type.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw Failure(.usage, "TYPE '\(type)' holds a control character; it goes into the X-AppDNA-Event header, which cannot")
        }
        let body: [UInt8]
        let id = given.id ?? WebhookEventCatalog.demoID(type)
        if let path = given.file {
            body = try invocation.io.files.readAll(path: path)
        } else {
            guard let known = WebhookEventCatalog.named(type) else {
                throw Failure(.usage, "'\(type)' is not a documented event type, so there is no demo body for it"
                              + Suggestions.phrase(for: type, among: WebhookEventCatalog.all.map(\.name)),
                              hint: "send any type with --body FILE; 'appdna webhook trigger --list' lists the documented ones")
            }
            let createdAt = given.time ?? WebhookEventCatalog.demoTime
            guard Timestamp.milliseconds(from: createdAt) != nil else {
                throw Failure(.usage, "--time takes an ISO 8601 time like \(WebhookEventCatalog.demoTime), not '\(createdAt)'")
            }
            body = WebhookEventCatalog.body(type: type, id: id, createdAt: createdAt, data: known.data)
        }
        let secret = try signingSecret(plan, invocation)
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"),
            ("X-AppDNA-Event", type),
            (WebhookSignature.headerName, WebhookSigner.headerValue(body: body, secret: secret)),
        ]
        if printing {
            for header in headers { invocation.stdout.writeLine("\(header.name): \(header.value)") }
            invocation.stdout.writeLine()
            invocation.stdout.write(body)
            invocation.stdout.writeLine()
            return .success
        }
        let target = try destination(plan.target)
        let sent = try send(HTTPRequest(method: "POST", url: target, headers: headers, body: body),
                            type: type, id: DeliveryCheck.idAndType(body).id ?? id, json: plan.json, deadline: deadline, invocation)
        return sent ? .success : .negative
    }

    /// `--list`: the documented event types with their one-line descriptions, aligned, or
    /// with `--json` one document `{"event_types": [{"type", "summary"}]}`.
    static func writeList(json: Bool, _ invocation: Invocation) {
        if json {
            let types = WebhookEventCatalog.all.map { JSONValue.object(["type": .string($0.name), "summary": .string($0.summary)]) }
            invocation.stdout.write(JSONWriter(indent: 2).write(["event_types": .array(types)]))
            invocation.stdout.writeLine()
            return
        }
        let width = WebhookEventCatalog.all.map(\.name.count).max()!
        for type in WebhookEventCatalog.all {
            invocation.stdout.writeLine(type.name + String(repeating: " ", count: width - type.name.count + 2) + type.summary)
        }
    }

    static func destination(_ target: String?) throws -> String {
        guard let target else {
            throw Failure(.usage, "no --to URL given", hint: "e.g. --to http://localhost:8787/ for webhook listen")
        }
        guard HTTPURL(target) != nil else { throw Failure(.usage, "--to takes an http(s) URL, not '\(target)'") }
        return target
    }

    /// The one secret deliveries are signed with.
    static func signingSecret(_ plan: Plan, _ invocation: Invocation) throws -> WebhookSecret {
        let secrets = try WebhookInputs.secrets(plan.secrets, io: invocation.io)
        guard secrets.count == 1 else {
            throw Failure(.usage, "webhook trigger signs with one secret; \(secrets.count) were given")
        }
        return secrets[0]
    }

    /// `--replay FILE`: sends every record that can be sent, in order; a record that cannot
    /// (not a delivery, a method, target or header a request cannot hold, a torn last line) is
    /// skipped with its line number, and the exit status says so at the end (65).
    static func replay(_ path: String, resign: Bool, _ plan: Plan, deadline: Deadline, _ invocation: Invocation) throws -> ExitStatus {
        let target = try destination(plan.target)
        let contents = RecordedDeliveries(fileBytes: try invocation.io.files.readAll(path: path))
        if contents.deliveries.isEmpty && contents.skipped.isEmpty {
            throw Failure(.malformedInput, "no deliveries in \(path)", remedy: .recordedDeliveries)
        }
        let secret = resign ? try signingSecret(plan, invocation) : nil
        var skipped = contents.skipped[...]
        func warnSkipped(before line: Int) {
            while let next = skipped.first, next.line < line {
                invocation.warn("\(path):\(next.line): \(next.reason); skipped")
                skipped = skipped.dropFirst()
            }
        }
        var allSucceeded = true
        for (number, (line, delivery)) in contents.deliveries.enumerated() {
            warnSkipped(before: line)
            var headers = ForwardedHeaders.endToEnd(delivery.headers)
            if let secret {
                headers.removeAll { HeaderName.same($0.name, WebhookSignature.headerName) }
                headers.append((WebhookSignature.headerName, WebhookSigner.headerValue(body: delivery.body, secret: secret)))
            }
            let type = delivery.header("X-AppDNA-Event") ?? DeliveryCheck.idAndType(delivery.body).type ?? "-"
            let request = HTTPRequest(method: delivery.method, url: target, headers: headers, body: delivery.body)
            do {
                allSucceeded = try send(request, type: type, id: DeliveryCheck.idAndType(delivery.body).id ?? "-",
                                        json: plan.json, deadline: deadline, invocation) && allSucceeded
            } catch var error as HTTPError where error.deadlineExpired {
                error.message += " (\(number) of \(contents.deliveries.count) deliveries sent; --timeout bounds the whole replay)"
                throw error
            }
        }
        warnSkipped(before: Int.max)
        if !contents.skipped.isEmpty {
            let lines = contents.skipped.map { String($0.line) }.joined(separator: ", ")
            let records = contents.skipped.count == 1 ? "1 record" : "\(contents.skipped.count) records"
            // Nothing in the file could be sent: perhaps it is not a record file at all.
            throw Failure(.malformedInput, "\(path): \(records) skipped (line\(contents.skipped.count == 1 ? "" : "s") \(lines)); \(contents.deliveries.count) sent",
                          remedy: contents.deliveries.isEmpty ? .recordedDeliveries : nil)
        }
        return allSucceeded ? .success : .negative
    }

    /// Sends one delivery (no retries: the answer is what is being tested) and reports it;
    /// true for a 2xx answer.
    static func send(_ request: HTTPRequest, type: String, id: String, json: Bool, deadline: Deadline, _ invocation: Invocation) throws -> Bool {
        let client = try DeliveryClient.make(invocation)
        let started = Deadline.now()
        let response = try client.send(request, deadline: deadline)
        let milliseconds = Double(Deadline.now() - started) / 1e6
        let out = invocation.stdout
        let style = invocation.options.stdoutStyle
        let success = (200...299).contains(response.status)
        if json {
            // One object per delivery (NDJSON with --replay): what was sent and what came back.
            var object = JSONObject()
            object["method"] = .string(request.method)
            object["url"] = .string(request.url)
            object["type"] = .string(type)
            object["id"] = .string(id)
            object["signature"] = request.headers.first { HeaderName.same($0.name, WebhookSignature.headerName) }.map { .string($0.value) } ?? .null
            object["body_length"] = .integer(request.body?.count ?? 0)
            object["status"] = .integer(response.status)
            object["latency_ms"] = .decimal(NumberText.tenths(milliseconds))
            object["answer"] = .string(String(decoding: response.body.prefix(shownBodyBytes), as: UTF8.self))
            object["answer_length"] = .integer(response.body.count)
            out.writeVerbatimLine(JSONWriter().writeString(.object(object)))
            out.flush()
            return success
        }
        out.writeLine("\(request.method) \(request.url)  \(type)  \(id)")
        out.writeLine(style.apply(success ? .green : .red, response.statusText) + "  in " + NumberText.milliseconds(milliseconds))
        if !response.body.isEmpty {
            let shown = response.body.prefix(shownBodyBytes)
            // The body's lines as lines, each one escaped like all text from data.
            var lines = String(decoding: shown, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if lines.count > 1, lines.last!.isEmpty { lines.removeLast() }
            for line in lines { out.writeLine(line.hasSuffix("\r") ? String(line.dropLast()) : String(line)) }
            if response.body.count > shownBodyBytes {
                out.writeLine("… (\(response.body.count - shownBodyBytes) more bytes)")
            }
        }
        out.flush()
        return success
    }
}
