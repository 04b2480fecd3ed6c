import AppDNACore
import AppDNANet

/// A request a server refused before it was one it handles (malformed, too large, too slow):
/// the same line in `webhook listen` and `api serve`. Its reason is spelled `reason` in JSON, as
/// every refusal's reason is in both servers' lines and inspector entries.
public struct RejectedRequest: Sendable {
    /// ISO 8601, with milliseconds: when it was refused.
    public let time: String
    public let rejection: HTTPServer.Rejection

    public init(time: String, _ rejection: HTTPServer.Rejection) {
        self.time = time
        self.rejection = rejection
    }

    /// `{"time", "peer", "rejected": true, "status", "reason"}`; `api serve`'s line also has the
    /// reason under `note`, the name it had first (fields are only added to).
    public func jsonLine(withNote: Bool) -> String {
        var object: JSONObject = ["time": .string(time), "peer": .string(rejection.peer), "rejected": true, "status": .integer(rejection.status)]
        if withNote { object["note"] = .string(rejection.reason) }
        object["reason"] = .string(rejection.reason)
        return JSONWriter().writeString(.object(object))
    }

    /// "2026-…Z  rejected 400 from 127.0.0.1:50000: the request line is not HTTP/1.x"
    public var textLine: String {
        "\(time)  rejected \(rejection.status) from \(rejection.peer): \(rejection.reason)"
    }
}
