import AppDNACore
import AppDNANet

/// The dead-letter file's lines for a batch the server refused for good: one NDJSON object per
/// event with where it came from, its event_id, the status, the answer's first bytes (the key's
/// text masked: a gateway may echo the request) and the event itself as stored.
enum DeadLetterRecord {
    static func lines(_ batch: ReplayBatch, response: HTTPResponse, key: APIKey, at milliseconds: Int64) -> [UInt8] {
        let reply = String(decoding: key.redacting(Array(response.body.prefix(AppDNAAPI.keptIngestAnswerBytes))), as: UTF8.self)
        let at = Timestamp.iso8601(milliseconds: milliseconds)
        var lines: [UInt8] = []
        for event in batch.events {
            var object = event.location.jsonObject
            object["event_id"] = .string(event.id)
            object["status"] = .integer(response.status)
            object["response"] = .string(reply)
            object["dead_lettered_at"] = .string(at)
            var bytes = JSONWriter().write(.object(object))
            bytes.removeLast()
            bytes.append(contentsOf: ",\"event\":".utf8)
            // One event per line: a stored event spread over lines is written compact.
            if event.bytes.contains(10) || event.bytes.contains(13), let value = try? JSONValue(parsing: event.bytes) {
                var compact = JSONWriter().write(value)
                if compact.last == 10 { compact.removeLast() }
                bytes.append(contentsOf: compact)
            } else {
                bytes.append(contentsOf: event.bytes)
            }
            bytes.append(contentsOf: "}\n".utf8)
            lines.append(contentsOf: bytes)
        }
        return lines
    }
}
