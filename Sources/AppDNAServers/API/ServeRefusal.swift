import AppDNACore
import AppDNANet

/// Why `api serve` refused a request: the typed reason, its status, its words in the answer
/// (`{"error": …}`, and `reason` in the `--json` line and the inspector entry) and its note.
public enum ServeRefusal: Sendable {
    /// No route: 404 for an unknown path, 405 (with `Allow`) for another method, 400 for a bad parameter.
    case route(RouteRefusal)
    /// 401: no `x-api-key`.
    case missingKey
    /// 401: an `x-api-key` other than the one the server was given.
    case wrongKey
    /// A failure the server was told to inject, with this status.
    case injectedFailure(status: Int)
    /// 413, injected: a batch body larger than the server was told to take.
    case batchOverLimit(bytes: Int, limit: Int)
    /// The ingest endpoint's refusal of a batch.
    case ingest(IngestRefusal)
    /// 500: the bundle cannot be served; why, in the CLI's words.
    case bundleUnreadable(String)
    /// 403, `--bootstrap local`: the SDK stops retrying for the session and runs on its cache,
    /// else its bundled appdna-config.json (platform facts §7).
    case bootstrapLocal
    /// `--bootstrap live`: the live bootstrap was not passed on.
    case bootstrapLive(LiveBootstrapRefusal)
    /// 400: an identify body that is not a JSON object.
    case notAJSONObject
    /// 404: an SDK call that carries no config, which this server does not serve.
    case sdkCallNotServed(ServeEndpoint)

    public var status: Int {
        switch self {
        case .route(let refusal): return refusal.status
        case .missingKey, .wrongKey: return 401
        case .injectedFailure(let status): return status
        case .batchOverLimit: return 413
        case .ingest(let refusal): return refusal.status
        case .bundleUnreadable: return 500
        case .bootstrapLocal: return 403
        case .bootstrapLive(.refused(let status)): return status
        case .bootstrapLive: return 502
        case .notAJSONObject: return 400
        case .sdkCallNotServed: return 404
        }
    }

    /// A fault the server was told to inject made the answer.
    public var isInjected: Bool {
        switch self {
        case .injectedFailure, .batchOverLimit: return true
        default: return false
        }
    }

    /// The key was missing or wrong.
    public var isKey: Bool {
        switch self {
        case .missingKey, .wrongKey: return true
        default: return false
        }
    }

    static let missingKeyWords = "missing x-api-key"
    static let wrongKeyWords = "x-api-key is not the key this server was given"

    /// What the answer says (`{"error": …}`): the refusal's reason.
    public func message(_ words: ServeWords) -> String {
        switch self {
        case .route(let refusal): return refusal.message
        case .missingKey: return Self.missingKeyWords
        case .wrongKey: return Self.wrongKeyWords
        case .injectedFailure: return words.injectedFailure
        case .batchOverLimit(let bytes, let limit): return "the batch is \(bytes) bytes, over \(limit)"
        case .ingest(let refusal): return refusal.message
        case .bundleUnreadable(let message): return message
        case .bootstrapLocal:
            return "this appdna api serve answers no bootstrap (local mode), so the SDK stays on its cache and its bundled appdna-config.json"
        case .bootstrapLive(.failed(let why)): return "the live bootstrap failed: \(why)"
        case .bootstrapLive(.refused(let status)): return "the live API answered \(status)"
        case .bootstrapLive(.undecodable(let problems)): return "the live bootstrap would not decode on devices: " + problems.joined(separator: "; ")
        case .notAJSONObject: return "the body is not a JSON object"
        case .sdkCallNotServed(let endpoint): return "appdna api serve does not serve \(endpoint.rawValue)"
        }
    }

