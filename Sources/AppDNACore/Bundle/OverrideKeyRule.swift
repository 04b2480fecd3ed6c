/// What an override may hold, the one rule for every way in (`--override`, the state file,
/// `PUT /api/overrides/KIND/KEY`, `api override`): a key the routes accept is a key the store
/// accepts and the other way round, so whatever is listed can be cleared. The routes' path
/// parameter (`RouteParameter.pathText`, with `maxKeyCharacters`) takes the same text: 1 to
/// `maxKeyCharacters` Unicode scalars of UTF-8 (so at most `maxKeyBytes` bytes) without control
/// characters (C0, DEL, C1). Counted in scalars as JSON Schema's `maxLength` counts them, so the
/// OpenAPI description states this very rule.
public enum OverrideKeyRule {
    /// The longest key or variant accepted, in Unicode scalars (bundle ids are short; this
    /// bounds what a request can make us keep).
    public static let maxKeyCharacters = 256
    /// What that is at most in bytes (four per scalar).
    public static let maxKeyBytes = 4 * maxKeyCharacters
    /// How deep a flag or config value may nest: the state file holds it 3 levels down and the
    /// served bundle 2, far inside the parser's 1,000, so what is kept always loads and serves.
    public static let maxValueDepth = 64

    public static func accepts(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.count <= maxKeyCharacters && !key.unicodeScalars.contains { isControl($0) }
    }

    /// Why `key` is refused, with the key made visible.
    public static func refusal(_ key: String) -> String {
        if key.isEmpty || key.unicodeScalars.count > maxKeyCharacters { return "an override's key must be 1 to \(maxKeyCharacters) characters" }
        return "an override's key has no control characters (C0, DEL, C1): '\(VisibleText.escaped(key))'"
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The nesting of `value`: 0 for a scalar, 1 for `[]` or `{}` of scalars, …, counted
    /// without recursion (a hand-edited state can nest as deep as the parser allows).
    public static func depth(of value: JSONValue) -> Int {
        var deepest = 0
        var pending: [(JSONValue, Int)] = [(value, 0)]
        while let (next, level) = pending.popLast() {
            switch next {
            case .array(let items):
                deepest = max(deepest, level + 1)
                pending += items.map { ($0, level + 1) }
            case .object(let object):
                deepest = max(deepest, level + 1)
                pending += object.map { ($0.value, level + 1) }
            default:
                break
            }
        }
        return deepest
    }
}
