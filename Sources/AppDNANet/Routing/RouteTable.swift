import AppDNACore

/// A server's endpoints, one `Route` per row, and the one reader of a request's target: every
/// server (`webhook listen`, `api serve`, both inspectors) resolves its requests here and its
/// handlers see only a `RouteMatch`, whose values are typed and inside their ranges.
///
/// - a path no route has: 404;
/// - a path some route has, with another method: 405 and `Allow`;
/// - a parameter not a number, out of its range, empty, given twice, badly percent-encoded, or
///   one the route does not take: 400 naming it.
public struct RouteTable<Endpoint: Sendable>: Sendable {
    public let routes: [Route<Endpoint>]

    public init(_ routes: [Route<Endpoint>]) {
        self.routes = routes
    }

    /// The route `method` and `target` ask for, with its checked values, or why not.
    public func resolve(method: String, target: String) -> Result<RouteMatch<Endpoint>, RouteRefusal> {
        let bytes = Array(target.utf8)
        // Origin-form only (RFC 9112 §3.2.1): the server refuses the other forms before this.
        guard bytes.first == UInt8(ascii: "/") else {
            return .failure(RouteRefusal(status: 400, message: "the request target must be a path starting with /"))
        }
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let pathBytes = bytes[..<(question ?? bytes.endIndex)]
        let queryBytes = question.map { bytes[($0 + 1)...] }
        let rawSegments = pathBytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var segments: [[UInt8]] = []
        for raw in rawSegments {
            guard let decoded = Self.percentDecoded(raw) else {
                return .failure(RouteRefusal(status: 400, message: "the path has a % not followed by two hex digits"))
            }
            segments.append(decoded)
        }
        let path = String(decoding: pathBytes, as: UTF8.self)

        var pathMatched: [Route<Endpoint>] = []
        var firstRefusal: RouteRefusal? = nil
        var matches: [(Route<Endpoint>, [String: RouteParameterSpec.Checked])] = []
        for route in routes {
            switch Self.match(route.path, segments) {
            case .none: continue
            case .refused(let refusal):
                firstRefusal = firstRefusal ?? refusal
                pathMatched.append(route)
            case .values(let values):
                pathMatched.append(route)
                matches.append((route, values))
            }
        }
        guard !pathMatched.isEmpty else {
            return .failure(RouteRefusal(status: 404, message: "no such endpoint: \(HeaderText.excerpt(path))"))
        }
        guard let (route, pathValues) = matches.first(where: { $0.0.allowedMethods.contains(method) }) else {
            if matches.isEmpty, let firstRefusal { return .failure(firstRefusal) }
            var allow: [String] = []
            for route in pathMatched { for method in route.allowedMethods where !allow.contains(method) { allow.append(method) } }
            return .failure(RouteRefusal(status: 405, message: "\(HeaderText.excerpt(path)) takes \(allow.joined(separator: ", ")), not \(HeaderText.excerpt(method))",
                                         allow: allow))
        }
        var values = pathValues
        if case .declared(let specs) = route.query, let queryBytes {
            switch Self.query(queryBytes, specs) {
            case .success(let queryValues): values.merge(queryValues) { path, _ in path }
            case .failure(let refusal): return .failure(refusal)
            }
        }
        return .success(RouteMatch(endpoint: route.endpoint, route: route, path: path, values: values))
    }

    private enum PathMatch {
        case none
        /// The literals match; a typed segment does not hold a valid value (400, not 404).
        case refused(RouteRefusal)
        case values([String: RouteParameterSpec.Checked])
    }

    private static func match(_ pattern: [Route<Endpoint>.Segment], _ segments: [[UInt8]]) -> PathMatch {
        var values: [String: RouteParameterSpec.Checked] = [:]
        var refusal: RouteRefusal? = nil
        for (index, segment) in pattern.enumerated() {
            if case .rest = segment { return refusal.map { .refused($0) } ?? .values(values) }
            guard index < segments.count else { return .none }
            switch segment {
            case .literal(let text):
                guard Array(text.utf8) == segments[index] else { return .none }
            case .parameter(let spec):
                switch spec.check(segments[index]) {
                case .success(let value): values[spec.name] = value
                case .failure(let why): refusal = refusal ?? why
                }
            case .rest:
                break
            }
        }
        guard pattern.count == segments.count else { return .none }
        return refusal.map { .refused($0) } ?? .values(values)
    }

    /// The declared parameters of `bytes` (`a=1&b=2`), each checked.
    private static func query(_ bytes: ArraySlice<UInt8>, _ specs: [RouteParameterSpec]) -> Result<[String: RouteParameterSpec.Checked], RouteRefusal> {
        var values: [String: RouteParameterSpec.Checked] = [:]
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = percentDecoded(pair[..<(equals ?? pair.endIndex)]),
                  let value = percentDecoded(equals.map { pair[($0 + 1)...] } ?? []) else {
                return .failure(RouteRefusal(status: 400, message: "the query has a % not followed by two hex digits"))
            }
            let shownName = HeaderText.excerpt(String(decoding: name, as: UTF8.self))
            guard let spec = specs.first(where: { Array($0.name.utf8) == name }) else {
                let takes = specs.isEmpty ? "this path takes no parameters" : "this path takes \(specs.map(\.name).joined(separator: ", "))"
                return .failure(RouteRefusal(status: 400, message: "unknown parameter '\(shownName)': \(takes)", parameter: shownName))
            }
            guard values[spec.name] == nil else {
                return .failure(RouteRefusal(status: 400, message: "\(spec.name) is given more than once", parameter: spec.name))
            }
            guard !value.isEmpty else {
                return .failure(RouteRefusal(status: 400, message: "\(spec.name) is empty: it takes \(spec.accepts)", parameter: spec.name))
            }
            switch spec.check(value) {
            case .success(let checked): values[spec.name] = checked
            case .failure(let refusal): return .failure(refusal)
            }
        }
        return .success(values)
    }

    /// `%XX` decoded; nil when a `%` is not followed by two hex digits. `+` stays `+`.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = Hex.value(of: bytes[index + 1]), let low = Hex.value(of: bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }
}

/// A request the table resolved: its endpoint and its parameters' typed values.
public struct RouteMatch<Endpoint: Sendable>: Sendable {
    public let endpoint: Endpoint
    public let route: Route<Endpoint>
    /// The target's path, as sent (before `?`).
    public let path: String
    let values: [String: RouteParameterSpec.Checked]

    /// The value of a parameter the route declares (its `absent` value when not given).
    public subscript<Value>(_ parameter: RouteParameter<Value>) -> Value {
        assert(route.parameters.contains { $0.name == parameter.spec.name }, "route \(route.pattern) does not declare \(parameter.spec.name)")
        return values[parameter.spec.name].map(parameter.read) ?? parameter.absent
    }
}
