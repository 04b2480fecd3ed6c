import AppDNACore
import AppDNANet

/// What `api serve` answers a request, and what its request line says about it (the log, the
/// summary, the inspector).
struct ServeAnswer {
    var response: HTTPServer.Response
    /// The endpoint's short name in the line and the summary (`bundle`, `version`, `events`).
    var endpoint: String
    var note: String
    var injected = false
    var refusedKey = false
    var events = 0
    var duplicates = 0
    /// A batch's events as sent, and which were duplicates (for `--inspect`).
    var batch: [(bytes: [UInt8], duplicate: Bool)]? = nil
    /// The exposures of a batch's new events, audited against the served bundle (nil: none carried one).
    var audit: BatchAudit? = nil
    /// What the batch holds of the server's budget, given back when this answer is dropped
    /// (after it is logged and written).
    var held: HeldBytes? = nil

    /// `{"error": MESSAGE}` with `status`: how every endpoint refuses.
    static func jsonError(_ status: Int, _ message: String) -> HTTPServer.Response {
        HTTPServer.Response(status: status, headers: [("Content-Type", "application/json")],
                            body: JSONWriter().write(["error": .string(message)]) + [0x0A])
    }
}
