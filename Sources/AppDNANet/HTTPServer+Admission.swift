import AppDNACore

/// What a server decides when a request's head is complete, before a byte of its body is read:
/// a refused request (no such path or method, a guard that fails, a body over its route's
/// limit) is answered at once and its body never buffered, so a 60 MiB batch with a wrong key
/// costs the server nothing but the bytes it drains and drops.
extension HTTPServer {
    public enum Admission: Sendable {
        /// Read the body, of at most this many bytes (within `Limits.maxBodyBytes`), then hand
        /// the request to the handler.
        case admit(maxBodyBytes: Int)
        /// Answer this, close the connection, and read nothing more of the request.
        case refuse(Response)
    }

    /// Decides a head (a `Request` whose body is empty, not read yet). Runs on the accept loop's
    /// thread for every request, so it only looks at the head: a route table, a header compare.
    public typealias Admit = @Sendable (Request) -> Admission

    /// Admits every request up to the server's own body limit (a server without a route table).
    public static let admitAll: Admit = { _ in .admit(maxBodyBytes: Int.max) }
}
