/// `api serve`'s overrides: a variant, a flag, a config value or the onboarding flow forced on
/// every device, and the bundle that forces them. Devices compute assignment themselves from
/// the bundle (platform facts §2), so an override is not an answer the server gives: it is a
/// rewritten bundle from which every device computes the forced answer.
///
/// - experiment KEY=VARIANT: the experiment is `running`, has no `platforms`, `targeting` or
///   `traffic_allocation` (absent means everyone, in both schemes and on every SDK version),
///   and VARIANT has weight 1 while the others have 0: VARIANT's range is every bucket (all
///   10,000 of the SDK scheme, all 100 of the docs scheme), so no user id lands elsewhere.
/// - flag / config KEY=JSON: the raw value, in the section the SDK reads (`remote_config` when
///   it is non-empty, else `feature_flags` when that is, else a `remote_config`), replacing a
///   `{"value": …, "type": …}` wrapper (which the SDK would hand the app as a dictionary).
/// - onboarding FLOW: `onboarding.active_flow_id`.
///
/// The served bundle is in the SDK file shape (what the SDK loads) with `bundle_version` the
/// source's plus the number of changes made so far, so it rises with every change.
public struct BundleOverride: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case experiment, flag, config, onboarding
    }

    public let kind: Kind
    /// The experiment id or the flag/config key (compared by bytes); `flow` for onboarding.
    public let key: String
    /// The variant id or flow id (a string), or the flag/config value.
    public let value: JSONValue

    /// The key of the onboarding override: there is one active flow.
    public static let onboardingKey = "flow"
    /// The longest key or variant accepted (bundle ids are short; this bounds what a request can make us keep).
    public static let maxKeyBytes = OverrideKeyRule.maxKeyBytes

    /// An override with its value checked for its kind (a usage error otherwise).
    public init(kind: Kind, key: String, value: JSONValue) throws(Failure) {
        let key = kind == .onboarding ? Self.onboardingKey : key
        // One rule for the store and the routes (`/api/overrides/KIND/KEY`): what is kept can be cleared.
        guard OverrideKeyRule.accepts(key) else { throw Failure(.usage, OverrideKeyRule.refusal(key)) }
        switch kind {
        case .experiment, .onboarding:
            guard case .string(let text) = value, OverrideKeyRule.accepts(text) else {
                throw Failure(.usage, kind == .experiment ? "an experiment override's value is the variant id, a string of 1 to \(OverrideKeyRule.maxKeyCharacters) characters without control characters"
                                                          : "an onboarding override's value is the flow id, a string of 1 to \(OverrideKeyRule.maxKeyCharacters) characters without control characters")
            }
        case .flag, .config:
            // The state file nests a value 3 deep and the served bundle 2: a bound far inside the parser's.
            guard OverrideKeyRule.depth(of: value) <= OverrideKeyRule.maxValueDepth else {
                throw Failure(.usage, "\(kind.rawValue):\(VisibleText.escaped(key)): the value is nested deeper than \(OverrideKeyRule.maxValueDepth) levels")
            }
        }
        self.kind = kind
        self.key = key
        self.value = value
    }

    /// `experiment:KEY=VARIANT`, `flag:KEY=JSON`, `config:KEY=JSON` (a JSON value: `'"Hi"'`,
    /// `3`, `{"a":1}`; a flag also takes `true`/`false`, which are JSON) or `onboarding:FLOW`.
    /// The key ends at the first `=`.
    public init(parsing text: String) throws(Failure) {
        let usage = "an override is \(Kind.syntaxes), not '\(text)'"
        guard let colon = text.firstIndex(of: ":"), let kind = Kind(rawValue: String(text[..<colon])) else {
            throw Failure(.usage, usage)
        }
        let rest = String(text[text.index(after: colon)...])
        if kind == .onboarding {
            try self.init(kind: kind, key: Self.onboardingKey, value: .string(rest))
            return
        }
        guard let equals = rest.firstIndex(of: "=") else { throw Failure(.usage, usage) }
        let key = String(rest[..<equals])
        let valueText = String(rest[rest.index(after: equals)...])
        if kind == .experiment {
            try self.init(kind: kind, key: key, value: .string(valueText))
            return
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Array(valueText.utf8), options: JSONParseOptions(maxDepth: OverrideKeyRule.maxValueDepth + 1))
        } catch {
            throw Failure(.usage, "\(kind.rawValue):\(key): '\(valueText)' is not a JSON value (a string needs its quotes: '\"text\"')")
        }
        try self.init(kind: kind, key: key, value: value)
    }

    /// `kind:key=value` as `--override` takes it (the value as JSON, a variant or flow as written).
    public var text: String {
        switch kind {
        case .onboarding: return "onboarding:\(value.stringValue ?? "")"
        case .experiment: return "experiment:\(key)=\(value.stringValue ?? "")"
        case .flag, .config: return "\(kind.rawValue):\(key)=\(JSONWriter().writeString(value))"
        }
    }

    /// `{"kind": …, "key": …, "value": …}`: the API's and the state file's form.
    public var json: JSONValue {
        ["kind": .string(kind.rawValue), "key": .string(key), "value": value]
    }

    public init(json: JSONValue) throws(Failure) {
        guard let kindText = json["kind"]?.stringValue, let kind = Kind(rawValue: kindText),
              let key = json["key"]?.stringValue, let value = json["value"] else {
            throw Failure(.malformedInput, "an override is {\"kind\": \"experiment|flag|config|onboarding\", \"key\": …, \"value\": …}")
        }
        try self.init(kind: kind, key: key, value: value)
    }

    /// Same kind and same key bytes: one replaces the other.
    func sameTarget(_ other: BundleOverride) -> Bool {
        kind == other.kind && ByteIdentity.same(key, other.key)
    }
}

