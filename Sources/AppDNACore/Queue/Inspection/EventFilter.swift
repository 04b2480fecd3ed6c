/// The `queue inspect --events` filters: event names, one user (matched against the anonymous
/// and the identified id), a time window. Names and ids are matched by their bytes, as the
/// server and the analytics that key on them do: `café` in NFD is not the NFC one.
public struct EventFilter: Sendable {
    public let names: Set<ByteKey>
    public let user: String?
    public let since: Int64?
    public let until: Int64?

    public init(names: [String], user: String?, since: Int64?, until: Int64?) {
        self.names = Set(names.map { ByteKey($0) })
        self.user = user
        self.since = since
        self.until = until
    }

    /// Any filter given: it implies --events.
    public var isActive: Bool { !names.isEmpty || user != nil || since != nil || until != nil }

    public func accepts(_ fields: EventFields) -> Bool {
        if !names.isEmpty, !names.contains(ByteKey(fields.name ?? "")) { return false }
        if let user, !ByteIdentity.same(fields.anonID, user) && !ByteIdentity.same(fields.userID, user) { return false }
        if since != nil || until != nil {
            guard let ts = fields.timestamp else { return false }
            if let since, ts < since { return false }
            if let until, ts > until { return false }
        }
        return true
    }
}
