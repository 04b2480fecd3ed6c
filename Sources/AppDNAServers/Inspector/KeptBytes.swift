import AppDNACore

/// What the inspector keeps of a payload (a request body, an answer): its first `limit` bytes
/// and how long it was. Whatever a sender sends, an entry costs a bounded amount of memory.
public struct KeptBytes: Sendable {
    /// The first bytes, at most the limit the entry was made with.
    public let bytes: [UInt8]
    /// The whole payload's length.
    public let length: Int

    public init(_ all: [UInt8], limit: Int) {
        bytes = all.count <= limit ? all : Array(all[..<limit])
        length = all.count
    }

    /// Every byte was kept: the payload can be pretty-printed, recorded and replayed.
    public var isWhole: Bool { bytes.count == length }

    /// How the page shows it: `length` and `kept` in bytes; `encoding` `json` (whole and
    /// parsed: `pretty` holds it indented), `text` (UTF-8), `binary` (`text` is then the bytes
    /// decoded with U+FFFD for what is not UTF-8) or `deflate` (compressed: no text); `text`
    /// the bytes kept as sent. The page puts every string into the document as text, never as
    /// markup.
    public func json(compressed: Bool = false) -> JSONValue {
        var object: JSONObject = ["length": .integer(length), "kept": .integer(bytes.count)]
        if compressed {
            object["encoding"] = "deflate"
            object["text"] = .null
            object["pretty"] = .null
            return .object(object)
        }
        // A cut can split a character: the text ends at the last whole one.
        let text = UTF8Validation.string(isWhole ? bytes[...] : Self.wholeCharacters(bytes))
        if let text, isWhole, !bytes.isEmpty, let parsed = try? JSONValue(parsing: bytes) {
            object["encoding"] = "json"
            object["text"] = .string(text)
            object["pretty"] = .string(JSONWriter(indent: 2).writeString(parsed))
        } else if let text {
            object["encoding"] = "text"
            object["text"] = .string(text)
            object["pretty"] = .null
        } else {
            object["encoding"] = "binary"
            object["text"] = .string(String(decoding: bytes, as: UTF8.self))
            object["pretty"] = .null
        }
        return .object(object)
    }

    /// `bytes` without the start of a character the cut left incomplete at the end.
    static func wholeCharacters(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var end = bytes.count
        // Back over continuation bytes (10xxxxxx) to the lead byte, at most three.
        while end > 0, bytes.count - end < 3, bytes[end - 1] & 0xC0 == 0x80 { end -= 1 }
        guard end > 0 else { return bytes[...] }
        let lead = bytes[end - 1]
        let needed = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        return bytes.count - (end - 1) < needed ? bytes[..<(end - 1)] : bytes[...]
    }
}
