/// An RFC 6901 JSON Pointer: a path of reference tokens. The empty string is the whole
/// document; each token is written after a `/` with `~` as `~0` and `/` as `~1`.
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    /// The unescaped reference tokens.
    public var tokens: [String]

    public static let root = JSONPointer(tokens: [])

    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses pointer text such as `/experiments/0/key`.
    public init(parsing text: String) throws(JSONPointerError) {
        guard !text.isEmpty else { self.tokens = []; return }
        guard text.first == "/" else { throw JSONPointerError(text: text, problem: "must be empty or start with '/'") }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var iterator = raw.makeIterator()
            while let c = iterator.next() {
                guard c == "~" else { token.append(c); continue }
                switch iterator.next() {
                case "0"?: token.append("~")
                case "1"?: token.append("/")
                default: throw JSONPointerError(text: text, problem: "'~' must be followed by '0' or '1'")
                }
            }
            tokens.append(token)
        }
        self.tokens = tokens
    }

    public func appending(key: String) -> JSONPointer { JSONPointer(tokens: tokens + [key]) }
    public func appending(index: Int) -> JSONPointer { JSONPointer(tokens: tokens + [String(index)]) }

    public var description: String {
        var out = ""
        for token in tokens {
            out += "/"
            for c in token {
                switch c {
                case "~": out += "~0"
                case "/": out += "~1"
                default: out.append(c)
                }
            }
        }
        return out
    }

    /// An array index token: decimal digits without leading zeros (`-`, "past the end", never
    /// names an existing element).
    static func arrayIndex(_ token: String) -> Int? {
        let bytes = Array(token.utf8)
        guard let first = bytes.first, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        if first == UInt8(ascii: "0") && bytes.count > 1 { return nil }
        return Int(token)
    }
}

/// Pointer text that is not a valid RFC 6901 pointer.
public struct JSONPointerError: ClassifiedError, Equatable, Sendable {
    public var text: String
    public var problem: String
    public var kind: FailureKind { .usage }
    public var message: String { "invalid JSON pointer \"\(text)\": \(problem)" }
}
