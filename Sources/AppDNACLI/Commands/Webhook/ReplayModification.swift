import AppDNACore
import AppDNANet
import AppDNAServers

/// The inspector's "Edit and replay" (ngrok's "Replay with modifications"): what a
/// `POST /api/deliveries/{id}/replay` body asks to change before the delivery is forwarded
/// again. The entry itself stays as received; only the replay carries the changes.
///
///     {"body": "<text>"  or  "body_base64": "<base64>",
///      "headers": [[name, value], ...],          replaces the received headers
///      "signature": "resign" | "unsigned" | "original"}
///
/// Every member is optional: without `body` the received body is sent, without `headers` the
/// received headers. A header's value may be null for a credential the inspector hides
/// (`InspectorEntry.credentialHeaders`): the received value of that header is sent. Hop-by-hop
/// headers and `Content-Length` are dropped and made again by the forwarding path
/// (`DeliveryForward.send`).
struct ReplayModification: Sendable {
    enum Signature: String, Sendable, CaseIterable {
        /// Signed again with the listener's first secret, as `webhook sign` does: valid by construction.
        case resign
        /// Without any `X-AppDNA-Signature`: invalid, so forwarded only under `--forward-invalid`.
        case unsigned
        /// The headers' own `X-AppDNA-Signature`, checked against the listener's secrets like any delivery.
        case original
    }

    var body: [UInt8]?
    var headers: [(name: String, value: String?)]?
    var signature: Signature

    /// Why a request's edits are refused (the 400's message), written as a string literal.
    struct Refusal: Error, ExpressibleByStringInterpolation {
        let message: String
        init(stringLiteral value: String) { message = value }
        init(stringInterpolation: DefaultStringInterpolation) { message = String(stringInterpolation: stringInterpolation) }
    }

    /// At most this many headers, each name and value at most `headerBytes`, all of them at most
    /// `headersBytes`: what the listener itself accepts in a request's head is of this order.
    static let headerCount = 100
    static let headerBytes = 8 << 10
    static let headersBytes = 64 << 10

    /// The request body the inspector reads for an edited replay: the edited body (at most
    /// `maxBody`) may grow sixfold as JSON escapes (`\u0000`), plus the headers; capped so that
    /// a large `--max-body` does not let the page make the inspector hold gigabytes.
    static func requestBytes(maxBody: Int) -> Int {
        min(6 * maxBody, 32 << 20) + 2 * headersBytes
    }

