import AppDNACore

/// The secrets, signature and body of `webhook verify` / `webhook sign`, read and checked in
/// the order that gives the most useful first error: usage, then secrets (78), then the
/// signature (64/65), then the body (66).
enum WebhookInputs {
    static let environmentVariable = "APPDNA_WEBHOOK_SECRET"

    /// Where the body comes from.
    enum BodySource {
        case stdin
        case file(String)
        case request(String)
        /// `--recorded FILE`: the body of the delivery on that line.
        case recorded(String, line: Int)

        var label: String {
            switch self {
            case .stdin: return "standard input"
            case .file(let path): return path
            case .request(let path): return "the body of request dump \(path)"
            case .recorded(let path, let line): return "the body of the delivery recorded at \(RecordedVerifyInput.name(path)):\(line)"
            }
        }

        /// The file the request came from (a dump, or a record's FILE:LINE).
        var requestPath: String? {
            switch self {
            case .request(let path): return path
            case .recorded(let path, let line): return "\(RecordedVerifyInput.name(path)):\(line)"
            case .stdin, .file: return nil
            }
        }
    }

    /// Checks the flag combinations that cannot work, before anything is read. Only `verify`
    /// takes a request dump (`--request`); `sign` has the body alone.
    static func bodySource(_ arguments: ParsedArguments, _ invocation: Invocation, takesRequestDump: Bool) throws -> BodySource {
        let operand = arguments.operand(0)
        let orRequest = takesRequestDump ? " or --request FILE" : ""
        if takesRequestDump, let recorded = arguments[WebhookVerifyFlags.recorded] {
            if let operand {
                throw Failure(.usage, "give the body either as BODY ('\(operand)') or inside --recorded \(recorded), not both")
            }
            if let request = arguments[WebhookVerifyFlags.request] {
                throw Failure(.usage, "give the delivery either as --request \(request) or as --recorded \(recorded), not both")
            }
            return .recorded(recorded, line: arguments[WebhookVerifyFlags.line] ?? 0)
        }
        if takesRequestDump, arguments[WebhookVerifyFlags.line] != nil {
            throw Failure(.usage, "--line picks a delivery of --recorded FILE", hint: "add --recorded FILE (a webhook listen --record file)")
        }
        if takesRequestDump, let request = arguments[WebhookVerifyFlags.request] {
            if let operand {
                throw Failure(.usage, "give the body either as BODY ('\(operand)') or inside --request \(request), not both")
            }
            return .request(request)
        }
        let source: BodySource = operand == nil || operand == "-" ? .stdin : .file(operand!)
        // A record file given the old way (as BODY): its line is not the body that was signed.
        if takesRequestDump, case .file(let path) = source, RecordedVerifyInput.isRecordFile(path, files: invocation.io.files) {
            throw Failure(.usage, "\(path) is a webhook listen --record file, not a body: its lines hold the deliveries",
                          hint: "verify a recorded delivery with --recorded \(path) (and --line N when it holds several)")
        }
        if case .stdin = source {
            if readsSecretFromStdin(arguments) {
                throw Failure(.usage, "--secret-stdin reads the secret from standard input, so the body cannot come from it too",
                              hint: "give the body as a file (BODY)\(orRequest)")
            }
            if operand == nil && invocation.io.stdinIsTerminal {
                throw Failure(.usage, "no body given: pass BODY (a file)\(takesRequestDump ? "," : " or") '-' for standard input\(orRequest)",
                              hint: "see 'appdna help \(invocation.command.name)'")
            }
        }
        return source
    }

    static func readsSecretFromStdin(_ arguments: ParsedArguments) -> Bool {
        SecretFlags.stdinGiven(arguments) || SecretFlags.files(arguments).contains("-")
    }

    /// Where the secrets come from, as the flags say: read into a command's plan, so the
    /// secrets themselves are read (in the order that gives the most useful first error) from
    /// the plan, not from the arguments.
    struct SecretSources: Equatable {
        /// `--secret-file` paths other than '-', in order.
        let files: [String]
        /// `--secret-stdin`, or '-' among the files.
        let stdin: Bool

        init(_ arguments: ParsedArguments) {
            files = SecretFlags.files(arguments).filter { $0 != "-" }
            stdin = readsSecretFromStdin(arguments)
        }
    }

    /// The secrets `sources` names (a plan's): from `--secret-file` (in order) and
    /// `--secret-stdin`, or else from the environment, read through `io.files`. Never from
    /// argv. Messages name the source, never the bytes.
    static func secrets(_ sources: SecretSources, io: CommandIO) throws -> [WebhookSecret] {
        let files = sources.files
        var secrets: [WebhookSecret] = []
        for path in files {
            let bytes = try io.files.readSettingFile(path, holding: "the webhook secret",
                                                     hint: "--secret-file takes the path of a file that holds only the secret")
            secrets.append(try WebhookSecret(raw: bytes, source: "--secret-file \(path)"))
        }
        if sources.stdin {
            let bytes: [UInt8]
            do {
                bytes = try io.files.readAll(fileDescriptor: io.stdinDescriptor, name: "standard input")
            } catch {
                throw Failure(.configuration, "cannot read the webhook secret from standard input: \(error.message)")
            }
            secrets.append(try WebhookSecret(raw: bytes, source: "--secret-stdin"))
        }
        if !secrets.isEmpty { return secrets }
        guard let value = io.environment[environmentVariable] else { throw SecretError.none }
        return [try WebhookSecret(value, source: environmentVariable)]
    }

