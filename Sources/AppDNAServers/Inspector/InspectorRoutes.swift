import AppDNACore
import AppDNANet

/// The inspector's endpoints, one row each (docs/webhooks.md and docs/local-api.md list them):
///
///     GET  /                              the page (its token in a meta tag)
///     GET  /inspector.js, /inspector.css  the page's code and style
///     GET  /favicon.ico                   nothing (204), so that browsers stop asking
///     GET  /api/COLLECTION                the entries kept, newest first: ?after=ID (only newer),
///                                         ?before=ID (only older: the next page), ?limit=N
///     GET  /api/COLLECTION/{id}           one entry: headers, body, answer…
///     GET  /api/COLLECTION/{id}/record    a delivery as `webhook listen --record` writes it (webhook only)
///     POST /api/COLLECTION/{id}/replay    forward it to the handler again (webhook only; token); an optional
///                                         JSON body edits it first (ReplayModification)
///
/// `api serve` only (its bundle and overrides, docs/local-api.md):
///
///     GET    /api/bundle                   the served bundle: experiments with shares, flags, config, onboarding
///     POST   /api/bundle/refetch           fetch the live bundle again (@remote only; token)
///     GET    /api/overrides                the overrides in force and the served bundle_version
///     PUT    /api/overrides/{kind}/{key}   set one: {"value": JSON} (token)
///     DELETE /api/overrides/{kind}/{key}   clear one (token)
///     DELETE /api/overrides                clear them all, as one change (token)
///     POST   /api/identity                 a user id devices assign forced variants (changes nothing)
///
/// COLLECTION is `deliveries` for `webhook listen`, `requests` for `api serve`.
enum InspectorEndpoint: Sendable, CaseIterable {
    case page, script, style, favicon, list, entry, record, replay
    case bundle, refetch, overrides, setOverride, clearOverride, clearOverrides, identity
}

enum InspectorRoutes {
    /// Ids are counted from 1 by the log; the page's script reads them as JavaScript numbers,
    /// exact up to 2^53 - 1, so no id a request names may be larger.
    static let largestID = (1 << 53) - 1
    /// A list answer holds at most this many entries (the page asks for fewer).
    static let largestPage = 500

    static let after = RouteParameter<Int>.integer("after", 0...largestID, absent: 0, "only entries with a larger id (what a poll already has)")
    static let before = RouteParameter<Int>.integer("before", 1...largestID, absent: largestID, "only entries with a smaller id (the next page of older ones)")
    static let limit = RouteParameter<Int>.integer("limit", 1...largestPage, absent: 100, "at most this many entries, newest first")
    static let id = RouteParameter<Int>.pathInteger("id", 1...largestID, "the entry's id")

    static let kind = RouteParameter<String>.pathChoice("kind", BundleOverride.Kind.allCases.map(\.rawValue),
                                                        "what is overridden: experiment, flag, config or onboarding")
    static let key = RouteParameter<String>.pathText("key", maxBytes: BundleOverride.maxKeyBytes,
                                                     "the experiment id, flag or config key (percent-encoded), or flow for onboarding")

    /// The table of an inspector listing `collection`; `record` and `replay` only where the
    /// listener has them, the bundle and override routes only for `api serve` (`bundle`); a
    /// path it lacks is 404, as any unknown path.
    static func table(collection: String, record: Bool, replay: Bool, bundle: Bool = false) -> RouteTable<InspectorEndpoint> {
        var routes: [Route<InspectorEndpoint>] = [
            Route(["GET"], [.literal("")], .page, "the page"),
            Route(["GET"], [.literal("inspector.js")], .script, "the page's script"),
            Route(["GET"], [.literal("inspector.css")], .style, "the page's style"),
            Route(["GET"], [.literal("favicon.ico")], .favicon, "no icon (204)"),
            Route(["GET"], [.literal("api"), .literal(collection)], query: .declared([after.spec, before.spec, limit.spec]), .list,
                  "the entries kept, newest first"),
            Route(["GET"], [.literal("api"), .literal(collection), .parameter(id.spec)], .entry, "one entry in full"),
        ]
        if record {
            routes.append(Route(["GET"], [.literal("api"), .literal(collection), .parameter(id.spec), .literal("record")], .record,
                                "the entry as a record line"))
        }
        if replay {
            routes.append(Route(["POST"], [.literal("api"), .literal(collection), .parameter(id.spec), .literal("replay")], .replay,
                                "forward the entry to the handler again, edited as an optional JSON body says (token)"))
        }
        if bundle {
            routes += [
                Route(["GET"], [.literal("api"), .literal("bundle")], .bundle, "the served bundle, its overrides marked"),
                Route(["POST"], [.literal("api"), .literal("bundle"), .literal("refetch")], .refetch, "fetch the live bundle again (token)"),
                Route(["GET"], [.literal("api"), .literal("overrides")], .overrides, "the overrides in force"),
                Route(["DELETE"], [.literal("api"), .literal("overrides")], .clearOverrides, "clear every override, as one change (token)"),
                Route(["PUT"], [.literal("api"), .literal("overrides"), .parameter(kind.spec), .parameter(key.spec)], .setOverride,
                      "set an override: {\"value\": JSON} (token)"),
                Route(["DELETE"], [.literal("api"), .literal("overrides"), .parameter(kind.spec), .parameter(key.spec)], .clearOverride,
                      "clear an override (token)"),
                Route(["POST"], [.literal("api"), .literal("identity")], .identity,
                      "a user id a device in a context assigns forced variants: {\"force\": {…}, \"context\": {…}}"),
            ]
        }
        return RouteTable(routes)
    }
}
