import AppDNACore

/// An AppDNA SDK key. Its text goes into the `x-api-key` header and nowhere else: messages use
/// `masked` (`adn_live_…3f9a`).
public struct APIKey: Sendable, CustomStringConvertible {
    public enum Environment: String, Sendable { case live, test }

    public let secret: String
    public let environment: Environment

    /// Checks the prefix (`adn_live_` or `adn_test_`, as the SDKs do). `source` names where the
    /// key came from for the error ("APPDNA_SDK_KEY", "--key-file PATH").
    public init(_ raw: String, source: String) throws(HTTPError) {
        var text = Substring(raw)
        if text.hasSuffix("\n") { text = text.dropLast() }
        if text.hasSuffix("\r") { text = text.dropLast() }
        let key = String(text)
        if key.isEmpty {
            throw HTTPError(.configuration, "the API key from \(source) is empty")
        }
        if key.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            throw HTTPError(.configuration, "the API key from \(source) contains spaces, control or non-ASCII characters",
                            hint: "the file or variable must hold only the key")
        }
        if key.hasPrefix("adn_live_") && key.count > 9 {
            environment = .live
        } else if key.hasPrefix("adn_test_") && key.count > 9 {
            environment = .test
        } else {
            throw HTTPError(.configuration, "the API key from \(source) does not start with adn_live_ or adn_test_",
                            hint: "use the SDK key from the AppDNA console (Settings → API keys)")
        }
        secret = key
    }

    /// `adn_live_…3f9a`
    public var masked: String { APIKey.mask(secret) }

    public var description: String { masked }

    public static func mask(_ key: String) -> String {
        let prefix = key.hasPrefix("adn_live_") ? "adn_live_" : key.hasPrefix("adn_test_") ? "adn_test_" : ""
        let tail = key.count >= prefix.count + 8 ? String(key.suffix(4)) : ""
        return prefix + "…" + tail
    }
}