    /// What the line's `note` says.
    public func note(_ words: ServeWords) -> String {
        switch self {
        case .route(let refusal) where refusal.status == 404: return "not an AppDNA API path"
        case .batchOverLimit(let bytes, _): return "\(NumberText.binarySize(bytes)) over \(words.batchLimit)"
        case .bundleUnreadable: return "cannot serve the bundle file"
        case .bootstrapLocal: return "refused (local): the SDK stops retrying for this session and runs on its cache or bundled config"
        case .notAJSONObject: return "not a JSON object"
        case .sdkCallNotServed: return "an SDK call api serve does not serve (no config travels on it)"
        default: return message(words)
        }
    }
}

/// Why the ingest endpoint refused a batch (platform facts §4 say what it must be).
public enum IngestRefusal: Sendable {
    /// 413: it inflates to more than this many bytes.
    case inflatedOverLimit(Int)
    /// 400: not raw DEFLATE; `zlibHeader` when it starts as a zlib stream does (the usual mistake).
    case notRawDeflate(zlibHeader: Bool)
    /// 415: a Content-Encoding the SDK does not send.
    case unsupportedEncoding(String)
    /// 400: not JSON; the parser's words.
    case notJSON(String)
    /// 400: not `{"batch": [events]}`; `namedEvents` when it says "events" instead.
    case notABatch(namedEvents: Bool)
    /// 400: event `index` (from 0) breaks the schema at `pointer`.
    case invalidEvent(index: Int, pointer: String, message: String)
    /// 500: the new events could not be recorded (so the client sends them again).
    case notRecorded(String)
    /// 413: `what` would hold `bytes`, more than the server holds for all requests at once.
    case overBudget(String, bytes: Int, budget: Int)
    /// 503 with Retry-After: the requests under way hold the server's budget; `what` needs `bytes`.
    case busy(String, bytes: Int)

    public var status: Int {
        switch self {
        case .inflatedOverLimit, .overBudget: return 413
        case .busy: return 503
        case .unsupportedEncoding: return 415
        case .notRecorded: return 500
        case .notRawDeflate, .notJSON, .notABatch, .invalidEvent: return 400
        }
    }

    public var message: String {
        switch self {
        case .inflatedOverLimit(let limit): return "inflated body over \(NumberText.binarySize(limit))"
        case .notRawDeflate(let zlibHeader):
            return "the body is not raw DEFLATE" + (zlibHeader ? " (it has a zlib header: the SDK sends raw DEFLATE, RFC 1951, without one)" : "")
        case .unsupportedEncoding(let encoding): return "Content-Encoding \(encoding) is not what the SDK sends (deflate)"
        case .notJSON(let why): return "the body is not JSON: \(why)"
        case .notABatch(let namedEvents):
            return "the body is not {\"batch\": [events]}" + (namedEvents ? " (\"events\" is the documented name; the SDK sends \"batch\")" : "")
        case .invalidEvent(let index, let pointer, let message): return "batch[\(index)]\(pointer): \(message)"
        case .notRecorded(let problem): return problem
        case .overBudget(let what, let bytes, let budget):
            return "\(what) would hold \(NumberText.binarySize(bytes)), more than this server holds for all requests at once (\(NumberText.binarySize(budget)))"
        case .busy(let what, let bytes):
            return "the server holds as many bytes as it may for the requests under way (\(what) needs \(NumberText.binarySize(bytes))); try again"
        }
    }

    /// Headers the refusal's answer carries: `Retry-After` when the client may try again.
    public var headers: [(name: String, value: String)] {
        if case .busy = self { return [("Retry-After", "1")] }
        return []
    }
}

/// The CLI's words for what `api serve` reports that names one of its settings: the library
/// never names a flag (NoFlagNameBelowTheCLITests), the CLI gives them once (`FlagWording`).
public struct ServeWords: Sendable {
    /// The answer and note of an injected failure ("injected by --fail").
    public let injectedFailure: String
    /// The setting an injected 413 is over ("--status-413-over").
    public let batchLimit: String
    /// Any error, in the CLI's words.
    public let error: @Sendable (any Error) -> String

    public init(injectedFailure: String, batchLimit: String, error: @escaping @Sendable (any Error) -> String) {
        self.injectedFailure = injectedFailure
        self.batchLimit = batchLimit
        self.error = error
    }
}
