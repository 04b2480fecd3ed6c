import AppDNACore
import AppDNAServers

/// `POST /api/identity` on `api serve`'s inspector (issue 51.2): a user id a device in the
/// given context assigns every forced variant, searched in the **source** bundle (the file or
/// the live bundle, without the overrides: a device that does not load the served bundle runs
/// its own config, and the id forces the variants there, on every SDK version), with the
/// `identify` line for each SDK; or every requirement no id can meet. Changes nothing, so it
/// needs no token. docs/schemas/api-identity.schema.json.
///
///     {"force": {"EXPERIMENT": "VARIANT", …}, "context": {"platform": "ios", "country": "US",
///      "app_version": "2.4", "traits": {"plan": "pro"}, "installed_at_ms": 1764000000000},
///      "prefix": "qa-user-"}
enum IdentityAPI {
    /// At most this many forced experiments and traits in one request, and bytes in a prefix.
    static let maxForced = 64
    static let maxTraits = 256
    static let maxPrefixBytes = 256

    /// One search at a time: each may take up to `ForcedIdentity`'s budget of tries on the
    /// inspector's thread, and several at once would starve the console's own requests.
    private static let searching = Locked(false)

    static func answer(body: [UInt8], bundle: ServedBundle) throws -> (status: Int, result: JSONValue) {
        let (forced, context, prefix) = try request(body)
        guard searching.withLock({ busy in defer { busy = true }; return !busy }) else {
            return (503, ["error": .string("another user id search is running on this server; try again when it is done")])
        }
        defer { searching.withLock { $0 = false } }
        let source = try bundle.sourceDocument()
        switch ForcedIdentity.plan(experiments: BundleExperiments.all(in: source.root), forced: forced, context: context) {
        case .refused(let obstacles):
            return (409, ["error": .string(obstacles.map(\.description).joined(separator: "; ")),
                          "obstacles": .array(obstacles.map(obstacleJSON))])
        case .ready(let search):
            guard case (let user?, let tries) = search.search(prefix: prefix) else {
                return (409, ["error": .string("no id among \(search.limit) tries (\(prefix)0 …) meets every forced variant; try another prefix"),
                              "obstacles": .array([])])
            }
            let rows = try BucketForce.verified(user, search: search, forced: forced)
            guard case .object(var object) = BucketForce.document(user: user, tries: tries, search: search, rows: rows) else { return (500, [:]) }
            object["source"] = .string(bundle.name)
            object["source_bundle_version"] = source.root["bundle_version"].flatMap { $0.int64 }.map { .integer($0) } ?? .null
            return (200, .object(object))
        }
    }

    static func obstacleJSON(_ obstacle: ForcedIdentity.Obstacle) -> JSONValue {
        var object: JSONObject = ["message": .string(obstacle.description)]
        switch obstacle {
        case .noSuchExperiment(let id, _): object["requirement"] = "experiment"; object["experiment"] = .string(id)
        case .forcedTwice(let id, _): object["requirement"] = "one-variant"; object["experiment"] = .string(id)
        case .noSuchVariant(let id, _, _): object["requirement"] = "variant"; object["experiment"] = .string(id)
        case .variantWithoutBuckets(let id, _): object["requirement"] = "variant-weight"; object["experiment"] = .string(id)
        case .ruleFails(let id, let rule): object["requirement"] = .string(rule.rule); object["experiment"] = .string(id)
        case .contextNeeded(let id, let rule):
            object["requirement"] = .string(rule.rule); object["experiment"] = .string(id)
            object["settled_by"] = rule.settledBy.map { .string(contextField($0)) } ?? .null
        case .allocationEmpty(let id, _): object["requirement"] = "traffic_allocation"; object["experiment"] = .string(id)
        case .tooRare: object["requirement"] = "search-budget"
        }
        return .object(object)
    }

    /// The request field that gives a piece of context.
    static func contextField(_ input: ContextInput) -> String {
        switch input {
        case .platform: return "context.platform"
        case .country: return "context.country"
        case .appVersion: return "context.app_version"
        case .installedAt: return "context.installed_at_ms"
        case .trait(let name): return "context.traits.\(name)"
        }
    }

    /// The body, every field checked where it enters (400 material: usage failures).
    static func request(_ body: [UInt8]) throws(Failure) -> ([ForcedIdentity.Forced], UserContext, String) {
        let root: JSONValue
        do { root = try JSONValue(parsing: body) } catch {
            throw Failure(.usage, "the body is not JSON: \(error.message)")
        }
        guard case .object(let object) = root, case .object(let force)? = object["force"], !force.isEmpty else {
            throw Failure(.usage, "the body is {\"force\": {\"EXPERIMENT\": \"VARIANT\", …}, \"context\": {\"platform\": \"ios\", …}}")
        }
        guard force.count <= maxForced else { throw Failure(.usage, "at most \(maxForced) experiments can be forced at once") }
        var forced: [ForcedIdentity.Forced] = []
        for member in force {
            guard case .string(let id) = member.value else { throw Failure(.usage, "force.\(member.key) is the variant id, a string") }
            forced.append(.init(experiment: member.key, variant: id))
        }
        var context = UserContext()
        if let given = object["context"], given != .null {
            guard case .object(let fields) = given else { throw Failure(.usage, "context is an object") }
            func text(_ name: String) throws(Failure) -> String? {
                switch fields[name] {
                case nil, .null?: return nil
                case .string(let value)?: return value
                default: throw Failure(.usage, "context.\(name) is a string")
                }
            }
            if let platform = try text("platform") {
                guard DevicePlatform(rawValue: platform.lowercased()) != nil else {
                    throw Failure(.usage, "context.platform is ios, android or web, not '\(platform)'")
                }
                context.platform = platform.lowercased()
            }
            context.country = try text("country")
            context.appVersion = try text("app_version")
            switch fields["installed_at_ms"] {
            case nil, .null?: break
            case let value?:
                guard case .number(let number) = value, let ms = JSONNumber.integralInt64(number.text), ms >= 0 else { throw Failure(.usage, "context.installed_at_ms is a whole number of ms since 1970, 0 or more") }
                context.installedAtMs = ms
            }
            switch fields["traits"] {
            case nil, .null?: break
            case .object(let traits)?:
                guard traits.count <= maxTraits else { throw Failure(.usage, "at most \(maxTraits) traits") }
                for member in traits {
                    guard case .string(let text) = member.value else { throw Failure(.usage, "context.traits.\(member.key) is a string, as --trait gives it") }
                    context.traits[ByteKey(member.key)] = text
                }
            default: throw Failure(.usage, "context.traits is an object of strings")
            }
        }
        var prefix = "qa-user-"
        switch object["prefix"] {
        case nil, .null?: break
        case .string(let text)?:
            guard text.utf8.count <= maxPrefixBytes else { throw Failure(.usage, "prefix is at most \(maxPrefixBytes) bytes") }
            prefix = text
        default: throw Failure(.usage, "prefix is a string")
        }
        return (forced, context, prefix)
    }
}
