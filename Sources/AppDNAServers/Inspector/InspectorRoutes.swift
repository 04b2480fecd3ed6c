import AppDNACore
import AppDNANet

/// The inspector's endpoints, one row each (docs/webhooks.md and docs/local-api.md list them):
///
///     GET  /                              the page (its token in a meta tag)
///     GET  /inspector.js, /inspector.css  the page's code and style
///     GET  /favicon.ico                   nothing (204), so that browsers stop asking
///     GET  /api/openapi.json              this inspector's OpenAPI description (from this table)
///     GET  /api/listener-openapi.json     the inspected server's (from its table)
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
///     POST   /api/identity                 a user id devices assign forced variants (changes nothing; token)
///
/// COLLECTION is `deliveries` for `webhook listen`, `requests` for `api serve`.
enum InspectorEndpoint: Sendable, CaseIterable {
    case page, script, style, favicon, description, listenerDescription, list, entry, record, replay
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
                                                        "what is overridden: \(BundleOverride.Kind.names)")
    static let key = RouteParameter<String>.pathText("key", maxCharacters: OverrideKeyRule.maxKeyCharacters,
                                                     "the key (percent-encoded): " + BundleOverride.Kind.allCases.map { "\($0.keyMeaning) for \($0.rawValue)" }.joined(separator: ", "))

    /// The table of an inspector listing `collection`; `record` and `replay` only where the
    /// listener has them, the bundle and override routes only for `api serve` (`bundle`); a
    /// path it lacks is 404, as any unknown path. Every row names its guard and its body: an
    /// action (replay, refetch, an override) takes the page's token, the rest is open to the
    /// page (the Host check covers every row, `InspectorGuard`).
    static func table(collection: String, record: Bool, replay: Bool, bundle: Bool = false) -> RouteTable<InspectorEndpoint> {
        let one = collection == "deliveries" ? "inspector-delivery.schema.json" : "inspector-request.schema.json"
        let gone = RouteAnswer(404, "no such entry (the inspector keeps only the newest)", error)
        var routes: [Route<InspectorEndpoint>] = [
            Route(["GET"], [.literal("")], guard: .open, body: .empty, .page, "the page",
                  answers: [RouteAnswer(200, "the page, its token in a meta tag", RouteContent("text/html", schema: nil))]),
            Route(["GET"], [.literal("inspector.js")], guard: .open, body: .empty, .script, "the page's script",
                  answers: [RouteAnswer(200, "the script", RouteContent("text/javascript", schema: nil))]),
            Route(["GET"], [.literal("inspector.css")], guard: .open, body: .empty, .style, "the page's style",
                  answers: [RouteAnswer(200, "the style", RouteContent("text/css", schema: nil))]),
            Route(["GET"], [.literal("favicon.ico")], guard: .open, body: .empty, .favicon, "no icon (204)",
                  answers: [RouteAnswer(204, "no icon")]),
            Route(["GET"], [.literal("api"), .literal("openapi.json")], guard: .open, body: .empty, .description,
                  "this inspector's OpenAPI description, generated from its route table",
                  answers: [RouteAnswer(200, "the description (OpenAPI 3.1)", RouteContent("application/json", schema: nil))]),
            Route(["GET"], [.literal("api"), .literal("listener-openapi.json")], guard: .open, body: .empty, .listenerDescription,
                  "the inspected server's OpenAPI description, generated from its route table",
                  answers: [RouteAnswer(200, "the description (OpenAPI 3.1)", RouteContent("application/json", schema: nil))]),
            Route(["GET"], [.literal("api"), .literal(collection)], query: .declared([after.spec, before.spec, limit.spec]),
                  guard: .open, body: .empty, .list, "the entries kept, newest first",
                  answers: [RouteAnswer(200, "a page of entries", .json("inspector-\(collection).schema.json"),
                                        links: [RouteLink("newest", to: InspectorEndpoint.entry, [("id", "$response.body#/\(collection)/0/id")])])]),
            Route(["GET"], [.literal("api"), .literal(collection), .parameter(id.spec)], guard: .open, body: .empty, .entry,
                  "one entry in full", answers: [RouteAnswer(200, "the entry", .json(one)), gone]),
        ]
        if record {
            routes.append(Route(["GET"], [.literal("api"), .literal(collection), .parameter(id.spec), .literal("record")],
                                guard: .open, body: .empty, .record, "the entry as a record line",
                                answers: [RouteAnswer(200, "one NDJSON line", RouteContent("application/x-ndjson", schema: nil)), gone,
                                          RouteAnswer(409, "the body is larger than the inspector keeps", error)]))
        }
        if replay {
            routes.append(Route(["POST"], [.literal("api"), .literal(collection), .parameter(id.spec), .literal("replay")],
                                guard: .inspectorToken, body: .serverLimit(RouteContent("application/json", schema: "inspector-replay-edits.schema.json", required: false)), .replay,
                                "forward the entry to the handler again, edited as an optional JSON body says",
                                answers: [RouteAnswer(200, "what the handler answered", .json("inspector-replay.schema.json")), gone,
                                          RouteAnswer(400, "the edits are not valid", error),
                                          RouteAnswer(409, "the entry cannot be replayed as it is kept", error),
                                          RouteAnswer(502, "the handler could not be reached", .json("inspector-replay.schema.json")),
                                          RouteAnswer(504, "the handler did not answer in time", .json("inspector-replay.schema.json"))]))
        }
        if bundle {
            let failed = [RouteAnswer(500, "the bundle cannot be served", error), RouteAnswer(502, "the live bundle cannot be fetched", error)]
            routes += [
                Route(["GET"], [.literal("api"), .literal("bundle")], guard: .open, body: .empty, .bundle,
                      "the served bundle, its overrides marked",
                      answers: [RouteAnswer(200, "the served bundle", .json("api-bundle.schema.json"))] + failed),
                Route(["POST"], [.literal("api"), .literal("bundle"), .literal("refetch")], guard: .inspectorToken, body: .empty, .refetch,
                      "fetch the live bundle again",
                      answers: [RouteAnswer(200, "the bundle now served", .json("api-bundle.schema.json")),
                                RouteAnswer(409, "the source is a file, not @remote", error)] + failed),
                Route(["GET"], [.literal("api"), .literal("overrides")], guard: .open, body: .empty, .overrides, "the overrides in force",
                      answers: [RouteAnswer(200, "the overrides", .json("api-overrides.schema.json"))] + failed),
                Route(["PUT"], [.literal("api"), .literal("overrides"), .parameter(kind.spec), .parameter(key.spec)],
                      guard: .inspectorToken, body: .upTo(overrideBytes, .json("api-override-value.schema.json")), .setOverride,
                      "set an override: {\"value\": JSON}",
                      answers: [RouteAnswer(200, "the overrides now in force", .json("api-overrides.schema.json"),
                                            links: [RouteLink("clear", to: InspectorEndpoint.clearOverride,
                                                              [("kind", "$request.path.kind"), ("key", "$request.path.key")])]),
                                RouteAnswer(400, "the body is not {\"value\": JSON}", error),
                                RouteAnswer(404, "no such onboarding override (its key is flow)", error),
                                RouteAnswer(409, "the override does not fit the bundle served (no such experiment, variant or key; a value of another kind)",
                                            error)] + failed),
                Route(["DELETE"], [.literal("api"), .literal("overrides"), .parameter(kind.spec), .parameter(key.spec)],
                      guard: .inspectorToken, body: .empty, .clearOverride, "clear an override",
                      answers: [RouteAnswer(200, "the overrides now in force", .json("api-overrides.schema.json")),
                                RouteAnswer(404, "no such override", error)] + failed),
                Route(["DELETE"], [.literal("api"), .literal("overrides")], guard: .inspectorToken, body: .empty, .clearOverrides,
                      "clear every override, as one change",
                      answers: [RouteAnswer(200, "the overrides now in force (none)", .json("api-overrides.schema.json"))] + failed),
                Route(["POST"], [.literal("api"), .literal("identity")], guard: .inspectorToken, body: .upTo(identityBytes, .json("api-identity-request.schema.json")), .identity,
                      "a user id a device in a context assigns forced variants: {\"force\": {…}, \"context\": {…}} (changes nothing; one search at a time, each bounded)",
                      answers: [RouteAnswer(200, "the id, checked, and the identify line for each SDK", .json("bucket-force.schema.json")),
                                RouteAnswer(400, "the request is not valid", error),
                                RouteAnswer(503, "another search is running: try again when it is done", error),
                                RouteAnswer(409, "no id can meet every forced variant in the bundle served: each requirement that fails", .json("api-identity-refusal.schema.json"))] + failed),
            ]
        }
        return RouteTable(routes)
    }

    /// The largest override value a PUT sends (an edited replay's limit is the inspector's
    /// own, `Site.requestBytes`, which follows the listener's --max-body).
    static let overrideBytes = 64 << 10
    /// An identity request: at most 64 forced experiments and 256 traits (`IdentityAPI`).
    static let identityBytes = 256 << 10

    /// `{"error": MESSAGE}`: how the inspector says no.
    static let error = RouteContent.json("http-error.schema.json")
}
