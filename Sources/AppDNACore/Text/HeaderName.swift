/// HTTP header names are case-insensitive (RFC 9110 §5.1): `Content-Type` and `content-type`
/// are one header. Every header lookup of the tool (received requests, recorded deliveries,
/// HTTP responses) goes through here, so they all agree on what "the same name" means.
public enum HeaderName {
    /// Whether `a` and `b` name the same header.
    public static func same(_ a: String, _ b: String) -> Bool {
        a.lowercased() == b.lowercased()
    }

    /// The first of `headers` whose name (`nameOf`) is `name`, in any case.
    public static func first<Headers: Sequence>(_ name: String, in headers: Headers,
                                                nameOf: (Headers.Element) -> String) -> Headers.Element? {
        let wanted = name.lowercased()
        return headers.first { nameOf($0).lowercased() == wanted }
    }

    /// Every one of `headers` whose name (`nameOf`) is `name`, in any case, in order.
    public static func all<Headers: Sequence>(_ name: String, in headers: Headers,
                                              nameOf: (Headers.Element) -> String) -> [Headers.Element] {
        let wanted = name.lowercased()
        return headers.filter { nameOf($0).lowercased() == wanted }
    }
}
