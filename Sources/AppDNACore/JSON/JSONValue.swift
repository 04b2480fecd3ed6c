/// An owned JSON tree, for building and transforming output (parsing gives `JSONNode`s, which
/// borrow the document's bytes; `JSONNode.value` copies one out).
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Parses a whole document into an owned tree.
    public init(parsing bytes: [UInt8], options: JSONParseOptions = JSONParseOptions()) throws(JSONSyntaxError) {
        self = try JSONDocument(bytes: bytes, options: options).root.value
    }

    public var kind: JSONKind {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case let .object(object) = self else { return nil }
        return object[key]
    }

    public subscript(index: Int) -> JSONValue? {
        guard case let .array(items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// Equal when the same bytes would be written: strings compare by their UTF-8 bytes, not by
    /// Swift's canonical equivalence (`"café"` and `"cafe\u{301}"` are different JSON).
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return ByteIdentity.same(x, y)
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x == y
        default: return false
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keeps the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

extension JSONValue {
    /// A whole number of any integer type (`.integer(hash)` for a UInt32, an Int64, …).
    public static func integer<T: BinaryInteger>(_ value: T) -> JSONValue {
        .number(JSONNumber(validatedText: String(value)))
    }

    /// A finite double, written in its shortest round-trip form.
    public static func decimal(_ value: Double) -> JSONValue {
        .number(JSONNumber(value))
    }
}
