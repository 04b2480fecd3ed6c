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

    /// `bytes` (a server's answer about to be stored) with every occurrence of the key's text
    /// replaced by `masked`, and a key cut off at the end of the bytes removed: a gateway that
    /// echoes the request's headers must not put the key into a file.
    public func redacting(_ bytes: [UInt8]) -> [UInt8] {
        let secretBytes = Array(secret.utf8)
        let replacement = Array(masked.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == secretBytes[0], bytes[index...].starts(with: secretBytes) {
                result.append(contentsOf: replacement)
                index += secretBytes.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        // A tail that is the start of the key beyond its public prefix (adn_live_): cut it.
        let publicPrefix = 9
        for length in stride(from: min(secretBytes.count - 1, result.count), to: publicPrefix, by: -1)
        where result.suffix(length).elementsEqual(secretBytes.prefix(length)) {
            result.removeLast(length)
            result.append(contentsOf: replacement)
            break
        }
        return result
    }

    public static func mask(_ key: String) -> String {
        let prefix = key.hasPrefix("adn_live_") ? "adn_live_" : key.hasPrefix("adn_test_") ? "adn_test_" : ""
        let tail = key.count >= prefix.count + 8 ? String(key.suffix(4)) : ""
        return prefix + "…" + tail
    }
}
