import AppDNACore
import AppDNANet

/// `api serve --inspect PORT`: what the inspector shows of a request to the local API.
enum RequestInspection {
    /// Starts the inspector beside `api serve`'s `listener` (nil without `--inspect`).
    static func start(_ invocation: Invocation, listener: HTTPServer, log: ServeLog, bundle: ServedBundle) throws -> InspectorServer? {
        var site = InspectorServer.Site(kind: "api", collection: "requests", listener: ["address": .string(listener.baseURL)])
        site.bundle = { request in OverrideAPI.answer(request, bundle: bundle, note: log.note) }
        site.listenerDescription = ServerDescriptions.serve
        return try InspectorServer.launch(invocation.arguments, inspect: APIServeFlags.inspect, keep: APIServeFlags.inspectKeep, maxBytes: APIServeFlags.inspectMaxBytes,
                                          site: site, noun: "requests", note: log.note)
    }

    /// The entry of one request: the fields `api serve --json` prints, the injected fault in
    /// words, and an event batch's events (as many as fit in `InspectorLog.bodyBytes`).
    static func entry(_ request: HTTPServer.Request, _ answer: ServeAnswer, time: String) -> InspectorEntry {
        var summary: JSONObject = [:]
        summary["endpoint"] = .string(answer.endpoint)
        summary["status"] = .integer(answer.response.status)
        summary["injected"] = .bool(answer.injected)
        summary["fault"] = answer.injected ? .string(answer.note) : .null
        summary["note"] = .string(answer.note)
        summary["events"] = .integer(answer.events)
        summary["duplicates"] = .integer(answer.duplicates)
        summary["body_length"] = .integer(request.body.count)
        summary["audit"] = answer.audit?.json ?? .null
        var entry = InspectorEntry(time: time, request: request, answer: answer.response, summary: summary)
        entry.bodyIsCompressed = request.head.value(of: "Content-Encoding")?.lowercased() == "deflate"
        if let batch = answer.batch {
            var room = InspectorLog.bodyBytes
            entry.batch = Array(batch.prefix(while: { event in
                room -= event.bytes.count
                return room >= 0
            }))
            entry.batchCount = batch.count
        }
        return entry
    }
}
