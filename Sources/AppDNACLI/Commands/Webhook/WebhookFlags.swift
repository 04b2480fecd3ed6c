import AppDNACore

/// The flags of the `webhook` commands, each declared once, in help order. The secret flags
/// are shared by all four (worded for each: rotation, what stdin can no longer carry).
enum SecretFlags {
    /// `--secret-file` where several secrets may match (verify, listen): repeatable.
    static let rotatingFile = Flag.repeated(
        "secret-file", value: "PATH", "Read the signing secret from a file; repeat it while rotating secrets (any may match)",
        details: "The file holds only the secret; one trailing newline is removed. Give it more than once while rotating secrets: the signature is valid when any of them matches, and the output names which one (by position and path, never by content).",
        completion: .file, .path)
    /// `--secret-file` where one secret signs (sign, trigger).
    static let singleFile = Flag.optional("secret-file", value: "PATH", "Read the signing secret from a file",
                                          details: "The file holds only the secret; one trailing newline is removed.",
                                          completion: .file, .path)

    /// `--secret-stdin`: one declaration, whatever each command's help says of it.
    private static let stdinFlag = Flag.switch("secret-stdin", "Read the signing secret from stdin")

    /// `--secret-stdin` worded with a note on what stdin can then no longer carry (the same
    /// flag: its value is read through `stdinFlag` whatever the wording).
    static func stdin(note: String?) -> Flag<Bool> {
        note.map { stdinFlag.worded(stdinFlag.spec.summary + " (\($0))") } ?? stdinFlag
    }

    /// The secret flags of one command.
    static func specs(rotation: Bool, stdinNote: String?) -> [FlagSpec] {
        [(rotation ? rotatingFile.spec : singleFile.spec), stdin(note: stdinNote).spec]
    }

    /// Every `--secret-file` given, in order (one at most where the command declares the
    /// flag that is not repeatable: two declarations, read each through its own).
    static func files(_ arguments: ParsedArguments) -> [String] {
        arguments.declares(rotatingFile.spec) ? arguments[rotatingFile] : arguments[singleFile].map { [$0] } ?? []
    }

    static func stdinGiven(_ arguments: ParsedArguments) -> Bool { arguments[stdinFlag] }
}

enum WebhookVerifyFlags {
    static let signature = Flag.optional("signature", value: "VALUE", "The X-AppDNA-Signature value: sha256=<hex> or bare hex", .text)
    static let header = Flag.optional("header", value: "LINE", "The signature as a header line: 'X-AppDNA-Signature: sha256=<hex>'", .text)
    static let request = Flag.optional("request", value: "FILE", "A raw HTTP request dump (request line, headers, blank line, body; Content-Length or chunked)",
                                       details: "The body is taken from the dump (chunk framing removed) and the signature from its X-AppDNA-Signature header, unless --signature or --header is given.",
                                       completion: .file, .path)
    static let recorded = Flag.optional("recorded", value: "FILE", "A delivery from the record file of webhook listen (its body and X-AppDNA-Signature)",
                                        details: "The file's only delivery, or the one on --line N. The signature is the recorded X-AppDNA-Signature header, unless --signature or --header is given.",
                                        completion: .file, .path)
    static let line = Flag.optional("line", value: "N", "With --recorded: the line of the delivery to verify (1-based)", .integer(1...Int(Int32.max)))
    static let explain = Flag.switch("explain", "On a mismatch, name what would have matched (newlines, CRLF, BOM, re-serialised JSON, secret whitespace, SHA-1 or base64 signature)")
    static let json = OutputFlags.json()

    static let all: [FlagSpec] = [signature.spec, header.spec, request.spec, recorded.spec, line.spec]
        + SecretFlags.specs(rotation: true, stdinNote: "the body must then be a file or --request") + [explain.spec, json.spec]
}

