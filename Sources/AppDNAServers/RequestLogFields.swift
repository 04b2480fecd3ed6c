import AppDNACore
import AppDNANet

/// The fields every per-request JSON log line of our servers starts with (`webhook listen`,
/// `api serve`), so that one script can read both logs.
enum RequestLogFields {
    static func start(time: String, _ request: HTTPServer.Request) -> JSONObject {
        var object = JSONObject()
        object["time"] = .string(time)
        object["peer"] = .string(request.peer)
        object["method"] = .string(request.head.method)
        object["target"] = .string(request.head.target)
        return object
    }
}
