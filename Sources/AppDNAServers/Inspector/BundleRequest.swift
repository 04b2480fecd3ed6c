/// A request to `api serve`'s bundle and overrides through its inspector (the rows of
/// `InspectorRoutes` under /api/bundle and /api/overrides), with its path values checked.
public enum BundleRequest: Sendable {
    /// GET /api/bundle
    case show
    /// GET /api/overrides
    case list
    /// POST /api/bundle/refetch
    case refetch
    /// PUT /api/overrides/{kind}/{key}, with the body `{"value": JSON}` as sent.
    case set(kind: String, key: String, body: [UInt8])
    /// DELETE /api/overrides/{kind}/{key}
    case clear(kind: String, key: String)
    /// DELETE /api/overrides: every override, at once
    case clearAll
    /// POST /api/identity, with its body as sent (IdentityAPI).
    case identity(body: [UInt8])

    /// Whether it changes what devices are served (then it needs the page's token).
    public var changes: Bool {
        switch self {
        case .show, .list, .identity: return false
        case .refetch, .set, .clear, .clearAll: return true
        }
    }
}
