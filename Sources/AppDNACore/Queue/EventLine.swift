/// One NDJSON line about a queued event: what the tool found out (`fields`), then the event
/// itself as its last member, `"event"`. `queue inspect --events` and the replay dead-letter
/// file both write these, so they follow one rule: the event is copied as stored, byte for
/// byte, unless copying would break the line (a CR or LF inside a pretty-printed event) or
/// carry a byte-order mark into the middle of the line; then it is written compact.
public enum EventLine {
    /// `parsed` gives the event's value when it must be written compact (callers that already
    /// hold it pass it; by default the bytes are parsed, and kept as stored if they do not parse).
    public static func make(_ fields: JSONObject, event: [UInt8],
                            parsed: () -> JSONValue? = { nil }) -> [UInt8] {
        var bytes = JSONWriter().write(.object(fields))
        bytes.removeLast()  // the object's `}`: the event is its last member
        bytes.append(contentsOf: ",\"event\":".utf8)
        let breaksLine = event.contains(10) || event.contains(13) || event.starts(with: [0xEF, 0xBB, 0xBF])
        if breaksLine, let value = parsed() ?? (try? JSONValue(parsing: event)) {
            bytes.append(contentsOf: JSONWriter().write(value))
        } else {
            bytes.append(contentsOf: event)
        }
        bytes.append(contentsOf: "}\n".utf8)
        return bytes
    }
}
