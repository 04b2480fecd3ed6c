import AppDNACore
import AppDNANet

/// The HTTP client a webhook delivery goes out with (`webhook trigger`, and `webhook listen`
/// forwarding to the handler).
enum DeliveryClient {
    /// The project's one HTTP client, with no retries (the answer itself is what is being
    /// tested) and redirects handed back instead of followed.
    static func make(_ invocation: Invocation) throws -> HTTPClient {
        var client = try APIAccess.client(invocation, retries: 0)
        client.followsRedirects = false
        return client
    }
}