    /// The modification a request body asks for; nil for an empty body (a plain replay); an
    /// error message for anything else than the shape above.
    static func parse(_ bytes: [UInt8], maxBody: Int) -> Result<ReplayModification?, Refusal> {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .success(nil) }
        guard let document = try? JSONDocument(bytes: bytes), document.root.kind == .object else {
            return .failure("the replay's body must be a JSON object: {\"body\": TEXT, \"headers\": [[NAME, VALUE], …], \"signature\": \"resign\"|\"unsigned\"|\"original\"}")
        }
        let root = document.root
        // Names compared as bytes, as every identity here.
        let known: Set<[UInt8]> = Set(["body", "body_base64", "headers", "signature"].map { Array($0.utf8) })
        for member in root.members where !known.contains(Array(member.key.utf8)) {
            return .failure("the replay's body has an unknown member \"\(VisibleText.escaped(member.key))\" (known: body, body_base64, headers, signature)")
        }
        var modification = ReplayModification(body: nil, headers: nil, signature: .resign)
        if let value = root["signature"] {
            guard let text = value.string, let signature = Signature.allCases.first(where: { Array($0.rawValue.utf8) == Array(text.utf8) }) else {
                return .failure("\"signature\" is \"resign\", \"unsigned\" or \"original\"")
            }
            modification.signature = signature
        }
        switch (root["body"], root["body_base64"]) {
        case (.some, .some):
            return .failure("give the body once: \"body\" (text) or \"body_base64\"")
        case (let text?, nil):
            guard let string = text.string else { return .failure("\"body\" is a string (the body as text; \"body_base64\" for other bytes)") }
            modification.body = Array(string.utf8)
        case (nil, let encoded?):
            guard let string = encoded.string, let decoded = try? Base64.decode(string) else {
                return .failure("\"body_base64\" is a string of base64")
            }
            modification.body = decoded
        case (nil, nil):
            break
        }
        if let body = modification.body, body.count > maxBody {
            return .failure("the edited body (\(NumberText.binarySize(body.count))) is larger than the listener's --max-body (\(NumberText.binarySize(maxBody)))")
        }
        if let list = root["headers"] {
            switch parsedHeaders(list) {
            case .success(let headers): modification.headers = headers
            case .failure(let message): return .failure(message)
            }
        }
        return .success(modification)
    }

    /// `[[name, value|null], …]`, each name an HTTP token, each value free of line breaks and NUL.
    private static func parsedHeaders(_ list: JSONNode) -> Result<[(name: String, value: String?)], Refusal> {
        guard list.kind == .array else { return .failure("\"headers\" is an array of [NAME, VALUE] pairs") }
        guard list.count <= headerCount else { return .failure("\"headers\" has \(list.count) headers; at most \(headerCount)") }
        var headers: [(name: String, value: String?)] = []
        var total = 0
        for (index, pair) in list.elements.enumerated() {
            let place = "header \(index + 1)"
            guard pair.kind == .array, pair.count == 2, let name = pair[0]?.string, let value = pair[1] else {
                return .failure("\(place) is not a [NAME, VALUE] pair of strings")
            }
            guard !name.isEmpty, name.utf8.allSatisfy(HeaderText.isTokenByte) else {
                return .failure("\(place)'s name \"\(VisibleText.escaped(name))\" is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)")
            }
            var text: String? = nil
            if !value.isNull {
                guard let string = value.string else { return .failure("\(place) (\(name)): the value is a string") }
                guard !string.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0x00 }) else {
                    return .failure("\(place) (\(name)): a value cannot hold a line break or NUL")
                }
                text = string
            }
            guard name.utf8.count <= headerBytes, (text?.utf8.count ?? 0) <= headerBytes else {
                return .failure("\(place) (\(VisibleText.escaped(String(name.prefix(40))))) is longer than \(NumberText.binarySize(headerBytes))")
            }
            total += name.utf8.count + (text?.utf8.count ?? 0) + 4
            guard total <= headersBytes else { return .failure("the headers are larger than \(NumberText.binarySize(headersBytes)) in all") }
            headers.append((name: name, value: text))
        }
        return .success(headers)
    }

    /// The headers and body to forward instead of `entry`'s, signed as asked with `secrets`
    /// (the first one signs), and whether the listener's secrets accept the result; or why not.
    func applied(to entry: InspectorEntry, secrets: [WebhookSecret]) -> Result<(headers: [(name: String, value: String)], body: [UInt8], valid: Bool), Refusal> {
        guard body != nil || entry.body.isWhole else {
            return .failure("the body (\(NumberText.binarySize(entry.body.length))) is larger than the \(NumberText.binarySize(InspectorLog.bodyBytes)) the inspector keeps: give the body to send in \"body\"")
        }
        let body = self.body ?? entry.body.bytes
        var headers: [(name: String, value: String)] = []
        for header in self.headers ?? entry.headers.map({ (name: $0.name, value: Optional($0.value)) }) {
            if let value = header.value {
                headers.append((name: header.name, value: value))
            } else if InspectorEntry.isCredential(header.name), let received = HeaderName.first(header.name, in: entry.headers, nameOf: \.name) {
                // The page never sees a credential's value: null sends what was received.
                headers.append((name: header.name, value: received.value))
            } else {
                return .failure("header \(VisibleText.escaped(header.name)) has no value (null keeps a credential the delivery carried, and it carried none by that name)")
            }
        }
        switch signature {
        case .original:
            break
        case .unsigned, .resign:
            headers.removeAll { HeaderName.same($0.name, WebhookSignature.headerName) }
        }
        if signature == .resign {
            guard let first = secrets.first else { return .failure("the listener has no secret to sign with") }
            headers.append((name: WebhookSignature.headerName, value: WebhookSigner.headerValue(body: body, secret: first)))
        }
        return .success((headers, body, Self.isValid(headers: headers, body: body, secrets: secrets)))
    }

    /// Whether the first `X-AppDNA-Signature` of `headers` is `body`'s under one of `secrets`:
    /// the listener's own rule (`DeliveryCheck`).
    static func isValid(headers: [(name: String, value: String)], body: [UInt8], secrets: [WebhookSecret]) -> Bool {
        guard let header = HeaderName.first(WebhookSignature.headerName, in: headers, nameOf: \.name),
              let signature = try? WebhookSignature.parse(header.value) else { return false }
        let verification = body.withUnsafeBytes { try? WebhookVerifier.verify(body: $0, signature: signature, secrets: secrets) }
        return verification?.isValid ?? false
    }
}