    /// The signature as given and where it came from, before parsing.
    struct GivenSignature {
        /// The header value (after `X-AppDNA-Signature:` for `--header`).
        let value: String
        let origin: String
        let parse: () throws(SignatureHeaderError) -> WebhookSignature
    }

    /// `--signature`, `--header`, or the request dump's header.
    static func signature(_ arguments: ParsedArguments, request: (path: String, dump: RawHTTPRequest)?) throws -> GivenSignature {
        let flag = arguments[WebhookVerifyFlags.signature], header = arguments[WebhookVerifyFlags.header]
        if flag != nil && header != nil {
            throw Failure(.usage, "--signature and --header both give the signature; use one")
        }
        if let flag {
            return GivenSignature(value: flag, origin: "--signature", parse: { () throws(SignatureHeaderError) in try WebhookSignature.parse(flag) })
        }
        if let header {
            let value = header.firstIndex(of: ":").map { String(header[header.index(after: $0)...]) } ?? header
            return GivenSignature(value: value, origin: "--header", parse: { () throws(SignatureHeaderError) in try WebhookSignature.parse(headerLine: header) })
        }
        guard let request else {
            throw Failure(.usage, "no signature given",
                          hint: "pass --signature sha256=<hex>, --header 'X-AppDNA-Signature: sha256=<hex>', or --request FILE with the captured delivery")
        }
        let values = request.dump.values(of: WebhookSignature.headerName)
        guard let value = values.first else {
            throw Failure(.malformedInput, "\(request.path): the request has no \(WebhookSignature.headerName) header",
                          hint: "pass the signature with --signature or --header")
        }
        if values.contains(where: { HeaderText.trimmed($0) != HeaderText.trimmed(value) }) {
            throw Failure(.malformedInput, "\(request.path): the request has \(values.count) different \(WebhookSignature.headerName) headers",
                          hint: "pick one with --signature")
        }
        return GivenSignature(value: value, origin: "the request's \(WebhookSignature.headerName) header",
                              parse: { () throws(SignatureHeaderError) in try WebhookSignature.parse(value) })
    }

    /// Reads and parses a request dump (66 when missing, 65 when malformed).
    static func request(_ path: String, io: CommandIO) throws -> RawHTTPRequest {
        let bytes = path == "-" ? try io.files.readAll(fileDescriptor: io.stdinDescriptor, name: "standard input")
            : try io.files.readAll(path: path)
        do {
            return try RawHTTPRequest.parse(bytes)
        } catch {
            throw Failure(.malformedInput, "\(path): \(error.message)", hint: error.hint, remedy: error.remedy)
        }
    }

    /// The body, hashed as it is read: calls `consume` with each chunk, and keeps the whole
    /// body only while it is at most `retainLimit` bytes (nil when it was larger).
    static func streamBody(_ source: BodySource, request: RawHTTPRequest?, io: CommandIO,
                           retainLimit: Int, _ consume: (UnsafeRawBufferPointer) -> Void) throws -> [UInt8]? {
        if let request {
            request.body.withUnsafeBytes { consume($0) }
            return request.body.count <= retainLimit ? request.body : nil
        }
        var retained: [UInt8]? = []
        let handle: (UnsafeRawBufferPointer) -> Void = { chunk in
            consume(chunk)
            if retained != nil {
                if retained!.count + chunk.count <= retainLimit {
                    retained!.append(contentsOf: chunk)
                } else {
                    retained = nil
                }
            }
        }
        switch source {
        case .stdin, .request, .recorded:
            try io.files.forEachChunk(fileDescriptor: io.stdinDescriptor, name: "standard input", handle)
        case .file(let path):
            try io.files.forEachChunk(path: path, handle)
        }
        return retained
    }

    /// A BODY file that is missing or a directory, refused (66) as reading it would be, by the
    /// plan: before the signature is computed or anything printed.
    static func checkBodyFile(_ source: BodySource, files: any FileAccess) throws {
        guard case .file(let path) = source else { return }
        let status: FileStatus
        do {
            status = try files.status(path: path)
        } catch {
            throw Failure(.inputMissing, "\(path): \(error)")
        }
        if status.kind == .directory { throw Failure(.inputMissing, "\(path): is a directory") }
    }
}

extension SignatureHeaderError {
    /// The same error with where the signature came from in front.
    func located(_ origin: String) -> Failure {
        Failure(kind, "\(origin): \(message)", hint: hint, remedy: remedy)
    }
}
