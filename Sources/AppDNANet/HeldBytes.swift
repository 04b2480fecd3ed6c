import AppDNACore

/// The bytes one request makes its handler hold (an inflated body, its parse, copies of it,
/// an audit's working set), each taken from the server's buffered-bytes budget
/// (`HTTPServer.reserve`) before it is allocated, and all given back when this is dropped. A
/// server at its budget then answers 503 (try again) instead of allocating, and a request
/// that would need more than the whole budget 413: an allocation that fails is fatal, so it
/// must never be tried (issue 49: one 54 MB batch held 271 MB, eight aborted the server).
/// One per request, used by the thread handling it.
public final class HeldBytes {
    /// Why a take was refused.
    public enum Refusal: Error, Equatable {
        /// More than the server may hold for all requests at once: it can never be served (413).
        case overLimit
        /// The budget is spent by other requests under way: it may be served later (503).
        case busy
    }

    private let server: HTTPServer
    /// The request's own bytes (its body: the server counts them while the request is handled).
    private let request: Int
    /// Taken so far, given back on deinit.
    public private(set) var count = 0

    public init(from server: HTTPServer, request: Int) {
        self.server = server
        self.request = request
    }

    deinit { if count > 0 { server.release(count) } }

    /// The most one request may hold with its body: the whole budget.
    public var limit: Int { server.limits.maxBufferedBytes }

    /// Takes `bytes` more, or throws why not (nothing taken).
    public func take(_ bytes: Int) throws(Refusal) {
        let (total, overflow) = count.addingReportingOverflow(bytes)
        guard bytes >= 0, !overflow, total <= limit - min(request, limit) else { throw .overLimit }
        guard server.reserve(bytes) else { throw .busy }
        count = total
    }
}
