import AppDNACore

/// The bundles `api serve` has served or written, by `bundle_version` (issue 51.4): an event's
/// exposures are judged against the config that device used, found by the event's
/// `device.bundle_version`: a version this server served (the source, @remote the live one,
/// each overridden version) or wrote to the app's bundled file. A version it never had is
/// reported as unknown, never as a wrong variant. The newest `kept` versions are kept.
public final class BundleHistory: Sendable {
    static let kept = 64
    private let versions = Locked<[(version: String, bytes: [UInt8])]>([])

    /// Remembers `answers`' bundle under its version (once; the newest last).
    public init() {}

    public func record(_ answers: ServedBundle.Answers) {
        record(version: String(answers.bundleVersion), bytes: answers.bundle)
    }

    /// Remembers the source as read (a device may run it as its bundled file, or, @remote, as
    /// the live config), under its own bundle_version.
    public func record(source: JSONDocument) {
        guard let version = source.root["bundle_version"]?.numberText else { return }
        record(version: version, bytes: source.bytes)
    }

    private func record(version: String, bytes: [UInt8]) {
        versions.withLock { list in
            list.removeAll { $0.version == version && $0.bytes == bytes }
            list.append((version, bytes))
            if list.count > Self.kept { list.removeFirst(list.count - Self.kept) }
        }
    }

    /// The bundle served or written as `version` (the newest when one version was served with
    /// two contents: a file edited without a version change).
    public func bundle(_ version: String) -> JSONDocument? {
        guard let bytes = versions.withLock({ list in list.last { $0.version == version }?.bytes }) else { return nil }
        return try? JSONDocument(bytes: bytes)
    }
}
