/// A webhook signing secret as read from the environment, a file or stdin.
///
/// Secret files and `echo secret |` almost always end in a newline nobody meant to be part of
/// the key, so exactly one trailing `\n` or `\r\n` is removed (and only one: a secret that
/// really ends in whitespace beyond that is left alone, and the explainer points it out).
/// The bytes are never printed: `description` shows only where the secret came from.
public struct WebhookSecret: Sendable, CustomStringConvertible {
    /// The key bytes, trailing newline removed.
    public let bytes: [UInt8]
    /// Where the secret came from ("APPDNA_WEBHOOK_SECRET", "secret file 2", …), for messages.
    public let source: String

    public init(raw: [UInt8], source: String) throws(SecretError) {
        var bytes = raw
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        guard !bytes.isEmpty else { throw SecretError.empty(source: source) }
        self.bytes = bytes
        self.source = source
    }

    public init(_ text: String, source: String) throws(SecretError) {
        try self.init(raw: Array(text.utf8), source: source)
    }

    public var description: String { "secret from \(source)" }
}

/// A problem with the configured secrets. Messages never contain secret bytes.
public enum SecretError: ClassifiedError, Equatable {
    case empty(source: String)
    case none

    public var kind: FailureKind { .configuration }
    public var remedy: Remedy? { .webhookSecret }

    public var message: String {
        switch self {
        case .empty(let source): return "the webhook secret from \(source) is empty"
        case .none: return "no webhook secret given"
        }
    }
}
