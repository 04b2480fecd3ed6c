import AppDNACore

/// A parameter of a route, declared once with its type and range, as a `Flag` is for the
/// command line: the route table reads the spec (to check a request, and to tell the fuzzer
/// what to attack), a handler reads the typed value (`match[InspectorRoutes.after]` is an `Int`
/// already inside its range). No handler parses a query string or does arithmetic on a number
/// nobody checked: Swift traps on overflow, and a trap is the whole server gone.
public struct RouteParameter<Value: Sendable>: Sendable {
    public let spec: RouteParameterSpec
    /// The value when the parameter is absent (an optional query parameter).
    let absent: Value
    /// The value of checked text (`spec.check` accepted it).
    let read: @Sendable (RouteParameterSpec.Checked) -> Value

    /// An optional query parameter holding a whole number in `range`, `absent` without it.
    public static func integer(_ name: String, _ range: ClosedRange<Int>, absent: Int, _ summary: String) -> RouteParameter<Int> {
        RouteParameter<Int>(spec: RouteParameterSpec(name: name, place: .query, kind: .integer(range), summary: summary),
                            absent: absent, read: { checked in checked.integer ?? absent })
    }

    /// A path segment holding a whole number in `range` (an entry's id).
    public static func pathInteger(_ name: String, _ range: ClosedRange<Int>, _ summary: String) -> RouteParameter<Int> {
        RouteParameter<Int>(spec: RouteParameterSpec(name: name, place: .path, kind: .integer(range), summary: summary),
                            absent: range.lowerBound, read: { checked in checked.integer ?? range.lowerBound })
    }

    /// A path segment whose value is one of `choices` (exact bytes).
    public static func pathChoice(_ name: String, _ choices: [String], _ summary: String) -> RouteParameter<String> {
        RouteParameter<String>(spec: RouteParameterSpec(name: name, place: .path, kind: .choice(choices), summary: summary),
                               absent: choices[0], read: { checked in checked.text ?? choices[0] })
    }

    /// A path segment holding text (an experiment id, a flag key): percent-decoded, UTF-8, 1 to
    /// `maxCharacters` Unicode scalars (so at most four times as many bytes), no control
    /// characters. Counted in characters as JSON Schema's `maxLength` counts them, so the
    /// OpenAPI description says exactly what is accepted. Ids are data: `/` and any other byte
    /// arrive percent-encoded.
    public static func pathText(_ name: String, maxCharacters: Int, _ summary: String) -> RouteParameter<String> {
        RouteParameter<String>(spec: RouteParameterSpec(name: name, place: .path, kind: .text(maxCharacters: maxCharacters), summary: summary),
                               absent: "", read: { checked in checked.text ?? "" })
    }

    /// An optional query parameter whose value is one of `choices` (exact bytes).
    public static func choice(_ name: String, _ choices: [String], _ summary: String) -> RouteParameter<String?> {
        RouteParameter<String?>(spec: RouteParameterSpec(name: name, place: .query, kind: .choice(choices), summary: summary),
                                absent: nil, read: { checked in checked.text })
    }
}

/// What the table knows of a parameter: its name, where it is, what it accepts.
public struct RouteParameterSpec: Sendable {
    public enum Place: Sendable, Equatable {
        /// `?name=value`: optional, at most once.
        case query
        /// A segment of the path (`/api/deliveries/{id}`): always there.
        case path
    }

    public enum Kind: Sendable {
        /// Decimal digits only (no sign, no `+`, no exponent, no hex), within the range.
        case integer(ClosedRange<Int>)
        /// One of these words, compared by bytes.
        case choice([String])
        /// UTF-8 text of 1 to `maxCharacters` Unicode scalars without control characters (C0, DEL, C1).
        case text(maxCharacters: Int)
    }

    public let name: String
    public let place: Place
    public let kind: Kind
    public let summary: String

    /// A value that passed `check`.
    public struct Checked: Sendable {
        let integer: Int?
        let text: String?
    }

    /// The value of this parameter in `bytes` (percent-decoded already), or why it is refused:
    /// the words of a 400 answer, naming the parameter.
    public func check(_ bytes: [UInt8]) -> Result<Checked, RouteRefusal> {
        let shown = HeaderText.excerpt(String(decoding: bytes, as: UTF8.self))
        switch kind {
        case .integer(let range):
            guard let number = Self.decimal(bytes), range.contains(number) else {
                return .failure(RouteRefusal(status: 400, message: "\(name) takes \(Self.words(range)), not '\(shown)'", parameter: name))
            }
            return .success(Checked(integer: number, text: nil))
        case .choice(let choices):
            guard let choice = choices.first(where: { Array($0.utf8) == bytes }) else {
                return .failure(RouteRefusal(status: 400, message: "\(name) takes one of \(choices.joined(separator: ", ")), not '\(shown)'", parameter: name))
            }
            return .success(Checked(integer: nil, text: choice))
        case .text(let maxCharacters):
            // Bytes bound the work before decoding: no text of more bytes has few enough scalars.
            guard !bytes.isEmpty, bytes.count <= 4 * maxCharacters, let text = UTF8Validation.string(bytes),
                  text.unicodeScalars.count <= maxCharacters,
                  !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
                return .failure(RouteRefusal(status: 400, message: "\(name) takes \(accepts), not '\(shown)'", parameter: name))
            }
            return .success(Checked(integer: nil, text: text))
        }
    }

    /// What the parameter accepts, in words (help, errors, the API docs).
    public var accepts: String {
        switch kind {
        case .integer(let range): return Self.words(range)
        case .choice(let choices): return "one of \(choices.joined(separator: ", "))"
        case .text(let maxCharacters): return "text of 1 to \(maxCharacters) characters (UTF-8, percent-encoded, no control characters)"
        }
    }

    static func words(_ range: ClosedRange<Int>) -> String {
        "a whole number from \(range.lowerBound) to \(range.upperBound)"
    }

    /// Plain decimal digits as a number; nil for anything else, or more than fit an `Int`
    /// (counted without overflowing: 30 digits are refused, not trapped on).
    static func decimal(_ bytes: [UInt8]) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 40 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflowTimes && !overflowSum else { return nil }
            value = sum
        }
        return value
    }
}

/// A request the route table refuses: its status (400, 404, 405), what the answer says, the
/// parameter at fault (400) and the methods the path takes (405's `Allow`).
public struct RouteRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let message: String
    public var parameter: String? = nil
    public var allow: [String] = []

    /// `Allow` for a 405 (RFC 9110 §15.5.6 requires it), nothing otherwise: added to whatever
    /// body the server words the refusal in.
    public var headers: [(name: String, value: String)] {
        allow.isEmpty ? [] : [("Allow", allow.joined(separator: ", "))]
    }

    /// The answer's words: what a server says in its body.
    public var description: String { message }
}
