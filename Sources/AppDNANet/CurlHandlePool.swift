import AppDNACore
import CCurlLoader

/// Idle curl handles kept between requests, so consecutive requests to the same host reuse the
/// open connection (curl keeps it in the handle) instead of connecting anew: `queue replay`
/// sends thousands of batches. Thread-safe: replay's workers take and return handles
/// concurrently; each handle is used by one request at a time.
final class CurlHandlePool: Sendable {
    static let shared = CurlHandlePool()

    /// More idle handles than this (the most in-flight requests replay allows) are closed.
    private let capacity = 16
    /// The idle handles by address: a pointer is not Sendable, and an idle handle belongs to
    /// no thread until `take` hands it to one (the pool never touches what it points to).
    private let idle = Locked<[UInt]>([])

    private init() {}

    /// An idle handle (its connections kept), or a new one.
    func take() -> OpaquePointer? {
        let handle = idle.withLock { $0.popLast() }.flatMap { OpaquePointer(bitPattern: $0) }
        return handle ?? appdna_curl_easy_init()
    }

    /// Takes back a handle after its request. Its options are reset at once: they point at
    /// buffers the finished request is about to free. A handle whose transfer failed is
    /// closed (`reusable` false): curl may keep that transfer's state in it.
    func give(_ handle: OpaquePointer, reusable: Bool) {
        appdna_curl_easy_reset(handle)
        let kept = idle.withLock { idle in
            guard reusable && idle.count < capacity else { return false }
            idle.append(UInt(bitPattern: Int(bitPattern: handle)))
            return true
        }
        if !kept { appdna_curl_easy_cleanup(handle) }
    }
}