/// The overrides in force, in the order they were first set, and the bundle they make.
public struct BundleOverrides: Sendable, Equatable {
    public private(set) var list: [BundleOverride] = []

    public init(_ list: [BundleOverride] = []) {
        for item in list { set(item) }
    }

    public var isEmpty: Bool { list.isEmpty }

    /// Sets `item`, replacing the override of the same kind and key.
    public mutating func set(_ item: BundleOverride) {
        if let index = list.firstIndex(where: { $0.sameTarget(item) }) { list[index] = item } else { list.append(item) }
    }

    /// Removes the override of `kind` and `key`; whether there was one.
    @discardableResult
    public mutating func clear(kind: BundleOverride.Kind, key: String) -> Bool {
        let key = kind == .onboarding ? BundleOverride.onboardingKey : key
        guard let index = list.firstIndex(where: { $0.kind == kind && ByteIdentity.same($0.key, key) }) else { return false }
        list.remove(at: index)
        return true
    }

    /// The override of `kind` and `key`, if set.
    public func value(kind: BundleOverride.Kind, key: String) -> JSONValue? {
        list.first { $0.kind == kind && ByteIdentity.same($0.key, key) }?.value
    }

    /// Why `item` cannot apply to the bundle `root` (either shape): an experiment or variant it
    /// does not have, a flag it does not have (a config key may be new), a flow its onboarding
    /// does not list. A usage error naming what exists.
    public static func check(_ item: BundleOverride, against root: JSONNode, name: String) throws(Failure) {
        switch item.kind {
        case .experiment:
            let experiments = BundleExperiments.map(in: root)
            guard let node = experiments?[item.key], node.kind == .object else {
                throw BundleExperiments.notFound(item.key, among: experiments?.members.map(\.key) ?? [], file: name)
            }
            // Only a variant with a string id can be forced: the one without is "#N" to the
            // tool, an id no device computes, and forcing it would give every variant weight 0.
            let list = node["variants"].map { $0.kind == .array ? Array($0.elements) : [] } ?? []
            let variants = list.compactMap { $0["id"]?.string }
            let unnamed = list.count - variants.count
            let variant = item.value.stringValue ?? ""
            guard variants.contains(where: { ByteIdentity.same($0, variant) }) else {
                var listing = variants.isEmpty ? "it has none with a string id" : "it has " + ByteIdentity.labelled(variants).joined(separator: ", ")
                if unnamed > 0 && !variants.isEmpty { listing += " (and \(unnamed) without a string id, which cannot be forced)" }
                throw Failure(.usage, "\(name): experiment '\(item.key)' has no variant '\(variant)'; \(listing)")
            }
        case .flag:
            let model = BundleModel(root: root)
            let keys = model.flags.map { $0.node.kind == .object ? $0.node.members.map(\.key) : [] } ?? []
            guard keys.contains(where: { ByteIdentity.same($0, item.key) }) else {
                let listing = keys.isEmpty ? "it has none" : "it has " + ByteIdentity.labelled(Array(keys.prefix(10))).joined(separator: ", ") + (keys.count > 10 ? ", …" : "")
                throw Failure(.usage, "\(name): no flag '\(item.key)' in the bundle's remote_config or feature_flags; \(listing) (config:KEY=JSON adds a value)")
            }
        case .config:
            break
        case .onboarding:
            let flow = item.value.stringValue ?? ""
            // active_flow_id must name one of onboarding.flows (E016): no flows, nothing to activate.
            let onboarding = BundleFileShape.section("onboarding", in: root)
            guard let flows = onboarding?["flows"], flows.kind == .object, flows.count > 0 else {
                throw Failure(.usage, "\(name): no onboarding flow '\(flow)' in the bundle; it has no onboarding.flows")
            }
            if !flows.members.contains(where: { ByteIdentity.same($0.key, flow) }) {
                throw Failure(.usage, "\(name): no onboarding flow '\(flow)' in the bundle; it has " + ByteIdentity.labelled(flows.members.map(\.key)).joined(separator: ", "))
            }
        }
    }

