import AppDNANet

/// Why `webhook listen` answered a delivery with an error of its own rather than 200 or the
/// handler's answer: the typed reason, its status and its words (the answer's body, and the
/// `reason` of the `--json` line and the inspector entry).
public enum DeliveryRefusal: Sendable, Equatable {
    /// 401: the signature does not check out; what is wrong with it, for the sender (never which
    /// secret files were tried).
    case invalidSignature(String)
    /// 503: the forwards under way hold as many bytes as the listener may.
    case forwardBudgetSpent
    /// 502, or 504 when it timed out: the handler could not be reached or did not answer.
    case forwardFailed(timedOut: Bool, error: String)

    public var status: Int {
        switch self {
        case .invalidSignature: return 401
        case .forwardBudgetSpent: return 503
        case .forwardFailed(let timedOut, _): return timedOut ? 504 : 502
        }
    }

    public var message: String {
        switch self {
        case .invalidSignature(let problem): return "invalid webhook signature: \(problem)"
        case .forwardBudgetSpent: return "the listener holds as many bytes as it may for forwards under way; try again"
        case .forwardFailed(_, let error): return "the forward target failed: \(error)"
        }
    }

    /// The answer: the words as text; a spent budget says when to try again.
    var response: HTTPServer.Response {
        var response = HTTPServer.Response.text(status, message)
        if self == .forwardBudgetSpent { response.headers.append(("Retry-After", "1")) }
        return response
    }
}
