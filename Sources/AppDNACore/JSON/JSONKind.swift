/// The six kinds of JSON value.
public enum JSONKind: UInt8, Sendable, Equatable, CustomStringConvertible {
    case null, bool, number, string, array, object

    public var description: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
