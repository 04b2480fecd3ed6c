import AppDNACore
import CCurlLoader

/// Ctrl-C and SIGTERM during a long command (`queue replay`): once `install()` ran, the signal
/// is recorded instead of killing the process; transfers in flight abort within a second
/// (curl's progress callback looks at it), waits between retries end at once, and the command
/// says what it did before exiting with 128 + the signal.
public enum Interruption {
    public static func install() { appdna_interrupt_install() }

    /// SIGINT or SIGTERM once received, else 0.
    public static var signal: Int32 { appdna_interrupt_signal() }

    /// "SIGINT", "SIGTERM"
    public static func name(_ signal: Int32) -> String { signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)" }

    /// The error of a request the signal ended.
    static func error(_ signal: Int32, at place: String? = nil) -> HTTPError {
        HTTPError(.temporary, (place.map { $0 + ": " } ?? "") + "interrupted (\(name(signal)))", deadlineExpired: true)
    }
}
