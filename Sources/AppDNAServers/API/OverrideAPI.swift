import AppDNACore

/// `api serve`'s bundle and overrides on its inspector port (`InspectorServer.Site.bundle`):
/// what each `BundleRequest` answers (docs/local-api.md; docs/schemas/api-bundle.schema.json
/// and api-overrides.schema.json). Every change is noted (the CLI writes it on stderr); errors
/// are in the CLI's words (`words`). `identity` answers `POST /api/identity` (the CLI's id
/// search, which checks each id through `bucket`'s own path; nil: 404).
public enum OverrideAPI {
    public typealias IdentitySearch = ([UInt8]) throws -> (status: Int, result: JSONValue)

    public static func answer(_ request: BundleRequest, bundle: ServedBundle, note: (String) -> Void,
                              words: (any Error) -> String, identity: IdentitySearch? = nil) -> (status: Int, result: JSONValue) {
        do {
            switch request {
            case .show:
                return (200, try show(bundle))
            case .list:
                return (200, try list(bundle))
            case .identity(let body):
                guard let identity else { return (404, ["error": .string("no identity search here")]) }
                return try identity(body)
            case .refetch:
                switch try bundle.refetch() {
                case .notRemote:
                    return (409, ["error": .string("the source is the file \(bundle.name), not @remote: edit the file instead (it is read again when it changes)")])
                case .running:
                    return (409, ["error": .string("a fetch of the live bundle asked for earlier is still running: what it fetches is served when it is in")])
                case .done:
                    break
                }
                let shown = try show(bundle)
                note("re-fetched the live bundle: serving bundle_version \(try bundle.answers().bundleVersion)")
                return (200, shown)
            case .set(let kindText, let key, let body):
                let kind = BundleOverride.Kind(rawValue: kindText)!  // the route accepts only these words
                if kind == .onboarding && key != BundleOverride.onboardingKey {
                    return (404, ["error": .string("no onboarding override '\(key)': its key is \(BundleOverride.onboardingKey) (PUT /api/overrides/onboarding/flow)")])
                }
                // The request itself (its body, the key, the value's kind and depth): 400 at the
                // parse step when it is not one an override can be.
                func malformed(_ message: String) -> (status: Int, result: JSONValue) {
                    let refusal = OverrideTransaction.Refusal(.parse, .request, message)
                    return (400, ["error": .string(refusal.description), "step": .string(refusal.step.rawValue)])
                }
                let value: JSONValue
                switch Self.value(body) {
                case .success(let found): value = found
                case .failure(let refusal): return malformed(refusal.message)
                }
                // Deeper than an override may hold: the request's own fault, whatever the bundle.
                if OverrideKeyRule.depth(of: value) > OverrideKeyRule.maxValueDepth {
                    return malformed("the value is nested deeper than \(OverrideKeyRule.maxValueDepth) levels")
                }
                // A value of another kind than the override's (a variant id that is not a
                // string): a conflict with what the bundle's experiment or flow is.
                let item: BundleOverride
                do { item = try BundleOverride(kind: kind, key: key, value: value) } catch {
                    let refusal = OverrideTransaction.Refusal(.check, .request, words(error))
                    return (409, ["error": .string(refusal.description), "step": .string(refusal.step.rawValue)])
                }
                // A well-formed request whose override does not fit the bundle served (no such
                // experiment or variant): a conflict with that bundle.
                do {
                    try bundle.set(item)
                } catch let failure as Failure where failure.kind == .usage || failure.kind == .malformedInput {
                    return (409, ["error": .string(words(failure))])
                } catch let refusal as OverrideTransaction.Refusal where refusal.step == .check {
                    return (409, ["error": .string(refusal.description), "step": .string(refusal.step.rawValue)])
                }
                let listed = try list(bundle)
                note("override set: \(item.text) (bundle_version \(try bundle.answers().bundleVersion))")
                return (200, listed)
            case .clear(let kindText, let key):
                let kind = BundleOverride.Kind(rawValue: kindText)!  // the route accepts only these words
                guard try bundle.clear(kind: kind, key: key) else {
                    return (404, ["error": .string("no \(kindText) override for '\(key)'")])
                }
                let listed = try list(bundle)
                note("override cleared: \(kindText):\(key) (bundle_version \(try bundle.answers().bundleVersion))")
                return (200, listed)
            case .clearAll:
                let count = try bundle.clearAll()
                if count > 0 { note("overrides cleared: all \(count) (bundle_version \(try bundle.answers().bundleVersion))") }
                return (200, try list(bundle))
            }
        } catch let refusal as OverrideTransaction.Refusal {
            // The step that failed, and whose fault: the request's (400), this server's (500)
            // or the live bundle's (502). Nothing was changed.
            let status = refusal.fault == .request ? 400 : refusal.fault == .upstream ? 502 : 500
            return (status, ["error": .string(refusal.description), "step": .string(refusal.step.rawValue)])
        } catch {
            // A wrong override is the caller's (400); a live bundle that cannot be fetched is
            // upstream's (502); anything else is this server's (500).
            let status: Int
            switch (error as? Failure)?.kind {
            case .usage?, .malformedInput?: status = 400
            case .unavailable?, .temporary?, .permissionDenied?, .configuration?: status = 502
            default: status = 500
            }
            return (status, ["error": .string(words(error))])
        }
    }