    /// The source's `bundle_version` plus `changes`: what the served bundle says (a usage error
    /// past the largest integer, rather than a trap).
    public static func servedVersion(source: Int64, changes: Int64) throws(Failure) -> Int64 {
        let (sum, overflow) = source.addingReportingOverflow(changes)
        guard !overflow, changes >= 0 else {
            throw Failure(.malformedInput, "bundle_version \(source) plus \(changes) changes is past the largest version")
        }
        return sum
    }

    /// The bundle devices are served: `root` (either shape) in the SDK file shape, with
    /// `bundle_version` set to `version` and every override applied.
    public func apply(to root: JSONNode, version: Int64) -> JSONValue {
        var bundle = JSONObject(BundleFileShape.members(root).map { ($0.key, $0.value.value) })
        bundle["bundle_version"] = .integer(version)
        for item in list {
            switch item.kind {
            case .experiment: Self.force(variant: item.value.stringValue ?? "", of: item.key, in: &bundle)
            case .flag, .config: Self.set(value: item.value, key: item.key, in: &bundle)
            case .onboarding: Self.activate(flow: item.value.stringValue ?? "", in: &bundle)
            }
        }
        return .object(bundle)
    }

    /// Rewrites experiment `id` so that every device computes `variant` (see the type's comment).
    static func force(variant: String, of id: String, in bundle: inout JSONObject) {
        guard case .object(var section)? = bundle["experiments"] else { return }
        // `{"experiments": {"experiments": {…}}}` or the flat map, as devices read it.
        let wrapped: Bool
        var map: JSONObject
        if case .object(let inner)? = section["experiments"] {
            (wrapped, map) = (true, inner)
        } else {
            (wrapped, map) = (false, section)
        }
        guard case .object(var experiment)? = map[id] else { return }
        experiment["status"] = .string("running")
        experiment["platforms"] = nil
        experiment["targeting"] = nil
        experiment["traffic_allocation"] = nil
        if case .array(let variants)? = experiment["variants"] {
            var forced = false
            experiment["variants"] = .array(variants.map { entry in
                guard case .object(var object) = entry else { return entry }
                let chosen = !forced && ByteIdentity.same(object["id"]?.stringValue, variant)
                if chosen { forced = true }
                object["weight"] = .integer(chosen ? 1 : 0)
                return .object(object)
            })
        }
        map[id] = .object(experiment)
        if wrapped { section["experiments"] = .object(map) } else { section = map }
        bundle["experiments"] = .object(section)
    }

    /// The section the SDK hands the app: `remote_config` when non-empty, else `feature_flags`
    /// when non-empty, else `remote_config` (platform facts §3).
    static func flagSection(of bundle: JSONObject) -> String {
        for name in ["remote_config", "feature_flags"] {
            if case .object(let section)? = bundle[name], !section.isEmpty { return name }
        }
        return "remote_config"
    }

    static func set(value: JSONValue, key: String, in bundle: inout JSONObject) {
        let name = flagSection(of: bundle)
        var section: JSONObject = [:]
        if case .object(let existing)? = bundle[name] { section = existing }
        section[key] = value
        bundle[name] = .object(section)
    }

    static func activate(flow: String, in bundle: inout JSONObject) {
        var onboarding: JSONObject = [:]
        if case .object(let existing)? = bundle["onboarding"] { onboarding = existing }
        onboarding["active_flow_id"] = .string(flow)
        bundle["onboarding"] = .object(onboarding)
    }
}

extension JSONValue {
    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
