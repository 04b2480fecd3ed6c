import AppDNACore

extension Interruption {
    /// The error of a request the signal ended.
    static func error(_ signal: Int32, at place: String? = nil) -> HTTPError {
        HTTPError(.temporary, (place.map { $0 + ": " } ?? "") + "interrupted (\(name(signal)))", deadlineExpired: true)
    }
}