    /// The value a PUT's body `{"value": JSON}` gives, or why it is not that shape (400).
    static func value(_ body: [UInt8]) -> Result<JSONValue, Failure> {
        let root: JSONValue
        // Parsed no deeper than a value may nest (`OverrideKeyRule`): a deeper one is refused
        // while parsing, never built (and freed, level by level, on this thread's small stack).
        do { root = try JSONValue(parsing: body, options: JSONParseOptions(maxDepth: OverrideKeyRule.maxValueDepth + 2)) } catch {
            return .failure(Failure(.usage, "the body is not JSON: \(error.message); it is {\"value\": JSON}"))
        }
        // Nothing beside "value": a member the server would ignore is a mistake to name.
        guard case .object(let members) = root, members.keys.allSatisfy({ Array($0.utf8) == Array("value".utf8) }),
              let value = root["value"] else { return .failure(Failure(.usage, "the body is {\"value\": JSON} (for an experiment, the variant id)")) }
        return .success(value)
    }

    /// `{"overrides": [{kind, key, value, value_json, stale, stale_reason?}…], "bundle_version": N}`
    static func list(_ bundle: ServedBundle) throws -> JSONValue {
        let answers = try bundle.answers()
        return ["overrides": .array(answers.overrides.map { entry($0, answers.staleness) }), "bundle_version": .integer(answers.bundleVersion)]
    }

    /// One override as the API lists it: the value also as its exact JSON text (a browser's
    /// JSON.parse rounds 12345678901234567890123456789 and turns 1e999 into null), and
    /// whether it is stale (kept, not applied: the source has no such experiment, variant,
    /// flag or flow now), with why.
    static func entry(_ item: BundleOverride, _ staleness: OverrideStaleness) -> JSONValue {
        guard case .object(var object) = item.json else { return item.json }
        object["value_json"] = .string(JSONWriter().writeString(item.value))
        let reason = staleness.reason(for: item)
        object["stale"] = .bool(reason != nil)
        if let reason { object["stale_reason"] = .string(reason) }
        return .object(object)
    }

    /// The served bundle as the console shows it: each experiment's variants with the share of
    /// buckets devices compute from the served weights, the flags and config values as served,
    /// the active onboarding flow, and which are overridden.
    static func show(_ bundle: ServedBundle) throws -> JSONValue {
        let answers = try bundle.answers()
        let overrides = answers.staleness.applied
        let document = try answers.document()
        let root = document.root
        let model = BundleModel(root: root)
        let experiments: [JSONValue] = model.experimentList.map { entry in
            let definition = ExperimentDefinition(id: entry.id, node: entry.experiment.node)
            let allocation = definition.allocation
            return [
                "key": .string(entry.id),
                "status": definition.status.map(JSONValue.string) ?? .null,
                "variants": .array(allocation.ranges.map { range in
                    ["id": .string(range.variant), "weight": .decimal(range.weight),
                     "share": .decimal(Double(range.bucketCount) / Double(allocation.bucketCount))]
                }),
                "overridden": overrides.value(kind: .experiment, key: entry.id) ?? .null,
            ]
        }
        // One section holds both (the one the SDK reads): a boolean, or a key forced with
        // flag:, is a flag; the rest are config values.
        var flags: [JSONValue] = []
        var config: [JSONValue] = []
        if let section = model.flags?.node, section.kind == .object {
            for member in section.members {
                let flagOverride = overrides.value(kind: .flag, key: member.key)
                let overridden = flagOverride != nil || overrides.value(kind: .config, key: member.key) != nil
                let entry: JSONValue = ["key": .string(member.key), "value": member.value.value,
                                        "value_json": .string(JSONWriter().writeString(member.value.value)), "overridden": .bool(overridden)]
                if member.value.kind == .bool || flagOverride != nil { flags.append(entry) } else { config.append(entry) }
            }
        }
        let onboarding = BundleFileShape.section("onboarding", in: root)
        return [
            "bundle_version": .integer(answers.bundleVersion),
            "source": .string(bundle.name),
            "experiments": .array(experiments),
            "flags": .array(flags),
            "config": .array(config),
            "onboarding": ["flow": onboarding?["active_flow_id"]?.string.map(JSONValue.string) ?? .null,
                           "overridden": .bool(overrides.value(kind: .onboarding, key: BundleOverride.onboardingKey) != nil),
                           // The flows the override may choose from (the console's list); none
                           // listed: any flow id is taken.
                           "flows": .array(onboarding?["flows"].flatMap { $0.kind == .object ? $0.members.map { JSONValue.string($0.key) } : nil } ?? [])],
            "stale": .array(answers.staleness.stale.map { entry($0.item, answers.staleness) }),
        ]
    }
}