enum WebhookListenFlags {
    static let port = Flag.defaulted("port", value: "N", "The port to listen on (0 picks a free one, printed on stderr)", default: "8787", .integer(0...65535))
    static let host = Flag.defaulted("host", value: "ADDR", "The IPv4 or IPv6 address to listen on (0.0.0.0 or :: for every interface)", default: "127.0.0.1", .text)
    static let forwardTo = Flag.optional("forward-to", value: "URL", "Forward valid deliveries (exact body and headers) to this URL and relay its answer", .text)
    static let forwardInvalid = Flag.switch("forward-invalid", "Forward deliveries with a bad or missing signature too (they are still reported invalid)")
    static let forwardTimeout = Flag.defaulted("forward-timeout", value: "DURATION", "How long the forward target may take (AppDNA itself waits 15 s)",
                                               default: "15", .duration(0.001...3600))
    static let record = Flag.optional("record", value: "FILE", "Append each delivery (headers and exact body) to FILE as NDJSON, for webhook trigger to replay",
                                      details: "One JSON object per line: received_at, method, target, headers (a list of [name, value] pairs, as received), body (the exact bytes as a string when they are UTF-8, otherwise body_base64) and valid. A new file is created with mode 0600 (an existing one keeps its mode); a symbolic link, a device, a FIFO or anything else that is not a regular file is refused (status 73) before listening. Each record is fsynced before the sender is answered. The secret is never recorded.",
                                      completion: .file, .path)
    static let maxBody = Flag.defaulted("max-body", value: "SIZE", "Larger bodies are answered 413 (their bytes are not kept)", default: "1MiB", .size(0...(1 << 30)))
    static let headerTimeout = Flag.defaulted("header-timeout", value: "DURATION", "The request line and headers must arrive within this time",
                                              default: "10", .duration(0.01...3600))
    static let idleTimeout = Flag.defaulted("idle-timeout", value: "DURATION", "Close a connection that sends nothing for this long (between requests, or between the reads of a body)",
                                            default: "30", .duration(0.01...3600))
    static let maxConnections = Flag.defaulted("max-connections", value: "N", "Complete requests processed at once (connections still sending a head or a body do not count); more wait their turn",
                                               default: "64", .integer(1...4096))
    static let inspect = InspectorFlags.port("deliveries")
    static let inspectKeep = InspectorFlags.keep("deliveries")
    static let inspectMaxBytes = InspectorFlags.maxBytes("deliveries")
    static let json = OutputFlags.json("Print one JSON object per delivery (NDJSON)")

    static let all: [FlagSpec] = [port.spec, host.spec, forwardTo.spec, forwardInvalid.spec, forwardTimeout.spec, record.spec, maxBody.spec,
                                  headerTimeout.spec, idleTimeout.spec, maxConnections.spec, inspect.spec, inspectKeep.spec, inspectMaxBytes.spec]
        + SecretFlags.specs(rotation: true, stdinNote: nil) + [json.spec]
}

enum WebhookTriggerFlags {
    static let to = Flag.optional("to", value: "URL", "Where to send the delivery (your handler, or webhook listen)", .text)
    static let body = Flag.optional("body", value: "FILE", "Send this file's exact bytes as the body instead of the demo body", completion: .file, .path)
    static let id = Flag.optional("id", value: "ID", "The demo body's id (default evt_demo_<type>)", .text)
    /// Checked only when the demo body is built (with --body the time is not used); the
    /// default is the demo bodies' fixed time.
    static let time = Flag.optional("time", value: "TIME", "The demo body's created_at (default \(WebhookEventCatalog.demoTime))", .text)
    static let list = Flag.switch("list", "List the documented event types with a one-line description")
    static let print = Flag.switch("print", "Print the signed request (headers, blank line, body) instead of sending it")
    static let replay = Flag.optional("replay", value: "FILE", "Re-send the deliveries that webhook listen recorded in FILE, byte for byte",
                                      completion: .file, .path)
    static let resign = Flag.switch("resign", "With --replay: sign each body again with the current secret instead of keeping its signature")

    static let json = OutputFlags.json("Print one JSON object per delivery sent: method, url, type, id, signature, body_length, status, latency_ms, answer (its first 500 bytes), answer_length; with --list, the event types as one document")

    static let all: [FlagSpec] = [to.spec, body.spec, id.spec, time.spec, list.spec, print.spec, replay.spec, resign.spec, json.spec]
        + SecretFlags.specs(rotation: false, stdinNote: nil) + [APIFlags.timeout.spec]
}

enum WebhookSignFlags {
    static let json = OutputFlags.json("Print a JSON document: header, signature, body_length, secret (its position and source, never its value)")
}
